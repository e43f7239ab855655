/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_BITS_BPF_H
#define CLOCKTRACE_BITS_BPF_H

/*
 * Histogram slot of a latency in ns: slot 0 holds 0 and 1, slot i holds
 * [2^i, 2^(i+1)), the last slot everything above.  Same buckets as
 * bcc's log2 histograms, so the printed tables read the same.
 */
static __always_inline __u32 log2_slot(__u64 v)
{
	__u32 r = 0, shift;

	shift = (v > 0xFFFFFFFFULL) << 5; v >>= shift; r |= shift;
	shift = (v > 0xFFFF) << 4; v >>= shift; r |= shift;
	shift = (v > 0xFF) << 3; v >>= shift; r |= shift;
	shift = (v > 0xF) << 2; v >>= shift; r |= shift;
	shift = (v > 0x3) << 1; v >>= shift; r |= shift;
	r |= (v >> 1);
	return r < HIST_SLOTS ? r : HIST_SLOTS - 1;
}

#endif /* CLOCKTRACE_BITS_BPF_H */
