// SPDX-License-Identifier: GPL-2.0
/* The bench table's logic and doctor's finding, on tables built by hand. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "bench_table.h"
#include "doctor_proc.h"

static struct bench_row row(const char *name, int32_t clk,
			    enum bench_path path, enum bench_tz tz,
			    enum bench_proc proc, double ns)
{
	struct bench_row r = {
		.clock = clk, .path = path, .tz = tz, .process = proc,
		.trials = 1, .trial_ns = { ns }, .syscalls_per_call = -1,
	};

	strcpy(r.name, name);
	bench_row_summarize(&r);
	return r;
}

static void add(struct bench_report *b, const char *name, int32_t clk,
		enum bench_path path, enum bench_tz tz, enum bench_proc proc,
		double ns)
{
	struct bench_row r = row(name, clk, path, tz, proc, ns);

	bench_add_row(b, &r);
}

static struct bench_report report(void)
{
	struct bench_report b = { .vdso = true, .glibc = true, .cpu = -1 };

	strcpy(b.clocksource, "tsc");
	return b;
}

static void test_median(void **state)
{
	double odd[] = { 5, 1, 3 }, even[] = { 4, 1, 3, 2 };

	(void)state;
	assert_true(bench_median(odd, 3) == 3);
	assert_true(bench_median(even, 4) == 2.5);
	assert_true(isnan(bench_median(odd, 0)));
}

static void test_summarize_spread(void **state)
{
	struct bench_row r = { .trials = 5, .trial_ns = { 20, 18, 90, 19, 21 } };

	(void)state;
	bench_row_summarize(&r);
	assert_true(r.ns_per_call == 20);	/* one outlier does not move it */
	assert_true(r.ns_min == 18);
	assert_true(r.ns_max == 90);
}

static void test_sort_costliest_first_errors_last(void **state)
{
	struct bench_row rows[3];

	(void)state;
	rows[0] = row("time", -1, BENCH_VDSO, 0, BENCH_PARENT, 1);
	rows[1] = row("clock_gettime", 12, BENCH_SYSCALL, 0, BENCH_PARENT, 0);
	rows[1].err = 22;
	rows[2] = row("clock_gettime", 1, BENCH_SYSCALL, 0, BENCH_PARENT, 150);
	bench_sort(rows, 3);
	assert_true(rows[0].ns_per_call == 150);
	assert_string_equal(rows[1].name, "time");
	assert_int_equal(rows[2].err, 22);
}

static void test_kernel_vdso_rule_and_timing(void **state)
{
	struct bench_report b = report();

	(void)state;
	add(&b, "clock_gettime", 1,
			BENCH_VDSO, 0, BENCH_PARENT, 20);
	add(&b, "clock_gettime", 1,
			BENCH_SYSCALL, 0, BENCH_PARENT, 150);
	add(&b, "clock_gettime", 2,
			BENCH_LIBC, 0, BENCH_PARENT, 190);
	add(&b, "clock_gettime", 2,
			BENCH_SYSCALL, 0, BENCH_PARENT, 180);
	bench_decide_kernel(&b);
	assert_int_equal(b.rows[0].entered_kernel, 0);
	assert_int_equal(b.rows[0].basis, BASIS_VDSO_RULE);
	assert_int_equal(b.rows[1].entered_kernel, 1);
	assert_int_equal(b.rows[1].basis, BASIS_FORCED);
	assert_int_equal(b.rows[2].entered_kernel, 1);

	/* A "vDSO" row as slow as the syscall: the rule is not trusted. */
	b.rows[0].ns_per_call = 140;
	bench_decide_kernel(&b);
	assert_int_equal(b.rows[0].entered_kernel, -1);
	assert_true(b.rows[0].timing_conflict);

	/* Counting wins over any rule. */
	b.rows[0].syscalls_per_call = 1.0;
	bench_decide_kernel(&b);
	assert_int_equal(b.rows[0].entered_kernel, 1);
	assert_int_equal(b.rows[0].basis, BASIS_COUNTED);
	free(b.rows);
}

static void test_kernel_no_vdso_clocksource(void **state)
{
	struct bench_report b = report();

	(void)state;
	strcpy(b.clocksource, "hpet");
	add(&b, "clock_gettime", 1,
			BENCH_LIBC, 0, BENCH_PARENT, 600);
	add(&b, "clock_gettime", 6,
			BENCH_VDSO, 0, BENCH_PARENT, 4);
	add(&b, "time", -1,
			BENCH_VDSO, 0, BENCH_PARENT, 1);
	bench_decide_kernel(&b);
	assert_int_equal(b.rows[0].entered_kernel, 1);
	assert_int_equal(b.rows[1].entered_kernel, 0);	/* coarse */
	assert_int_equal(b.rows[2].entered_kernel, 0);	/* never falls back */
	free(b.rows);
}

static void test_kernel_glibc_tz_rule(void **state)
{
	struct bench_report b = report();

	(void)state;
	add(&b, "localtime", -1, BENCH_LIBC,
			BENCH_TZ_UNSET, BENCH_PARENT, 460);
	add(&b, "localtime_r", -1,
			BENCH_LIBC, BENCH_TZ_UNSET, BENCH_PARENT, 25);
	add(&b, "localtime", -1, BENCH_LIBC,
			BENCH_TZ_SET, BENCH_PARENT, 31);
	bench_decide_kernel(&b);
	assert_int_equal(b.rows[0].entered_kernel, 1);
	assert_int_equal(b.rows[1].entered_kernel, 0);
	assert_int_equal(b.rows[2].entered_kernel, 0);
	b.glibc = false;
	bench_decide_kernel(&b);
	assert_int_equal(b.rows[0].entered_kernel, -1);
	free(b.rows);
}

static void test_verdict(void **state)
{
	struct bench_report b = report();
	struct bench_verdict v;

	(void)state;
	add(&b, "clock_gettime", 1,
			BENCH_VDSO, 0, BENCH_PARENT, 20);
	add(&b, "clock_gettime", 1,
			BENCH_SYSCALL, 0, BENCH_PARENT, 160);
	add(&b, "localtime", -1, BENCH_LIBC,
			BENCH_TZ_UNSET, BENCH_PARENT, 460);
	add(&b, "localtime", -1, BENCH_LIBC,
			BENCH_TZ_SET, BENCH_PARENT, 30);
	add(&b, "localtime", -1, BENCH_LIBC,
			BENCH_TZ_UNSET, BENCH_CHILD, 920);
	add(&b, "clock_gettime", 1,
			BENCH_VDSO, 0, BENCH_CHILD, 20);
	add(&b, "clock_gettime", 1,
			BENCH_SYSCALL, 0, BENCH_CHILD, 160);
	bench_decide_kernel(&b);
	bench_verdict(&b, &v);
	assert_int_equal(v.nclocks, 1);
	assert_true(v.clocks[0].vdso);
	assert_true(v.clocks[0].syscall_ns == 160);
	assert_int_equal(v.ntz, 1);
	assert_string_equal(v.tz[0].name, "localtime");
	assert_true(v.tz[0].unset_ns - v.tz[0].set_ns == 430);
	assert_int_equal(v.child_pairs, 3);
	assert_true(v.child_ratio == 1.0);
	assert_true(v.child_max_ratio == 2.0);
	assert_string_equal(v.child_max_row->name, "localtime");
	free(b.rows);
}

static void test_verdict_without_fork(void **state)
{
	struct bench_report b = report();
	struct bench_verdict v;

	(void)state;
	add(&b, "time", -1, BENCH_VDSO, 0,
			BENCH_PARENT, 1);
	bench_verdict(&b, &v);
	assert_int_equal(v.child_pairs, 0);
	assert_true(isnan(v.child_ratio));
	free(b.rows);
}

static void test_labels(void **state)
{
	struct bench_row r = row("clock_gettime", 1, BENCH_VDSO, 0,
				 BENCH_PARENT, 1);
	char buf[64];

	(void)state;
	assert_string_equal(bench_row_label(&r, buf, sizeof(buf)),
			    "clock_gettime(CLOCK_MONOTONIC)");
	r = row("localtime", -1, BENCH_LIBC, BENCH_TZ_SET, BENCH_PARENT, 1);
	assert_string_equal(bench_row_label(&r, buf, sizeof(buf)),
			    "localtime() TZ=:/etc/localtime");
	assert_string_equal(bench_tz_name(BENCH_TZ_UNSET), "unset");
	assert_null(bench_tz_name(BENCH_TZ_NONE));
	assert_string_equal(bench_path_name(BENCH_SYSCALL), "syscall");
}

static void test_doctor_tz_finding(void **state)
{
	struct proc_facts p = { .libc = LIBC_KIND_GLIBC, .tz_state = 0 };
	enum check_status st;

	(void)state;
	assert_non_null(strstr(proc_tz_finding(&p, &st),
			       "every localtime() will stat /etc/localtime"));
	assert_int_equal(st, CHECK_WARN);
	p.tz_state = 1;
	proc_tz_finding(&p, &st);
	assert_int_equal(st, CHECK_OK);
	p.tz_state = 0;
	p.libc = LIBC_KIND_MUSL;
	proc_tz_finding(&p, &st);
	assert_int_equal(st, CHECK_OK);
	p.libc = LIBC_KIND_GLIBC;
	p.tz_state = -1;
	proc_tz_finding(&p, &st);
	assert_int_equal(st, CHECK_WARN);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_median),
		cmocka_unit_test(test_summarize_spread),
		cmocka_unit_test(test_sort_costliest_first_errors_last),
		cmocka_unit_test(test_kernel_vdso_rule_and_timing),
		cmocka_unit_test(test_kernel_no_vdso_clocksource),
		cmocka_unit_test(test_kernel_glibc_tz_rule),
		cmocka_unit_test(test_verdict),
		cmocka_unit_test(test_verdict_without_fork),
		cmocka_unit_test(test_labels),
		cmocka_unit_test(test_doctor_tz_finding),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
