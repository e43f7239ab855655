/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The path of a counted syscall from entry to exit, inline in the
 * programs of both attach modes: the raw syscall tracepoints
 * (syscalls.bpf.c), which see every syscall, and the fentry/fexit
 * programs (fentry.bpf.c), which see only theirs.  The record_* and
 * read_path_at_entry() global functions it calls are in syscalls.bpf.c.
 */
#ifndef CLOCKTRACE_SYSCALL_EVENT_BPF_H
#define CLOCKTRACE_SYSCALL_EVENT_BPF_H

#include "shared.bpf.h"
#include "targets.bpf.h"
#include "syscalls.bpf.h"
#include "libc.bpf.h"
#include "stacks.bpf.h"

/* What record_tz_path() did, besides a tz_files index. */
#define TZ_PATH_NONE	-2	/* not a tz file, or a loss: count nothing */
#define TZ_PATH_MAPPED	-1	/* counted in tz_paths */

int record_latency(__u32 tgid, __u32 kind, __u64 ns, int err, int slot);
int record_latency_nocas(__u32 tgid, __u32 kind, __u64 ns, int err, int slot);
int record_clockid(__u32 tgid, __s32 clk);
__u64 read_path_at_entry(__u32 tgid, __u64 uptr);
int record_tz_path(__u32 tgid, __u32 kind, __u64 uptr, int err, __u64 seen);
int record_tz_file(__u32 tgid, __u32 kind, int file, int err);

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


/*
 * A counted syscall begins: shared by the raw tracepoint, which sees every
 * syscall, and the fentry programs (fentry.bpf.c), which see only theirs.
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

static __always_inline int on_sys_exit(struct pt_regs *regs, long ret, bool cas)
{
	long nr = SYSCALL_NR(regs);
	struct thread_state *ts;
	int kind = syscall_kind(nr);
	int slot = -1, counted;
	bool lang_noted;
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
	/* After the counts: the stack copy takes the script site it left. */
	lang_noted = lang_enabled && lang_attribute(tgid, kind, ts->libc_fn);
	stack_sample(regs, tgid, kind, lang_noted);
	return 0;
}

#endif /* CLOCKTRACE_SYSCALL_EVENT_BPF_H */
