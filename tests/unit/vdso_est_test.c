// SPDX-License-Identifier: GPL-2.0
/* Unit tests of --vdso's estimate: intervals, per-call cost, helpers. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "vdso_est.h"

#define TRIALS	80

static void test_wilson_known_values(void **state)
{
	struct interval r;

	(void)state;
	r = wilson_share(0, 100, VDSO_Z);
	assert_true(r.low == 0 && r.estimate == 0);
	assert_true(fabs(r.high - 0.0370) < 0.0005);
	r = wilson_share(50, 100, VDSO_Z);
	assert_true(fabs(r.low - 0.4038) < 0.0005);
	assert_true(fabs(r.high - 0.5962) < 0.0005);
	r = wilson_share(0, 0, VDSO_Z);
	assert_true(r.low == 0 && r.high == 0);
}

/*
 * The cost is each trial less the empty loop's beside it; a trial that
 * a task switch slowed moves neither the cost nor its spread; the call
 * and return (median of the empty loop, 2.5 ns) leave +-1.25 ns, uniform.
 */
static void test_cost_from_paired_trials(void **state)
{
	double f[TRIALS], e[TRIALS];
	struct vdso_cost c;

	(void)state;
	for (int i = 0; i < TRIALS; i++) {
		e[i] = 2 + (i % 2) * 0.5;	/* the machine's moments */
		f[i] = 25 + e[i];
	}
	f[7] = 1000;
	c = vdso_cost_of(f, e, TRIALS);
	assert_true(fabs(c.median - 25) < 1e-9);
	assert_true(fabs(c.rel_sd - hypot((2.5 / 2 / sqrt(3)) / 25,
					  VDSO_COST_GAP)) < 1e-6);
	assert_true(c.low < 25 && c.high > 25);
	/* time(): a load or two, not told from the loop. */
	for (int i = 0; i < TRIALS; i++)
		f[i] = e[i] = 2;
	c = vdso_cost_of(f, e, TRIALS);
	assert_true(c.median == 0);
}

static struct vdso_cost cost_25ns(double rel_sd)
{
	struct vdso_cost c = { 25, 25 * (1 - VDSO_Z * rel_sd),
			       25 * (1 + VDSO_Z * rel_sd), rel_sd };

	return c;
}

/* None in the vDSO: 0 calls, an interval that holds 0. */
static void test_no_samples_in_the_vdso(void **state)
{
	struct vdso_cost cost[VDSO_FN_MAX] = { [VDSO_FN_CLOCK_GETTIME] = cost_25ns(0.03) };
	struct vdso_samples s = { .total = 1000 };
	struct vdso_estimate e;

	(void)state;
	vdso_estimate(&s, 1e6, cost, &e);
	assert_int_equal(e.samples, 0);
	assert_true(e.calls.estimate == 0 && e.calls.low == 0);
	assert_true(e.time_ns.low == 0 && e.time_ns.high > 0);
}

/* The cost's error widens the calls' interval beyond the samples' own. */
static void test_cost_error_widens_calls(void **state)
{
	struct vdso_cost cost[VDSO_FN_MAX] = { [VDSO_FN_CLOCK_GETTIME] = cost_25ns(0) };
	struct vdso_samples s = { .total = 1000 };
	struct vdso_estimate exact, e;

	(void)state;
	s.fn[VDSO_FN_CLOCK_GETTIME] = 500;
	vdso_estimate(&s, 1e6, cost, &exact);
	assert_true(fabs(exact.calls.estimate - 20e6) < 1);
	/* No cost error: the samples' interval, over the cost. */
	assert_true(fabs(exact.calls.low - exact.time_ns.low / 25) < 1);
	assert_true(fabs(exact.calls.high - exact.time_ns.high / 25) < 1);
	cost[VDSO_FN_CLOCK_GETTIME] = cost_25ns(0.05);
	vdso_estimate(&s, 1e6, cost, &e);
	assert_true(e.calls.low < exact.calls.low - 1e5);
	assert_true(e.calls.high > exact.calls.high + 1e5);
	assert_true(e.calls.low < 20e6 && 20e6 < e.calls.high);
}

/*
 * Samples only in the vDSO's unnamed helper (a short run): counted as
 * clock_gettime's calls, not dropped to 0 calls [0, 0].
 */
static void test_helper_samples_alone_are_calls(void **state)
{
	struct vdso_cost cost[VDSO_FN_MAX] = { [VDSO_FN_CLOCK_GETTIME] = cost_25ns(0.03) };
	struct vdso_samples s = { .total = 12 };
	struct vdso_estimate e;

	(void)state;
	s.fn[VDSO_FN_OTHER] = 10;
	vdso_estimate(&s, 1e6, cost, &e);
	assert_true(e.calls.estimate > 0);
	assert_true(e.calls.low < e.calls.estimate && e.calls.estimate < e.calls.high);
}

/* xorshift: the same draws every run. */
static uint64_t next_rand(uint64_t *x)
{
	*x ^= *x << 13;
	*x ^= *x >> 7;
	*x ^= *x << 17;
	return *x;
}

/*
 * Binomial samples (n 150, share 0.5: the workload per process
 * at the default rate): the Wilson interval holds the true share in about
 * 95% of 2,000 seeded draws, whatever the machine.
 */
static void test_wilson_coverage_on_binomial_draws(void **state)
{
	uint64_t x = 88172645463325252ull;
	int held = 0;

	(void)state;
	for (int draw = 0; draw < 2000; draw++) {
		uint64_t k = 0;
		struct interval r;

		for (int i = 0; i < 150; i++)
			k += (next_rand(&x) >> 11) * 0x1.0p-53 < 0.5;
		r = wilson_share(k, 150, VDSO_Z);
		held += r.low <= 0.5 && 0.5 <= r.high;
	}
	assert_in_range(held, 1860, 1940);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wilson_known_values),
		cmocka_unit_test(test_cost_from_paired_trials),
		cmocka_unit_test(test_no_samples_in_the_vdso),
		cmocka_unit_test(test_cost_error_widens_calls),
		cmocka_unit_test(test_helper_samples_alone_are_calls),
		cmocka_unit_test(test_wilson_coverage_on_binomial_draws),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
