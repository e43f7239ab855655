/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --vdso: what the samples say.  Time in the vDSO is samples x period;
 * its share of the process's samples gets a Wilson score interval, scaled
 * by the process's sampled CPU time; calls are that time over each
 * function's cost per call, measured on this machine at start.
 */
#ifndef CLOCKTRACE_VDSO_EST_H
#define CLOCKTRACE_VDSO_EST_H

#include <stdbool.h>
#include <stdint.h>

/* The vDSO's functions, by their name without __vdso_ / __kernel_. */
enum vdso_fn {
	VDSO_FN_CLOCK_GETTIME,
	VDSO_FN_GETTIMEOFDAY,
	VDSO_FN_TIME,
	VDSO_FN_CLOCK_GETRES,
	VDSO_FN_OTHER,		/* any other place in the image */
	VDSO_FN_MAX,
};

/* --vdso-rate default: not a divisor of the kernel's tick, as perf. */
#define VDSO_RATE_DEFAULT	999
#define VDSO_RATE_MAX		20000
/* Two-sided 95% normal quantile of the Wilson interval. */
#define VDSO_Z			1.959964

struct vdso_samples {
	uint64_t total;			/* every sample of the process */
	uint64_t fn[VDSO_FN_MAX];	/* those in the vDSO, per function */
};

/*
 * ns per call of one function inside the vDSO: the median of short timed
 * trials (less the same loop into an empty function), and the range of
 * their 10th to 90th percentiles (load changes it; the interval of calls
 * takes that in).  time() is a load or two: under VDSO_COST_MIN_NS, too
 * little to tell from the loop, so its calls are not estimated.
 */
#define VDSO_COST_MIN_NS	1.0
struct vdso_cost {
	double median;
	double low;
	double high;
};

struct interval {
	double estimate;
	double low;
	double high;
};

struct vdso_estimate {
	uint64_t samples;		/* in the vDSO */
	struct interval time_ns;
	struct interval calls;		/* of the functions with a cost */
	struct interval fn_calls[VDSO_FN_MAX];
};

const char *vdso_fn_name(enum vdso_fn f);
uint64_t vdso_samples_in(const struct vdso_samples *s);
/* Wilson score interval of k successes in n trials, as a share. */
struct interval wilson_share(uint64_t k, uint64_t n, double z);
/*
 * cost[f].median 0: unknown (no calls estimated for it).
 * period_ns: of the sampling event.
 */
void vdso_estimate(const struct vdso_samples *s, double period_ns,
		   const struct vdso_cost cost[VDSO_FN_MAX],
		   struct vdso_estimate *e);
/* The cost from n trials' ns per call (sorts them). */
struct vdso_cost vdso_cost_of(double *trials, unsigned int n);

#endif /* CLOCKTRACE_VDSO_EST_H */
