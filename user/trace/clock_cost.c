// SPDX-License-Identifier: GPL-2.0
/*
 * The per-read costs that price a read the vDSO could have served:
 * CLOCK_MONOTONIC by syscall(2) and through the C library (which tells
 * whether the vDSO serves it here), and CLOCK_MONOTONIC_COARSE both ways
 * (the vDSO always serves it: the difference is the kernel's entry and
 * exit alone).  The same reads as bench's rows, fewer and shorter trials.
 */
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "clock_cost.h"
#include "util.h"

#define COST_CALLS	200
#define COST_TRIALS	7

enum read_way { BY_SYSCALL, BY_LIBC };

static double trial_ns(clockid_t clk, enum read_way way)
{
	struct timespec ts;
	uint64_t t0 = now_ns();

	for (int i = 0; i < COST_CALLS; i++) {
		if (way == BY_SYSCALL)
			syscall(SYS_clock_gettime, clk, &ts);
		else
			clock_gettime(clk, &ts);
		__asm__ volatile("" ::: "memory");
	}
	return (double)(now_ns() - t0) / COST_CALLS;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* The median trial: a slice interrupted by another task moves it little. */
static double median_ns(clockid_t clk, enum read_way way)
{
	double t[COST_TRIALS];

	for (int i = 0; i < COST_TRIALS; i++)
		t[i] = trial_ns(clk, way);
	qsort(t, COST_TRIALS, sizeof(*t), cmp_double);
	return t[COST_TRIALS / 2];
}

void clock_cost_measure(struct clock_read_cost *c)
{
	c->syscall_ns = median_ns(CLOCK_MONOTONIC, BY_SYSCALL);
	c->libc_ns = median_ns(CLOCK_MONOTONIC, BY_LIBC);
	c->coarse_syscall_ns = median_ns(CLOCK_MONOTONIC_COARSE, BY_SYSCALL);
	/* Without a vDSO no clocksource would spare the syscall. */
	c->coarse_vdso_ns = vdso_mapped() ?
			    median_ns(CLOCK_MONOTONIC_COARSE, BY_LIBC) :
			    c->coarse_syscall_ns;
	c->known = true;
}
