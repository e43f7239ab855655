/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One latency: count, errors, total, log2 histogram (bits.bpf.h), minimum
 * and maximum, updated by any CPU at any time without a lock.  The syscall
 * kinds (syscalls.bpf.c) and the timed libc functions (libc.bpf.c) keep
 * theirs this way.
 */
#ifndef CLOCKTRACE_LATENCY_BPF_H
#define CLOCKTRACE_LATENCY_BPF_H

#include "shared.bpf.h"
#include "bits.bpf.h"

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

#endif /* CLOCKTRACE_LATENCY_BPF_H */
