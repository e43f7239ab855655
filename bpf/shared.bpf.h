/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What more than one compile unit of bpf/ uses: the settings userspace
 * writes before load, the maps, the per-thread state and the helpers
 * every event path takes.  Declared here once; defined once, in
 * shared.bpf.c (which says CT_DEFINE_SHARED), and resolved by the BPF
 * linker (bpftool gen object) into one object and one skeleton.  A map
 * that one unit alone uses is defined in that unit.
 *
 * Runtime sizing, done by userspace before load: procs and proc_tz take
 * --max-procs (user/trace/tracer.c); thread_states becomes a hash map of
 * --max-procs x 4 threads (at least THREAD_MAP_MIN) where the kernel has
 * no task storage (user/trace/variant.c).
 */
#ifndef CLOCKTRACE_SHARED_BPF_H
#define CLOCKTRACE_SHARED_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "clocktrace.h"

#ifdef CT_DEFINE_SHARED
#define CT_SHARED
#define CT_SETTING(decl, init)	const volatile decl = init
#else
#define CT_SHARED		extern
#define CT_SETTING(decl, init)	extern const volatile decl
#endif

#define EEXIST	17	/* asm-generic/errno-base.h, on every architecture */

/* Set by userspace before load. */
CT_SETTING(bool trace_all, false);	/* top: every process */
CT_SETTING(__u32 self_tgid, 0);		/* never count ourselves */
/*
 * --cgroup/--unit: the target cgroup v2 is named by its level, its
 * parent's id and its name, not by its own id, so that a unit's cgroup
 * that systemd creates or re-creates after we started (restart) and the
 * cgroups made below it later are still the target.
 */
CT_SETTING(bool cgroup_targets, false);
CT_SETTING(__u32 target_cgroup_level, 0);
CT_SETTING(__u64 target_cgroup_parent, 0);
CT_SETTING(char target_cgroup_name[CGROUP_NAME_LEN], {});
/*
 * Linux >= 5.11: task storage and bpf_get_current_task_btf, probed by
 * userspace (user/trace/variant.c).  The verifier prunes the branch this
 * constant rules out, so an older kernel never sees a helper it does not
 * know.  Features whose mere presence an old kernel refuses
 * (compare-and-swap, a bpf_loop callback) are in separate programs
 * instead.
 */
CT_SETTING(bool has_task_storage, true);
/* --lang: the kernel events ask lang.bpf.c for the script frame. */
CT_SETTING(bool lang_enabled, false);
/* --stacks: the syscall exit copies the user stack (stacks.bpf.c). */
CT_SETTING(bool stacks_enabled, false);

CT_SHARED struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-procs */
	__type(key, __u32);
	__type(value, struct proc);
} procs SEC(".maps");

/* The TZ=:file and TZDIR of a process's own environment, if it has any. */
CT_SHARED struct {
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
CT_SHARED struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u64);
	__type(value, __u8);
} cgroup_verdicts SEC(".maps");

/* The name of the cgroup being judged: too big for the stack. */
CT_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[CGROUP_NAME_LEN]);
} cgroup_name_scratch SEC(".maps");

/* What could not be counted, by enum loss. */
CT_SHARED struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LOSS_MAX);
	__type(key, __u32);
	__type(value, __u64);
} losses SEC(".maps");

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
CT_SHARED struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct thread_state);
} thread_states SEC(".maps");

/*
 * --lang with --stacks: the script site of the event being handled, from
 * lang_attribute() to stack_copy() in the same sys_exit; tid says whose,
 * for another thread's event may run on this CPU in between.
 */
struct lang_event_slot {
	__u32 tid;
	__u32 pad;
	struct lang_site_key key;
};

CT_SHARED struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lang_event_slot);
} lang_event SEC(".maps");

/* tgid_kind's flag: lang_attribute() left the event's site in lang_event. */
#define STACK_KIND_LANG		(1u << 31)

/*
 * The global functions one unit calls in another: each is verified once,
 * on its own, whichever program calls it.
 */
/*
 * lang.bpf.c: the script frame of a kernel event (1: its site is in
 * lang_event, for the stack copy); an exec; a thread's end.
 */
int lang_attribute(__u32 tgid, __u32 kind, __u32 libc_fn);
int lang_exec(__u32 tgid);
int lang_thread_exit(__u32 tid);
/* libc.bpf.c: a kernel event made inside a probed libc function. */
int libc_attribute(__u32 tgid, __u32 fn, __u32 kind, __u64 ns);

static __always_inline void count_loss(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&losses, &why);

	if (n)
		__sync_fetch_and_add(n, 1);
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

#endif /* CLOCKTRACE_SHARED_BPF_H */
