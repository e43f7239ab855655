// SPDX-License-Identifier: GPL-2.0
/*
 * The counted syscalls, seen by the raw syscall tracepoints: latency and
 * count per process and kind, clock ids, time-zone paths.  The path of an
 * event is syscall_event.bpf.h; what is recorded, here.
 */
#include "shared.bpf.h"
#define TZ_INLINE static __always_inline
#include "tzpath.h"
#include "latency.bpf.h"
#include "syscall_event.bpf.h"

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

/* Scratch space: a tz_path_key is too large for the 512-byte stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct tz_path_key);
} path_scratch SEC(".maps");

static const struct kind_stats kind_stats_init = { .lat.min_ns = ~0ULL };

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

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	return on_sys_enter(regs, nr);
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
