// SPDX-License-Identifier: GPL-2.0
/* run --compare's figures from runs built by hand. */
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "compare.h"
#include "util.h"

static void add(struct compare *c, enum compare_variant v, bool counted,
		uint64_t wall, uint64_t tz, uint64_t hash, int status)
{
	struct compare_run r = {
		.variant = v, .counted = counted, .status = status,
		.stdout_hash = hash, .stdout_bytes = 10,
	};

	r.role[ROLE_ALL] = (struct role_sample){ 2, wall, wall / 2, tz, 0 };
	r.role[ROLE_PARENT] = (struct role_sample){ 1, wall, wall / 4, tz / 2, 0 };
	r.role[ROLE_CHILDREN] = (struct role_sample){ 1, wall / 2, wall / 4,
						      tz - tz / 2, 0 };
	compare_add_run(c, &r);
}

static struct compare with_fix(void)
{
	struct compare c = { .fix = { "TZ=:/etc/localtime" }, .nfix = 1,
			     .repeat = 3 };

	return c;
}

static void test_median_range_and_speedup(void **state)
{
	struct compare c = with_fix();

	(void)state;
	add(&c, VARIANT_BEFORE, true, 999, 120001, 1, 0);
	add(&c, VARIANT_AFTER, true, 999, 1, 1, 0);
	add(&c, VARIANT_BEFORE, false, 300, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 10, 0, 1, 0);
	add(&c, VARIANT_BEFORE, false, 100, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 12, 0, 1, 0);
	add(&c, VARIANT_BEFORE, false, 200, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 11, 0, 1, 0);
	compare_summarize(&c);
	/* Counted runs give the counts and never the times. */
	assert_int_equal(c.side[ROLE_ALL][VARIANT_BEFORE].wall.median, 200);
	assert_int_equal(c.side[ROLE_ALL][VARIANT_BEFORE].wall.min, 100);
	assert_int_equal(c.side[ROLE_ALL][VARIANT_BEFORE].wall.max, 300);
	assert_int_equal(c.side[ROLE_ALL][VARIANT_AFTER].wall.median, 11);
	assert_int_equal(c.side[ROLE_ALL][VARIANT_BEFORE].tz_accesses, 120001);
	assert_int_equal(c.side[ROLE_CHILDREN][VARIANT_BEFORE].tz_accesses, 60001);
	assert_true(compare_speedup(&c, ROLE_ALL) > 18.18 &&
		    compare_speedup(&c, ROLE_ALL) < 18.19);
	assert_string_equal(c.verdict, "TZ=:/etc/localtime: 18.2x faster here, "
			    "120,001 tz accesses \u2192 1");
	assert_false(c.exit_differs);
	assert_false(c.stdout_differs);
	assert_false(c.stdout_varies);
	compare_free(&c);
}

static void test_clock_syscalls_in_the_verdict_when_any(void **state)
{
	struct compare c = with_fix();
	struct compare_run r = { .variant = VARIANT_BEFORE, .counted = true };

	(void)state;
	r.role[ROLE_ALL].clock_syscalls = 5000;
	compare_add_run(&c, &r);
	r.variant = VARIANT_AFTER;
	r.role[ROLE_ALL].clock_syscalls = 0;
	compare_add_run(&c, &r);
	compare_summarize(&c);
	assert_string_equal(c.verdict, "TZ=:/etc/localtime: not timed, 0 tz "
			    "accesses \u2192 0, 5,000 clock syscalls \u2192 0");
	compare_free(&c);
}

/* A GC reading the CPU clock: 873 then 877 is not the fix's doing. */
static void test_clock_noise_is_not_in_the_verdict(void **state)
{
	struct compare c = with_fix();
	struct compare_run r = { .variant = VARIANT_BEFORE, .counted = true };

	(void)state;
	r.role[ROLE_ALL].clock_syscalls = 873;
	compare_add_run(&c, &r);
	r.variant = VARIANT_AFTER;
	r.role[ROLE_ALL].clock_syscalls = 877;
	compare_add_run(&c, &r);
	compare_summarize(&c);
	assert_string_equal(c.verdict, "TZ=:/etc/localtime: not timed, 0 tz "
			    "accesses \u2192 0");
	compare_free(&c);
}

static void test_overlapping_ranges_are_no_change(void **state)
{
	struct compare c = with_fix();

	(void)state;
	add(&c, VARIANT_BEFORE, false, 100, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 95, 0, 1, 0);
	add(&c, VARIANT_BEFORE, false, 90, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 105, 0, 1, 0);
	compare_summarize(&c);
	assert_non_null(strstr(c.verdict, "no measurable change here"));
	compare_free(&c);
}

static void test_one_run_each_is_not_judged(void **state)
{
	struct compare c = with_fix();

	(void)state;
	add(&c, VARIANT_BEFORE, false, 300, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 100, 0, 1, 0);
	compare_summarize(&c);
	assert_non_null(strstr(c.verdict, "3.00x here in one run of each, not judged"));
	compare_free(&c);
}

static void test_outputs_compared_only_when_stable(void **state)
{
	struct compare c = with_fix();

	(void)state;
	/* Stable within each variant, different across: a real difference. */
	add(&c, VARIANT_BEFORE, false, 100, 0, 7, 0);
	add(&c, VARIANT_AFTER, false, 10, 0, 8, 1);
	add(&c, VARIANT_BEFORE, false, 100, 0, 7, 0);
	add(&c, VARIANT_AFTER, false, 10, 0, 8, 1);
	compare_summarize(&c);
	assert_true(c.stdout_differs);
	assert_false(c.stdout_varies);
	assert_true(c.exit_differs);
	compare_free(&c);

	/* Output that changes each run (times, pids) is never a warning. */
	add(&c, VARIANT_BEFORE, false, 100, 0, 1, 0);
	add(&c, VARIANT_AFTER, false, 10, 0, 2, 0);
	add(&c, VARIANT_BEFORE, false, 100, 0, 3, 0);
	add(&c, VARIANT_AFTER, false, 10, 0, 4, 0);
	compare_summarize(&c);
	assert_false(c.stdout_differs);
	assert_true(c.stdout_varies);
	assert_false(c.exit_differs);
	compare_free(&c);
}

static void test_sample_splits_roles_by_depth(void **state)
{
	struct model m = { .start_ns = 1000, .end_ns = 9000 };
	struct role_sample r[ROLE_MAX];
	struct proc_model *p;

	(void)state;
	p = model_proc(&m, 10);
	p->start_ns = 1000, p->exit_ns = 5000, p->exited = true, p->cpu_ns = 40;
	p = model_proc(&m, 11);
	p->depth = 1, p->start_ns = 2000, p->exit_ns = 3000, p->exited = true;
	p->cpu_ns = 7;
	p = model_proc(&m, 12);
	p->depth = 2, p->start_ns = 2500, p->exit_ns = 4000, p->exited = true;
	p->cpu_ns = 8;
	compare_sample(&m, r);
	assert_int_equal(r[ROLE_PARENT].processes, 1);
	assert_int_equal(r[ROLE_PARENT].wall_ns, 4000);
	assert_int_equal(r[ROLE_CHILDREN].processes, 2);
	assert_int_equal(r[ROLE_CHILDREN].wall_ns, 2000);
	assert_int_equal(r[ROLE_CHILDREN].cpu_ns, 15);
	assert_int_equal(r[ROLE_ALL].cpu_ns, 55);
	assert_int_equal(r[ROLE_ALL].wall_ns, 4000);
	model_free(&m);
}

static void test_hash_is_fnv1a(void **state)
{
	(void)state;
	/* The published FNV-1a 64 test vector for "a". */
	assert_int_equal(compare_hash(COMPARE_HASH_INIT, "a", 1),
			 0xaf63dc4c8601ec8cull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median_range_and_speedup),
		cmocka_unit_test(test_clock_syscalls_in_the_verdict_when_any),
		cmocka_unit_test(test_clock_noise_is_not_in_the_verdict),
		cmocka_unit_test(test_overlapping_ranges_are_no_change),
		cmocka_unit_test(test_one_run_each_is_not_judged),
		cmocka_unit_test(test_outputs_compared_only_when_stable),
		cmocka_unit_test(test_sample_splits_roles_by_depth),
		cmocka_unit_test(test_hash_is_fnv1a),
	};

	return cmocka_run_group_tests_name("compare", tests, NULL, NULL);
}
