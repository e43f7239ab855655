/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --vdso: what the samples say.  Time in the vDSO is samples x period;
 * its share of the process's samples gets a Wilson score interval, scaled
 * by the process's sampled CPU time; calls are that time over each
 * function's cost per call, measured on this machine at start and at the
 * end, whose own error widens the calls' interval.
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
#define VDSO_RATE_DEFAULT	299
#define VDSO_RATE_MAX		20000
/* Two-sided 95% normal quantile of the Wilson interval. */
#define VDSO_Z			1.959964

struct vdso_samples {
	uint64_t total;			/* every sample of the process */
	uint64_t fn[VDSO_FN_MAX];	/* those in the vDSO, per function */
};

/*
 * ns a call of one function spends inside the vDSO, from short timed
 * trials of calls into its entry (f) and of the same loop into an empty
 * function (e):
 * - the cost is the body, the median of f - e (each trial less the empty
 *   loop's beside it); the call and return of the empty loop (median(e))
 *   lie partly inside the vDSO (the return, the entry), partly outside
 *   (the call, the loop), and the sampler slows the traced calls more at
 *   a higher rate: give or take median(e)/2 (uniform: SD
 *   median(e)/2/sqrt(3));
 * - the machine's load moves the cost between clocktrace's trials and
 *   the traced program's calls about as much as it moves it over the
 *   trials: the SD of the medians of batches of VDSO_COST_BATCH
 *   consecutive trials (a median: one trial that a task switch
 *   interrupted is an outlier, not spread).  The trials come in order.
 * - what no trial of ours can see: the traced program's calls cost
 *   otherwise than clocktrace's (its caches, its neighbours), and the
 *   sampler slows them the more the higher its rate (each interrupt is a
 *   VM exit here).  Measured: the estimate / truth averaged -10% to +4%
 *   over six batches of 20 runs at 299 and 999 Hz under varying load
 *   (docs/performance.md): VDSO_COST_GAP, a relative SD.
 * rel_sd combines the three; low and high are the cost's 95% range.  time() is
 * a load or two: a body under VDSO_COST_MIN_NS is too little to tell
 * from the loop, so its calls are not estimated (cost 0).
 */
#define VDSO_COST_MIN_NS	1.0
#define VDSO_COST_BATCH		8
#define VDSO_COST_GAP		0.06
#define VDSO_COST_BATCHES_MAX	64
struct vdso_cost {
	double median;
	double low;
	double high;
	double rel_sd;
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
/* The cost from n trials of each, ns per call (sorts them). */
struct vdso_cost vdso_cost_of(double *f, double *e, unsigned int n);

#endif /* CLOCKTRACE_VDSO_EST_H */
