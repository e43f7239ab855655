/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_HIST_H
#define CLOCKTRACE_HIST_H

#include <stdint.h>
#include <stdio.h>
#include <linux/types.h>

#include "clocktrace.h"

/* Bounds of log2 slot i, as the BPF side fills them: [lo, hi]. */
uint64_t hist_slot_lo(int slot);
uint64_t hist_slot_hi(int slot);
uint64_t hist_sum(const __u64 *slots, int n);

/*
 * The table bcc's libbpf-tools print, so it reads the same:
 *      nsecs               : count     distribution
 *       1024 -> 2047       : 182      |*****                 |
 */
void print_log2_hist(FILE *f, const __u64 *slots, int n, const char *unit);

/*
 * Adds one latency into a sum: counts and slots add, min and max span
 * both.  A sum with no count yet takes the other's min whatever it holds.
 */
void latency_add(struct latency *sum, const struct latency *l);

#endif /* CLOCKTRACE_HIST_H */
