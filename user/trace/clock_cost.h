/* SPDX-License-Identifier: GPL-2.0 */
/* What a clock read costs here: by system call and through the vDSO. */
#ifndef CLOCKTRACE_CLOCK_COST_H
#define CLOCKTRACE_CLOCK_COST_H

#include "clocks.h"

/* Medians of short trials of each read: 2,800 syscalls, a few ms. */
void clock_cost_measure(struct clock_read_cost *c);

#endif /* CLOCKTRACE_CLOCK_COST_H */
