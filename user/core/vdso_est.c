// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "vdso_est.h"

static const char *const fn_names[VDSO_FN_MAX] = {
	[VDSO_FN_CLOCK_GETTIME] = "clock_gettime",
	[VDSO_FN_GETTIMEOFDAY] = "gettimeofday",
	[VDSO_FN_TIME] = "time",
	[VDSO_FN_CLOCK_GETRES] = "clock_getres",
	[VDSO_FN_OTHER] = "other",
};

const char *vdso_fn_name(enum vdso_fn f)
{
	return f < VDSO_FN_MAX ? fn_names[f] : "?";
}

uint64_t vdso_samples_in(const struct vdso_samples *s)
{
	uint64_t n = 0;

	for (int f = 0; f < VDSO_FN_MAX; f++)
		n += s->fn[f];
	return n;
}

struct interval wilson_share(uint64_t k, uint64_t n, double z)
{
	struct interval r = { 0, 0, 0 };
	double p, z2n, centre, half;

	if (!n)
		return r;
	p = (double)k / n;
	z2n = z * z / n;
	centre = (p + z2n / 2) / (1 + z2n);
	half = z * sqrt(p * (1 - p) / n + z2n / (4.0 * n)) / (1 + z2n);
	r.estimate = p;
	r.low = centre - half > 0 ? centre - half : 0;
	r.high = centre + half < 1 ? centre + half : 1;
	return r;
}

static struct interval scaled(struct interval share, double by)
{
	struct interval r = {
		share.estimate * by, share.low * by, share.high * by,
	};

	return r;
}

/*
 * The vDSO's exported functions share unnamed helpers (the clocksource
 * read): samples there belong to the functions that call them, shared out
 * in proportion to their own samples.  time() and clock_getres() are
 * whole in their symbols.
 */
static void attribute_helpers(const struct vdso_samples *s, uint64_t fn[])
{
	uint64_t cg = s->fn[VDSO_FN_CLOCK_GETTIME];
	uint64_t gtod = s->fn[VDSO_FN_GETTIMEOFDAY];
	uint64_t other = s->fn[VDSO_FN_OTHER], to_cg;

	memcpy(fn, s->fn, sizeof(s->fn));
	if (!cg && !gtod)
		return;
	to_cg = (uint64_t)((double)other * cg / (cg + gtod) + 0.5);
	fn[VDSO_FN_CLOCK_GETTIME] += to_cg;
	fn[VDSO_FN_GETTIMEOFDAY] += other - to_cg;
	fn[VDSO_FN_OTHER] = 0;
}

/*
 * Each function's calls from its own samples' Wilson interval, over its
 * cost's range (low time over high cost, high time over low cost); the total's
 * bounds add the functions' half-widths in quadrature (independent
 * errors, a normal approximation).  A function never sampled adds nothing.
 */
void vdso_estimate(const struct vdso_samples *s, double period_ns,
		   const struct vdso_cost cost[VDSO_FN_MAX],
		   struct vdso_estimate *e)
{
	double cpu_ns = (double)s->total * period_ns, below = 0, above = 0;
	uint64_t fn[VDSO_FN_MAX];

	e->samples = vdso_samples_in(s);
	e->time_ns = scaled(wilson_share(e->samples, s->total, VDSO_Z), cpu_ns);
	e->calls = (struct interval){ 0, 0, 0 };
	attribute_helpers(s, fn);
	for (int f = 0; f < VDSO_FN_MAX; f++) {
		struct interval c, t;

		e->fn_calls[f] = (struct interval){ 0, 0, 0 };
		if (cost[f].median <= 0 || !fn[f])
			continue;
		t = scaled(wilson_share(fn[f], s->total, VDSO_Z), cpu_ns);
		c.estimate = t.estimate / cost[f].median;
		c.low = t.low / cost[f].high;
		c.high = t.high / cost[f].low;
		e->fn_calls[f] = c;
		e->calls.estimate += c.estimate;
		below += (c.estimate - c.low) * (c.estimate - c.low);
		above += (c.high - c.estimate) * (c.high - c.estimate);
	}
	e->calls.low = e->calls.estimate - sqrt(below);
	e->calls.high = e->calls.estimate + sqrt(above);
	if (e->calls.low < 0)
		e->calls.low = 0;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

struct vdso_cost vdso_cost_of(double *trials, unsigned int n)
{
	struct vdso_cost c = { 0, 0, 0 };

	if (!n)
		return c;
	qsort(trials, n, sizeof(*trials), cmp_double);
	/* Below VDSO_COST_MIN_NS the loop's own cost swamps it: unknown. */
	if (trials[n / 2] < VDSO_COST_MIN_NS)
		return c;
	c.median = trials[n / 2];
	c.low = trials[n / 10];
	c.high = trials[n - 1 - n / 10];
	return c;
}
