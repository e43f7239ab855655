/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A kernel event made inside a probed libc function (--libc) is counted
 * under that function too: inline in the syscall exit path
 * (syscall_event.bpf.h); libc_attribute() is in libc.bpf.c.
 */
#ifndef CLOCKTRACE_LIBC_BPF_H
#define CLOCKTRACE_LIBC_BPF_H

#include "shared.bpf.h"

/* Entry-only functions: the next clock syscall of the thread is theirs. */
#define LIBC_PENDING_CLOCK	(1u << 31)
/* A libc clock_gettime enters the kernel (if at all) within microseconds. */
#define LIBC_PENDING_WINDOW_NS	50000

/*
 * An entry-only function has no return probe to close it: its syscall is
 * the thread's next clock_gettime of the same clock, soon after the entry.
 * Anything else ends the wait, so a vDSO-served call never takes the blame
 * for a later direct syscall.
 */
static __always_inline bool pending_clock_is_ours(struct thread_state *ts,
						  __u32 kind)
{
	bool ours = kind == KIND_CLOCK_GETTIME &&
		    (__s32)ts->sys_arg == ts->libc_clock &&
		    ts->sys_start_ns - ts->libc_start_ns < LIBC_PENDING_WINDOW_NS;

	ts->libc_fn = 0;
	return ours;
}

static __always_inline void attribute_to_libc(struct thread_state *ts,
					      __u32 tgid, __u32 kind, __u64 ns)
{
	__u32 fn = ts->libc_fn & ~LIBC_PENDING_CLOCK;

	if ((ts->libc_fn & LIBC_PENDING_CLOCK) &&
	    !pending_clock_is_ours(ts, kind))
		return;
	libc_attribute(tgid, fn, kind, ns);
}

#endif /* CLOCKTRACE_LIBC_BPF_H */
