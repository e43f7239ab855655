// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace: count and time clock syscalls and time-zone file accesses of
 * a process tree, in the kernel.  Per event the work is a few map lookups
 * and atomic adds; userspace reads the maps when it reports.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "clocktrace.h"
#define TZ_INLINE static __always_inline
#include "tzpath.h"
#include "syscalls.bpf.h"
#include "bits.bpf.h"

char LICENSE[] SEC("license") = "GPL";

#define EEXIST	17	/* asm-generic/errno-base.h, on every architecture */

/* Set by userspace before load. */
const volatile bool trace_all = false;	/* top: every process */
const volatile __u32 self_tgid = 0;	/* never count ourselves */
/* attach --comm: a process that execs into this name is a target too. */
const volatile char target_comm[COMM_LEN] = {};
/*
 * --cgroup/--unit: the target cgroup v2 is named by its level, its
 * parent's id and its name, not by its own id, so that a unit's cgroup
 * that systemd creates or re-creates after we started (restart) and the
 * cgroups made below it later are still the target.
 */
const volatile bool cgroup_targets = false;
const volatile __u32 target_cgroup_level = 0;
const volatile __u64 target_cgroup_parent = 0;
const volatile char target_cgroup_name[CGROUP_NAME_LEN] = {};
/*
 * Linux >= 5.11: task storage and bpf_get_current_task_btf, probed by
 * userspace (user/trace/variant.c).  The verifier prunes the branch this constant
 * rules out, so an older kernel never sees a helper it does not know.
 * Features whose mere presence an old kernel refuses (compare-and-swap, a
 * bpf_loop callback) are in separate programs instead.
 */
const volatile bool has_task_storage = true;
/*
 * Ring-buffer wake-ups: a wake-up is an interrupt and a reschedule of the
 * reader (several microseconds in a VM, more than all the rest of a
 * process event).  With lazy_wakeup the reader polls every few
 * milliseconds instead (user/trace/tracer.c) and is woken only once a quarter of
 * the buffer waits.  --libc and --lang act on each exec notice at once:
 * they keep a wake-up per notice.
 */
const volatile bool lazy_wakeup = false;
const volatile __u64 wake_avail_bytes = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-procs */
	__type(key, __u32);
	__type(value, struct proc);
} procs SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384 * 4);
	__type(key, struct stats_key);
	__type(value, struct kind_stats);
} stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384 * 2);
	__type(key, struct clockid_key);
	__type(value, __u64);
} clockids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384 * 2);
	__type(key, struct tz_path_key);
	__type(value, struct tz_path_count);
} tz_paths SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);	/* --max-procs */
	__type(key, __u32);
	__type(value, struct proc_tz);
} proc_tz SEC(".maps");

/*
 * --cgroup/--unit: cgroup id -> CGROUP_IN or CGROUP_OUT.  Whether a cgroup
 * is the target or below it never changes (cgroup v2 has no rename, and
 * an id is never reused), so each one is judged once.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} cgroup_verdicts SEC(".maps");

/* The name of the cgroup being judged: too big for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[CGROUP_NAME_LEN]);
} cgroup_name_scratch SEC(".maps");

struct env_walk {
	__u64 ptr;		/* the next entry, in the new process's memory */
	__u64 end;
	__u32 left;		/* reads left of the ENV_ENTRIES_MAX per exec */
	bool cont;		/* it continues an entry too long for one read */
};

/*
 * The environment as the ELF loader left it, copied once: the block
 * env_start..env_end and the envp pointers into it.  Entries are then
 * looked at in the copy, without a helper call each.
 */
struct env_copy {
	__u64 base;		/* env_start */
	__u64 size;		/* env_end - env_start */
	__u64 copied;		/* bytes of the block in env_scratch.block */
	__u64 off;		/* where the next entry starts, in the block */
	__u32 next;		/* the next entry's index in envp */
	__u32 count;		/* entries whose pointers were copied */
	__u32 envc;		/* entries the kernel put there (bprm->envc) */
};

/*
 * Scratch for exec: the environment copy (the walk reads one entry at a
 * time into the start of block), the proc_tz being built and where the
 * walk is (here, not on the stack, so that the steps can be global
 * functions that take no pointer).  A per-CPU value has 32 KiB at most.
 */
struct env_scratch {
	struct proc_tz tz;
	struct env_walk walk;
	struct env_copy copy;
	struct exec_env env;
	__u64 envp[ENV_ENTRIES_MAX + 1];
	/* + 8: an entry's first bytes are compared without a bound each. */
	char block[ENV_BLOCK_LEN + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct env_scratch);
} env_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LOSS_MAX);
	__type(key, __u32);
	__type(value, __u64);
} losses SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);	/* --ringbuf-kb */
} events SEC(".maps");

/* What a thread is in the middle of: a counted syscall, a libc call. */
struct thread_state {
	__u64 sys_start_ns;
	__u64 sys_arg;		/* clock id or path pointer */
	__s64 sys_nr;		/* -1: not in a counted syscall */
	__u64 path_seen;	/* the path at entry: see read_path_at_entry() */
	__u32 libc_fn;		/* outermost probed libc function, 0: none */
	__u32 libc_depth;
	__u64 libc_start_ns;
	__s32 libc_clock;	/* clock id a counted clock_gettime was given */
	__u32 libc_overflow;	/* nested entries beyond LIBC_NESTED_MAX */
};

/*
 * Task storage where the kernel has it for tracing programs; before 5.11
 * userspace makes this a hash map keyed by thread id, emptied at each
 * thread's exit.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} thread_states SEC(".maps");

/* Scratch space: a tz_path_key is too large for the 512-byte stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tz_path_key);
} path_scratch SEC(".maps");

static const struct kind_stats kind_stats_init = { .lat.min_ns = ~0ULL };

static __always_inline void count_loss(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&losses, &why);

	if (n)
		__sync_fetch_and_add(n, 1);
}

enum { CGROUP_IN = 1, CGROUP_OUT = 2 };

/* cg's ancestor at the target's level (cg itself there), or NULL. */
static __always_inline struct cgroup *cgroup_at_target_level(struct cgroup *cg)
{
	int level = BPF_CORE_READ(cg, level);

	for (int i = 0; i < CGROUP_MAX_DEPTH && cg; i++) {
		if (level <= (int)target_cgroup_level)
			break;
		cg = BPF_CORE_READ(cg, self.parent, cgroup);
		level--;
	}
	return level == (int)target_cgroup_level ? cg : NULL;
}

static __always_inline bool cgroup_has_target_name(struct cgroup *cg)
{
	__u32 zero = 0;
	char *name = bpf_map_lookup_elem(&cgroup_name_scratch, &zero);

	if (!name || bpf_probe_read_kernel_str(name, CGROUP_NAME_LEN,
					       BPF_CORE_READ(cg, kn, name)) < 0)
		return false;
	for (int i = 0; i < CGROUP_NAME_LEN; i++) {
		if (name[i] != target_cgroup_name[i])
			return false;
		if (!name[i])
			return true;
	}
	return false;
}

static __always_inline bool cgroup_is_target(struct cgroup *cg)
{
	cg = cgroup_at_target_level(cg);
	if (!cg)
		return false;
	/* The root of the hierarchy has neither parent nor name. */
	if (!target_cgroup_level)
		return true;
	return BPF_CORE_READ(cg, self.parent, cgroup, kn, id) ==
	       target_cgroup_parent && cgroup_has_target_name(cg);
}

/*
 * The current task (a parent at fork, the task at exec, the caller of a
 * syscall in top) is in the target cgroup or below it.
 */
static __always_inline bool in_target_cgroup(void)
{
	struct task_struct *task;
	__u64 id;
	__u8 *seen, verdict;

	if (!cgroup_targets)
		return false;
	id = bpf_get_current_cgroup_id();
	seen = bpf_map_lookup_elem(&cgroup_verdicts, &id);
	if (seen)
		return *seen == CGROUP_IN;
	task = (struct task_struct *)bpf_get_current_task();
	verdict = cgroup_is_target(BPF_CORE_READ(task, cgroups, dfl_cgrp)) ?
		  CGROUP_IN : CGROUP_OUT;
	bpf_map_update_elem(&cgroup_verdicts, &id, &verdict, BPF_ANY);
	return verdict == CGROUP_IN;
}

static __always_inline bool is_traced(__u32 tgid)
{
	struct proc *p;

	if (tgid == self_tgid)
		return false;
	if (trace_all)
		return !cgroup_targets || in_target_cgroup();
	p = bpf_map_lookup_elem(&procs, &tgid);
	return p && !(p->flags & PROC_EXITED);
}

static __always_inline void *lookup_or_init(void *map, const void *key,
					    const void *init, __u32 why)
{
	void *v = bpf_map_lookup_elem(map, key);

	if (v)
		return v;
	/* -EEXIST means another CPU created it first: fine. */
	bpf_map_update_elem(map, key, init, BPF_NOEXIST);
	v = bpf_map_lookup_elem(map, key);
	if (!v)
		count_loss(why);
	return v;
}

static __always_inline void atomic_min(__u64 *p, __u64 v)
{
	__u64 old = *p;

	for (int i = 0; i < 4 && v < old; i++) {
		__u64 seen = __sync_val_compare_and_swap(p, old, v);

		if (seen == old)
			break;
		old = seen;
	}
}

static __always_inline void atomic_max(__u64 *p, __u64 v)
{
	__u64 old = *p;

	for (int i = 0; i < 4 && v > old; i++) {
		__u64 seen = __sync_val_compare_and_swap(p, old, v);

		if (seen == old)
			break;
		old = seen;
	}
}

/*
 * Before 5.12 the kernel refuses any program that holds a compare-and-swap
 * (dead code included): there, a concurrent update of the same minimum or
 * maximum may be lost.  Counts and sums stay exact (fetch-and-add).
 */
static __always_inline void plain_min(__u64 *p, __u64 v)
{
	if (v < *p)
		*p = v;
}

static __always_inline void plain_max(__u64 *p, __u64 v)
{
	if (v > *p)
		*p = v;
}

static __always_inline void latency_add(struct latency *l, __u64 ns, bool err,
					bool cas)
{
	/*
	 * The verifiers of 5.10 and 6.1 carry no bound from a 32-bit compare
	 * over to the 64-bit register that indexes the map value: hide what
	 * the compiler knows so that it compares all 64 bits.
	 */
	__u64 slot = log2_slot(ns);

	barrier_var(slot);

	__sync_fetch_and_add(&l->count, 1);
	if (err)
		__sync_fetch_and_add(&l->errors, 1);
	__sync_fetch_and_add(&l->total_ns, ns);
	if (slot < HIST_SLOTS)
		__sync_fetch_and_add(&l->hist[slot], 1);
	if (cas) {
		atomic_min(&l->min_ns, ns);
		atomic_max(&l->max_ns, ns);
	} else {
		plain_min(&l->min_ns, ns);
		plain_max(&l->max_ns, ns);
	}
}

/*
 * The record_* functions are global (not inlined, not static): the verifier
 * checks each once on its own instead of along every path through sys_exit.
 */
static __always_inline struct kind_stats *kind_stats_of(__u32 tgid, __u32 kind)
{
	struct stats_key key = { .tgid = tgid, .kind = kind };

	return lookup_or_init(&stats, &key, &kind_stats_init,
			      LOSS_STATS_MAP_FULL);
}

/*
 * Count the syscall's argument in its kind_stats: slot is a clock_ids
 * index for clock_gettime, a tz_files index for a TZ kind.  False when
 * there is no such slot: the caller counts it in the map for all others.
 */
static __always_inline bool arg_add(struct kind_stats *s, __u32 kind,
				    int slot, bool err)
{
	__u64 i = slot;

	/* As in latency_add: make the verifier bound all 64 bits. */
	barrier_var(i);
	if (kind == KIND_CLOCK_GETTIME) {
		if (i >= CLOCK_ID_SLOTS)
			return false;
		__sync_fetch_and_add(&s->clock_ids[i], 1);
		return true;
	}
	if (i >= TZ_FILES)
		return false;
	__sync_fetch_and_add(&s->tz_files[i].count, 1);
	if (err)
		__sync_fetch_and_add(&s->tz_files[i].errors, 1);
	return true;
}

/* 1: the argument's slot was counted too (see arg_add). */
static __always_inline int record_kind(__u32 tgid, __u32 kind, __u64 ns,
				       int err, int slot, bool cas)
{
	struct kind_stats *s = kind_stats_of(tgid, kind);

	if (!s)
		return 0;
	latency_add(&s->lat, ns, err, cas);
	return arg_add(s, kind, slot, err);
}

__noinline int record_latency(__u32 tgid, __u32 kind, __u64 ns, int err,
			      int slot)
{
	return record_kind(tgid, kind, ns, err, slot, true);
}

/* Only in sys_exit_nocas: its caller is what keeps it out of newer loads. */
__noinline int record_latency_nocas(__u32 tgid, __u32 kind, __u64 ns, int err,
				    int slot)
{
	return record_kind(tgid, kind, ns, err, slot, false);
}

/*
 * CPU clocks carry a pid and fd clocks an fd in their upper bits; keep only
 * the clock type so the map holds one entry per kind of clock, not per target.
 */
static __always_inline __s32 clockid_class(__s32 clk)
{
	return clk < 0 ? (__s32)(~7u | ((__u32)clk & 7)) : clk;
}

/* The clock_ids slot of a clock id, -1 when it has none. */
static __always_inline int clock_id_slot(__s32 clk)
{
	__s32 class = clockid_class(clk);

	if (class < 0)
		return CLOCK_ID_SLOTS + class;	/* -8..-1 */
	return class < CLOCK_ID_SLOTS_POSIX ? class : -1;
}

/* Clock ids without a slot, or a kind_stats that could not be made. */
__noinline int record_clockid(__u32 tgid, __s32 clk)
{
	struct clockid_key key = { .tgid = tgid, .clockid = clockid_class(clk) };
	static const __u64 zero;
	__u64 *n;

	n = lookup_or_init(&clockids, &key, &zero, LOSS_CLOCKID_MAP_FULL);
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}

/* The TZ=:file and TZDIR of this process's own environment. */
static __always_inline bool tz_proc_match(__u32 tgid, const char *path)
{
	struct proc_tz *pt = bpf_map_lookup_elem(&proc_tz, &tgid);

	return pt && (tz_user_match(path, &pt->file) ||
		      tz_user_match(path, &pt->dir));
}

/*
 * A digest of the n bytes read (its NUL included) to see the path change.
 * Only those: what lies after them in the buffer is left from an earlier
 * read, and a short path costs a word or two, not the whole buffer.
 */
static __always_inline __u64 path_digest(const char *path, long n)
{
	__u64 h = 0xcbf29ce484222325ULL ^ (__u64)n;

	for (int i = 0; i < TZ_PATH_LEN / 8; i++) {
		long left = n - i * 8;
		__u64 w;

		if (left <= 0)
			break;
		__builtin_memcpy(&w, path + i * 8, 8);
		/* Little-endian: the first bytes are the low ones. */
		if (left < 8)
			w &= (1ULL << (left * 8)) - 1;
		h = (h ^ w) * 0x100000001b3ULL;
	}
	return h;
}

static __always_inline bool is_tz_path(__u32 tgid, const char *path)
{
	return tz_builtin_match(path) || tz_proc_match(tgid, path);
}

static __always_inline bool single_threaded(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();

	return BPF_CORE_READ(task, signal, nr_threads) == 1;
}

/* Said per process too: its split of accesses between names is suspect. */
static __always_inline void count_tz_changed(__u32 tgid)
{
	struct proc *p = bpf_map_lookup_elem(&procs, &tgid);

	count_loss(LOSS_TZ_PATH_CHANGED);
	if (p)
		__sync_fetch_and_add(&p->tz_changed, 1);
}

#define PATH_SEEN_READ	1ULL	/* it could be read at entry */
#define PATH_SEEN_TZ	2ULL	/* and it named a tz file */

/*
 * A path the kernel copies after entry and we read at exit: another
 * thread may rewrite it in between.  What it was at entry: its digest with
 * the two flags above in the low bits, 0 when it could not be read.
 */
/*
 * The path at uptr, zero-padded, in the per-CPU scratch key: *n is what
 * bpf_probe_read_user_str() returned.  NULL without scratch.
 */
static __always_inline struct tz_path_key *read_path(__u64 uptr, long *n)
{
	struct tz_path_key *key;
	__u32 zero_idx = 0;

	key = bpf_map_lookup_elem(&path_scratch, &zero_idx);
	if (!key)
		return NULL;
	__builtin_memset(key, 0, sizeof(*key));
	*n = bpf_probe_read_user_str(key->path, sizeof(key->path),
				     (const void *)uptr);
	return key;
}

/*
 * Not zero-padded: the digest and the tz matches stop at the string's
 * NUL, and this is on the path of every stat and open the process makes.
 */
__noinline __u64 read_path_at_entry(__u32 tgid, __u64 uptr)
{
	struct tz_path_key *key;
	__u32 zero_idx = 0;
	__u64 seen;
	long n;

	key = bpf_map_lookup_elem(&path_scratch, &zero_idx);
	if (!key)
		return 0;
	n = bpf_probe_read_user_str(key->path, sizeof(key->path),
				    (const void *)uptr);
	if (n < 0)
		return 0;
	seen = (path_digest(key->path, n) & ~3ULL) | PATH_SEEN_READ;
	if (is_tz_path(tgid, key->path))
		seen |= PATH_SEEN_TZ;
	return seen;
}

/* What record_tz_path() did, besides a tz_files index. */
#define TZ_PATH_NONE	-2	/* not a tz file, or a loss: count nothing */
#define TZ_PATH_MAPPED	-1	/* counted in tz_paths */

/* The tz_files index of a path, -1 when it is none of them. */
static __always_inline int tz_file_of(const char *path)
{
	if (TZ_MATCH_LIT(path, TZ_FILE_LOCALTIME_PATH, 1))
		return TZ_FILE_LOCALTIME;
	if (TZ_MATCH_LIT(path, TZ_FILE_TIMEZONE_PATH, 1))
		return TZ_FILE_TIMEZONE;
	return -1;
}

/* Count one access in tz_paths; key holds the path, zero-padded. */
static __always_inline void count_tz_path(struct tz_path_key *key, __u32 tgid,
					  __u32 kind, int err)
{
	static const struct tz_path_count zero;
	struct tz_path_count *c;

	key->tgid = tgid;
	key->kind = kind;
	c = lookup_or_init(&tz_paths, key, &zero, LOSS_PATH_MAP_FULL);
	if (c) {
		__sync_fetch_and_add(&c->count, 1);
		if (err)
			__sync_fetch_and_add(&c->errors, 1);
	}
}

/*
 * Read the path a syscall was given and, if it names a tz file, count it
 * under its path, or return its tz_files index for the caller to count
 * it in the kind_stats it updates anyway.  A tz path that was not the
 * same at entry and at exit is a loss: the kernel may have used either (a
 * change and a change back in between cannot be seen).
 */
__noinline int record_tz_path(__u32 tgid, __u32 kind, __u64 uptr, int err,
			      __u64 seen)
{
	struct tz_path_key *key;
	int file;
	long n;

	key = read_path(uptr, &n);
	if (!key)
		return TZ_PATH_NONE;
	if (n < 0) {
		/* NULL or bad pointers fail with EFAULT in the syscall too. */
		if (!err)
			count_loss(LOSS_PATH_UNREADABLE);
		return TZ_PATH_NONE;
	}
	/* The two files are tz files: no second look at those. */
	file = tz_file_of(key->path);
	if (file < 0 && !is_tz_path(tgid, key->path)) {
		if ((seen & PATH_SEEN_TZ) &&
		    (seen & ~3ULL) != (path_digest(key->path, n) & ~3ULL))
			count_tz_changed(tgid);
		return TZ_PATH_NONE;
	}
	/*
	 * Not resident at entry (a forked child's first touch of its
	 * read-only data): nothing to compare with.  Alone, the process can
	 * only have changed it itself; with other threads, it is a loss.
	 */
	if (!(seen & PATH_SEEN_READ) && !single_threaded()) {
		count_loss(LOSS_PATH_UNREADABLE);
		return TZ_PATH_NONE;
	}
	if ((seen & PATH_SEEN_READ) &&
	    (seen & ~3ULL) != (path_digest(key->path, n) & ~3ULL)) {
		count_tz_changed(tgid);
		return TZ_PATH_NONE;
	}
	/* 127 bytes or more: a cut path would merge with another. */
	if (n >= TZ_PATH_LEN) {
		count_loss(LOSS_TZ_PATH_UNWATCHED);
		return TZ_PATH_NONE;
	}
	if (file >= 0)
		return file;
	count_tz_path(key, tgid, kind, err);
	return TZ_PATH_MAPPED;
}

/* A tz_files access whose kind_stats could not be made: count it in tz_paths. */
__noinline int record_tz_file(__u32 tgid, __u32 kind, int file, int err)
{
	struct tz_path_key *key;
	__u32 zero_idx = 0;

	key = bpf_map_lookup_elem(&path_scratch, &zero_idx);
	if (!key)
		return 0;
	__builtin_memset(key, 0, sizeof(*key));
	if (file == TZ_FILE_LOCALTIME)
		__builtin_memcpy(key->path, TZ_FILE_LOCALTIME_PATH,
				 sizeof(TZ_FILE_LOCALTIME_PATH));
	else
		__builtin_memcpy(key->path, TZ_FILE_TIMEZONE_PATH,
				 sizeof(TZ_FILE_TIMEZONE_PATH));
	count_tz_path(key, tgid, kind, err);
	return 0;
}

static __always_inline struct thread_state *thread_state_by_tid(bool create)
{
	static const struct thread_state fresh;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct thread_state *ts = bpf_map_lookup_elem(&thread_states, &tid);

	if (ts || !create)
		return ts;
	bpf_map_update_elem(&thread_states, &tid, &fresh, BPF_NOEXIST);
	return bpf_map_lookup_elem(&thread_states, &tid);
}

static __always_inline struct thread_state *thread_state(bool create)
{
	if (!has_task_storage)
		return thread_state_by_tid(create);
	return bpf_task_storage_get(&thread_states, bpf_get_current_task_btf(),
				    0, create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
}

/* Thread ids are reused: the hash map forgets each thread at its exit. */
static __always_inline void forget_thread(struct task_struct *p)
{
	__u32 tid = p->pid;

	if (!has_task_storage)
		bpf_map_delete_elem(&thread_states, &tid);
}

#include "lang.bpf.h"
#include "stacks.bpf.h"

/*
 * A counted syscall begins: shared by the raw tracepoint, which sees every
 * syscall, and the fentry programs (fentry.bpf.h), which see only theirs.
 */
static __always_inline int on_sys_enter(struct pt_regs *regs, long nr)
{
	struct thread_state *ts;
	int kind = syscall_kind(nr);
	__u32 tgid;

	/* From the raw tracepoint every syscall on the machine comes here:
	 * no helper call until the switch has said this one matters. */
	if (kind < 0 || compat_syscall(has_task_storage))
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	if (!is_traced(tgid))
		return 0;
	ts = thread_state(true);
	if (!ts) {
		count_loss(LOSS_THREAD_STATE);
		return 0;
	}
	ts->sys_nr = nr;
	if (kind >= KIND_FIRST_TZ && !path_arg_first(nr))
		ts->sys_arg = SYSCALL_ARG1(regs);
	else
		ts->sys_arg = SYSCALL_ARG0(regs);
	if (kind >= KIND_FIRST_TZ)
		ts->path_seen = read_path_at_entry(tgid, ts->sys_arg);
	ts->sys_start_ns = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	return on_sys_enter(regs, nr);
}

static __always_inline void attribute_to_libc(struct thread_state *ts,
					      __u32 tgid, __u32 kind, __u64 ns);
__noinline int libc_attribute(__u32 tgid, __u32 fn, __u32 kind, __u64 ns);

static __always_inline int on_sys_exit(struct pt_regs *regs, long ret, bool cas)
{
	long nr = SYSCALL_NR(regs);
	struct thread_state *ts;
	int kind = syscall_kind(nr);
	int slot = -1, counted;
	__u32 tgid;
	__u64 ns;

	if (kind < 0)
		return 0;
	ts = thread_state(false);
	if (!ts || ts->sys_nr != nr)
		return 0;
	tgid = bpf_get_current_pid_tgid() >> 32;
	ts->sys_nr = -1;
	ns = bpf_ktime_get_ns() - ts->sys_start_ns;
	if (kind >= KIND_FIRST_TZ) {
		slot = record_tz_path(tgid, kind, ts->sys_arg, ret < 0,
				      ts->path_seen);
		if (slot == TZ_PATH_NONE)
			return 0;
	} else if (kind == KIND_CLOCK_GETTIME) {
		slot = clock_id_slot((__s32)ts->sys_arg);
	}
	if (cas)
		counted = record_latency(tgid, kind, ns, ret < 0, slot);
	else
		counted = record_latency_nocas(tgid, kind, ns, ret < 0, slot);
	/* No slot, or no kind_stats: the maps for all the others. */
	if (!counted && kind == KIND_CLOCK_GETTIME)
		record_clockid(tgid, (__s32)ts->sys_arg);
	else if (!counted && slot >= 0)
		record_tz_file(tgid, kind, slot, ret < 0);
	if (ts->libc_fn)
		attribute_to_libc(ts, tgid, kind, ns);
	if (lang_enabled)
		lang_attribute(tgid, kind, ts->libc_fn);
	stack_sample(regs, tgid, kind);
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	return on_sys_exit(regs, ret, true);
}

/* Loaded instead of sys_exit where the kernel has no compare-and-swap. */
SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit_nocas, struct pt_regs *regs, long ret)
{
	return on_sys_exit(regs, ret, false);
}

/*
 * The task arguments of the sched tracepoints are typed (BTF): their fields
 * are read directly, without a helper call each.  Only an index the
 * verifier cannot bound goes through BPF_CORE_READ.
 */

/* The pid the process has in its own (innermost) pid namespace. */
static __always_inline __u32 ns_pid(struct task_struct *task)
{
	struct pid *pid = task->thread_pid;

	return BPF_CORE_READ(pid, numbers[pid->level].nr);
}

/* comm and ts_ns when the caller has them already, else NULL and 0. */
static __always_inline void fill_event(struct event *e, __u32 type,
				       struct task_struct *task, __u32 ppid,
				       __s32 status, const char *comm, __u64 ts_ns)
{
	e->type = type;
	e->pid = task->tgid;
	e->ppid = ppid;
	e->exit_status = status;
	e->ts_ns = ts_ns ? ts_ns : bpf_ktime_get_ns();
	if (comm)
		__builtin_memcpy(e->comm, comm, COMM_LEN);
	else
		__builtin_memcpy(e->comm, task->comm, COMM_LEN);
	e->nspid = ns_pid(task);
	e->pad = 0;
	/* A fork's parent and child share it; exec and exit: the task. */
	e->cgroup_id = bpf_get_current_cgroup_id();
}

/* 0: the kernel wakes the reader if it had read all before this notice. */
static __always_inline __u64 wake_flags(void)
{
	if (!lazy_wakeup)
		return 0;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wake_avail_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void emit(__u32 type, struct task_struct *task,
				 __u32 ppid, __s32 status, const char *comm,
				 __u64 ts_ns)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_loss(LOSS_RINGBUF_FULL);
		return;
	}
	fill_event(e, type, task, ppid, status, comm, ts_ns);
	bpf_ringbuf_submit(e, wake_flags());
}

static __always_inline struct env_scratch *env_scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&env_scratch, &zero);
}

static __always_inline void emit_exec(struct task_struct *task, __u32 ppid,
				      struct linux_binprm *bprm)
{
	struct exec_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	struct env_scratch *s = env_scratch_get();

	if (!e) {
		count_loss(LOSS_RINGBUF_FULL);
		return;
	}
	if (s) {
		e->env = s->env;
	} else {
		e->env.tz_state = ENV_SEEN_UNREAD;
		e->env.tzdir_state = ENV_SEEN_UNREAD;
	}
	fill_event(&e->base, EVENT_EXEC, task, ppid, 0, NULL, 0);
	/* "/proc/self/exe" or a relative path says little alone. */
	bpf_probe_read_kernel_str(e->exe, sizeof(e->exe), bprm->filename);
	bpf_probe_read_kernel_str(e->exe_name, sizeof(e->exe_name),
				  bprm->file->f_path.dentry->d_name.name);
	bpf_ringbuf_submit(e, wake_flags());
}

/*
 * Most processes have no tz file of their own: a lookup, lock-free, is
 * cheaper than the delete it spares (that takes the bucket's lock).
 */
static __always_inline void forget_tz(__u32 tgid)
{
	if (bpf_map_lookup_elem(&proc_tz, &tgid))
		bpf_map_delete_elem(&proc_tz, &tgid);
}

/*
 * The first TZ or TZDIR, as getenv() would return it: val is len bytes
 * of an entry, followed by its NUL.  Copied with its NUL only: the rest of
 * dst stays zero (read_exec_env() clears it).
 */
static __always_inline void note_env_value(__u8 *state, __u16 *vlen,
					   char *dst, const char *val, long len)
{
	if (*state != ENV_SEEN_UNSET)
		return;
	if (len < 0 || len >= ENV_VALUE_LEN) {
		*state = ENV_SEEN_UNREAD;
		return;
	}
	bpf_probe_read_kernel(dst, len + 1, val);
	*vlen = len;
	*state = ENV_SEEN_SET;
}

/*
 * "TZ=:/file", "TZ=/file" or "TZDIR=/dir", n bytes with the NUL (at most
 * ENV_ENTRY_LEN: a longer entry is cut there), e in s->block: the first
 * of each is what getenv() returns.  A name like "UTC" or "Europe/Paris"
 * is found under the built-in directories anyway.
 */
static __always_inline void note_tz_entry(struct env_scratch *s, const char *e,
					  long n)
{
	struct tz_user_path *u;
	__u32 off;
	long len;

	if (e[0] != 'T' || e[1] != 'Z')
		return;
	if (e[2] == '=') {
		note_env_value(&s->env.tz_state, &s->env.tz_len, s->env.tz,
			       e + 3, n - 4);
		u = &s->tz.file;
		off = e[3] == ':' ? 4 : 3;
	} else if (e[2] == 'D' && e[3] == 'I' && e[4] == 'R' && e[5] == '=') {
		note_env_value(&s->env.tzdir_state, &s->env.tzdir_len,
			       s->env.tzdir, e + 6, n - 7);
		u = &s->tz.dir;
		off = 6;
	} else {
		return;
	}
	if (u->len || e[off] != '/')
		return;
	len = n - 1 - off;
	/* A path read at an access is cut at TZ_PATH_LEN - 1 bytes. */
	if (len <= 0 || len >= TZ_PATH_LEN - 1) {
		count_loss(LOSS_TZ_PATH_UNWATCHED);
		return;
	}
	bpf_probe_read_kernel(u->path, len, e + off);
	u->exact = u == &s->tz.file;
	u->len = len;
}

/*
 * One environment entry of the copy: 1 when the copy cannot say more.
 * The entry must start where the one before it ended (the first at
 * env_start) and end with a NUL, the last at env_end: the kernel counted
 * envc strings to find env_end, so entries that chain this way are those
 * strings, whatever a hostile loader or a 32-bit layout put in envp.
 * An entry past the copy or longer than the walk reads at once is left to
 * the walk, and so is everything after it.
 */
static __always_inline int env_copy_entry(struct env_scratch *s)
{
	struct env_copy *c = &s->copy;
	__u64 i = c->next, off = c->off, end, *envp;
	const char *e;

	if (i >= c->count || !s->walk.left)
		return 1;
	/* count <= ENV_ENTRIES_MAX, a power of 2: the mask tells the verifier. */
	barrier_var(i);
	envp = &s->envp[i & (ENV_ENTRIES_MAX - 1)];
	if (envp[0] != c->base + off)
		return 1;
	end = i + 1 < c->envc ? envp[1] - c->base : c->size;
	if (end <= off || end > c->copied || end - off > ENV_ENTRY_LEN)
		return 1;
	/* Known above, told again to the verifier. */
	barrier_var(end);
	if (end > ENV_BLOCK_LEN || off >= ENV_BLOCK_LEN)
		return 1;
	if (s->block[end - 1])
		return 1;
	e = s->block + off;
	if (e[0] == 'T')
		note_tz_entry(s, e, end - off);
	c->next = i + 1;
	c->off = end;
	s->walk.ptr = c->base + end;
	s->walk.left--;
	return 0;
}

#define ENV_COPY_STEP	16

/*
 * ENV_COPY_STEP entries per call; 1 when the copy is done with.  Global,
 * so that the verifier checks it once.
 */
__noinline int env_copy_entries(void)
{
	struct env_scratch *s = env_scratch_get();

	if (!s)
		return 1;
	for (int k = 0; k < ENV_COPY_STEP; k++)
		if (env_copy_entry(s))
			return 1;
	return 0;
}

/*
 * Copy the environment block and its envp (after argc, argv and a NULL
 * at start_stack, as the ELF loader lays them out) into s.  false when
 * there is nothing the copy can be used for.
 */
static __always_inline bool copy_env(struct env_scratch *s,
				     struct task_struct *p,
				     struct linux_binprm *bprm)
{
	struct mm_struct *mm = p->mm;
	struct env_copy *c = &s->copy;
	__u64 stack = mm->start_stack, copied, envp_bytes;
	int argc = bprm->argc, envc = bprm->envc;

	if (envc <= 0 || argc < 0)
		return false;
	c->base = s->walk.ptr;
	c->size = s->walk.end - s->walk.ptr;
	c->envc = envc;
	c->count = envc < ENV_ENTRIES_MAX ? envc : ENV_ENTRIES_MAX;
	c->next = 0;
	c->off = 0;
	copied = c->size < ENV_BLOCK_LEN ? c->size : ENV_BLOCK_LEN;
	barrier_var(copied);
	if (!copied || copied > ENV_BLOCK_LEN)
		return false;
	c->copied = copied;
	if (bpf_probe_read_user(s->block, copied, (const void *)c->base))
		return false;
	/* envp[count]: the end of the last entry copied (or the NULL). */
	envp_bytes = ((__u64)c->count + 1) * sizeof(__u64);
	barrier_var(envp_bytes);
	if (envp_bytes > sizeof(s->envp))
		return false;
	return !bpf_probe_read_user(s->envp, envp_bytes,
			(const void *)(stack + ((__u64)argc + 2) * sizeof(__u64)));
}

/*
 * One environment entry per call, read from the process; 1 when the walk
 * is over.  Global, so the verifier checks it once, whether bpf_loop or a
 * bounded loop calls it.
 */
__noinline int env_entry(void)
{
	struct env_scratch *s = env_scratch_get();
	struct env_walk *w;
	long n;

	if (!s)
		return 1;
	w = &s->walk;
	if (w->ptr >= w->end || !w->left)
		return 1;
	w->left--;
	n = bpf_probe_read_user_str(s->block, ENV_ENTRY_LEN,
				    (const void *)w->ptr);
	if (n <= 0)
		return 1;
	if (!w->cont)
		note_tz_entry(s, s->block, n);
	w->cont = n == ENV_ENTRY_LEN;
	w->ptr += w->cont ? n - 1 : n;
	return 0;
}

static long env_entry_cb(__u32 i, void *data)
{
	/* The verifier wants 0 or 1 and knows nothing of a global's result. */
	return env_entry() ? 1 : 0;
}

/*
 * Both walk ENV_ENTRIES_MAX entries at most: the bounded loop costs the
 * verifier a few instructions per turn, since the step is verified once.
 * Not a rodata switch: a kernel without bpf_loop also refuses the
 * callback's address, even in code that never runs.
 */
static __always_inline void walk_env(bool loop_helper)
{
	if (loop_helper) {
		bpf_loop(ENV_ENTRIES_MAX, env_entry_cb, NULL, 0);
		return;
	}
	for (int i = 0; i < ENV_ENTRIES_MAX; i++)
		if (env_entry())
			break;
}

/*
 * At exec the new environment was just copied onto the new stack: it is
 * resident, and it is read before the program runs a single instruction.
 * Entries are looked at in one copy of it first; the walk, one helper
 * call per entry, reads what the copy could not hold.  Either way
 * ENV_ENTRIES_MAX entries at most.
 */
static __always_inline void read_exec_env(struct task_struct *p, __u32 tgid,
					  struct linux_binprm *bprm,
					  bool loop_helper)
{
	struct env_scratch *s = env_scratch_get();

	if (!s)
		return;
	__builtin_memset(&s->tz, 0, sizeof(s->tz));
	__builtin_memset(&s->env, 0, sizeof(s->env));
	s->walk.ptr = p->mm->env_start;
	s->walk.end = p->mm->env_end;
	s->walk.left = ENV_ENTRIES_MAX;
	s->walk.cont = false;
	if (copy_env(s, p, bprm))
		for (int i = 0; i < ENV_ENTRIES_MAX / ENV_COPY_STEP; i++)
			if (env_copy_entries())
				break;
	if (s->walk.ptr < s->walk.end)
		walk_env(loop_helper);
	if (s->walk.ptr < s->walk.end) {
		count_loss(LOSS_TZ_PATH_UNWATCHED);
		/* Not seen is not unset: it may lie in what was not read. */
		if (s->env.tz_state == ENV_SEEN_UNSET)
			s->env.tz_state = ENV_SEEN_UNREAD;
		if (s->env.tzdir_state == ENV_SEEN_UNSET)
			s->env.tzdir_state = ENV_SEEN_UNREAD;
	}
	if (!s->tz.file.len && !s->tz.dir.len)
		forget_tz(tgid);
	else if (bpf_map_update_elem(&proc_tz, &tgid, &s->tz, BPF_ANY))
		count_loss(LOSS_TZ_PATH_UNWATCHED);
}

/*
 * fork copies the environment: the child's tz files are the parent's.
 * A child of a parent without any has none: forget_tz() removed what an
 * earlier process of the same tgid had, at its exit.
 */
static __always_inline void inherit_tz(__u32 ptgid, __u32 ctgid)
{
	struct proc_tz *pt = bpf_map_lookup_elem(&proc_tz, &ptgid);

	if (pt && bpf_map_update_elem(&proc_tz, &ctgid, pt, BPF_ANY))
		count_loss(LOSS_TZ_PATH_UNWATCHED);
}

/*
 * One update in the common case, no lookup first.  The old counters of a
 * reused tgid are keyed by the same tgid: say they now merge.
 */
static __always_inline bool add_forked(__u32 tgid, const struct proc *np)
{
	long err = bpf_map_update_elem(&procs, &tgid, np, BPF_NOEXIST);

	if (err == -EEXIST) {
		count_loss(LOSS_PID_REUSED);
		err = bpf_map_update_elem(&procs, &tgid, np, BPF_ANY);
	}
	if (err) {
		count_loss(LOSS_PROC_MAP_FULL);
		return false;
	}
	return true;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct proc *pp, np = {};

	/* Threads count toward their process: only new processes matter. */
	if (child->pid != ctgid || trace_all)
		return 0;
	pp = bpf_map_lookup_elem(&procs, &ptgid);
	if (pp && (pp->flags & PROC_EXITED))
		return 0;
	/* An untraced parent in a target cgroup: its child is a target. */
	if (!pp && !in_target_cgroup())
		return 0;
	np.ppid = ptgid;
	np.depth = pp ? pp->depth + 1 : 0;
	np.flags = pp ? 0 : PROC_ROOT;
	np.start_ns = bpf_ktime_get_ns();
	__builtin_memcpy(np.comm, child->comm, COMM_LEN);
	if (!add_forked(ctgid, &np))
		return 0;
	inherit_tz(ptgid, ctgid);
	emit(EVENT_FORK, child, ptgid, 0, np.comm, np.start_ns);
	return 0;
}

static __always_inline bool is_target_comm(struct task_struct *p)
{
	char comm[COMM_LEN];

	if (!target_comm[0])
		return false;
	BPF_CORE_READ_STR_INTO(&comm, p, comm);
	for (int i = 0; i < COMM_LEN; i++) {
		if (comm[i] != target_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* A new target: one that took the --comm name by exec after we started. */
static __always_inline struct proc *add_comm_target(struct task_struct *p,
						    __u32 tgid)
{
	struct proc np = {
		.ppid = BPF_CORE_READ(p, real_parent, tgid),
		.flags = PROC_ROOT,
		.start_ns = bpf_ktime_get_ns(),
	};

	if (bpf_map_update_elem(&procs, &tgid, &np, BPF_NOEXIST)) {
		count_loss(LOSS_PROC_MAP_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&procs, &tgid);
}

static __always_inline int on_exec(struct task_struct *p,
				   struct linux_binprm *bprm, bool loop_helper)
{
	__u32 tgid = p->tgid;
	struct proc *proc = bpf_map_lookup_elem(&procs, &tgid);

	if (!proc && !trace_all && (is_target_comm(p) || in_target_cgroup()))
		proc = add_comm_target(p, tgid);
	if (!proc || (proc->flags & PROC_EXITED))
		return 0;
	proc->flags |= PROC_EXECED;
	lang_exec(tgid);
	__builtin_memcpy(proc->comm, p->comm, COMM_LEN);
	read_exec_env(p, tgid, bprm, loop_helper);
	emit_exec(p, proc->ppid, bprm);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return on_exec(p, bprm, true);
}

/* Loaded instead of sched_exec where the kernel has no bpf_loop. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec_bounded, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return on_exec(p, bprm, false);
}

/*
 * The CPU time of the whole process as its last thread exits: threads
 * already released are summed in signal, a group leader that exited first
 * is a zombie not yet summed, and this thread is still running.  A thread
 * that exited a moment ago may not have been released yet and is missed:
 * run --compare times single-threaded workers, where that cannot happen.
 */
static __always_inline __u64 process_cpu_ns(struct task_struct *p)
{
	struct task_struct *leader = p->group_leader;
	__u64 ns = p->signal->sum_sched_runtime + p->se.sum_exec_runtime;

	if (leader != p)
		ns += leader->se.sum_exec_runtime;
	return ns;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct proc *proc;
	__s32 status;

	lang_thread_exit(p->pid);
	forget_thread(p);
	/* The process ends with its last thread. */
	if (p->signal->live.counter != 0)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc || (proc->flags & PROC_EXITED))
		return 0;
	status = p->exit_code;
	/* The name it ends with (prctl may have changed it), as ps shows it. */
	__builtin_memcpy(proc->comm, p->group_leader->comm, COMM_LEN);
	proc->exit_status = status;
	proc->exit_ns = bpf_ktime_get_ns();
	proc->cpu_ns = process_cpu_ns(p);
	proc->flags |= PROC_EXITED;
	forget_tz(tgid);
	emit(EVENT_EXIT, p, proc->ppid, status, NULL, proc->exit_ns);
	return 0;
}

#include "libc.bpf.h"
#include "fentry.bpf.h"
#include "vdso.bpf.h"
