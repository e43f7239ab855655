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
	/* Exactly 0 and 1 at the ends, whatever the rounding. */
	r.low = k && centre - half > 0 ? centre - half : 0;
	r.high = k < n && centre + half < 1 ? centre + half : 1;
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
	/*
	 * Nothing to share them by (a short run: the helper is most of the
	 * function): clock_gettime, the entry every clock goes through.
	 */
	if (!cg && !gtod)
		cg = 1;
	to_cg = (uint64_t)((double)other * cg / (cg + gtod) + 0.5);
	fn[VDSO_FN_CLOCK_GETTIME] += to_cg;
	fn[VDSO_FN_GETTIMEOFDAY] += other - to_cg;
	fn[VDSO_FN_OTHER] = 0;
}

/*
 * The interval of time / cost, each with its own relative error, in log
 * space (ratios): the sampling error's half-widths (Wilson, asymmetric)
 * and the cost's 95% half-width added in quadrature, as independent
 * errors.  No sample below the estimate: the low bound is 0.
 */
static struct interval calls_of(struct interval t, const struct vdso_cost *c)
{
	double hc = log1p(VDSO_Z * c->rel_sd), down, up;
	struct interval r;

	r.estimate = t.estimate / c->median;
	down = t.low > 0 ? log(t.estimate / t.low) : INFINITY;
	up = log(t.high / t.estimate);
	r.low = r.estimate * exp(-sqrt(down * down + hc * hc));
	r.high = r.estimate * exp(sqrt(up * up + hc * hc));
	return r;
}

/*
 * Each function's calls from its own samples' Wilson interval and its
 * cost; the total's bounds add the functions' half-widths in quadrature
 * (independent errors, a normal approximation).  A function never
 * sampled adds nothing.
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
		struct interval c;

		e->fn_calls[f] = (struct interval){ 0, 0, 0 };
		if (cost[f].median <= 0 || !fn[f])
			continue;
		c = calls_of(scaled(wilson_share(fn[f], s->total, VDSO_Z),
				    cpu_ns), &cost[f]);
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

/* The q-quantile of n sorted values (nearest rank). */
static double quantile(const double *v, unsigned int n, double q)
{
	return v[(unsigned int)(q * (n - 1) + 0.5)];
}

/*
 * The SD of the medians of consecutive batches of VDSO_COST_BATCH trials,
 * robustly: 1.4826 x their median absolute deviation (a batch that a
 * burst of load slowed whole is one batch, not the spread).
 */
static double batch_median_sd(const double *d, unsigned int n)
{
	double med[VDSO_COST_BATCHES_MAX], b[VDSO_COST_BATCH], mid;
	unsigned int k = 0;

	for (unsigned int i = 0; i + VDSO_COST_BATCH <= n &&
	     k < VDSO_COST_BATCHES_MAX; i += VDSO_COST_BATCH) {
		memcpy(b, d + i, sizeof(b));
		qsort(b, VDSO_COST_BATCH, sizeof(*b), cmp_double);
		med[k++] = quantile(b, VDSO_COST_BATCH, 0.5);
	}
	if (k < 2)
		return 0;
	qsort(med, k, sizeof(*med), cmp_double);
	mid = quantile(med, k, 0.5);
	for (unsigned int i = 0; i < k; i++)
		med[i] = fabs(med[i] - mid);
	qsort(med, k, sizeof(*med), cmp_double);
	return 1.4826 * quantile(med, k, 0.5);
}

struct vdso_cost vdso_cost_of(double *f, double *e, unsigned int n)
{
	struct vdso_cost c = { 0, 0, 0, 0 };
	double body, half, sd_load, sd_call;

	if (!n)
		return c;
	/* Each trial less the empty loop's beside it: a slow moment cancels. */
	for (unsigned int i = 0; i < n; i++)
		f[i] -= e[i];
	sd_load = batch_median_sd(f, n);
	qsort(f, n, sizeof(*f), cmp_double);
	qsort(e, n, sizeof(*e), cmp_double);
	body = quantile(f, n, 0.5);
	/* Below VDSO_COST_MIN_NS the loop's own cost swamps it: unknown. */
	if (body < VDSO_COST_MIN_NS)
		return c;
	half = quantile(e, n, 0.5) / 2;
	sd_call = half / sqrt(3);
	c.median = body;
	c.rel_sd = sqrt((sd_load * sd_load + sd_call * sd_call) /
			(c.median * c.median) + VDSO_COST_GAP * VDSO_COST_GAP);
	c.low = c.median * (1 - VDSO_Z * c.rel_sd);
	c.high = c.median * (1 + VDSO_Z * c.rel_sd);
	if (c.low < 0)
		c.low = 0;
	return c;
}
