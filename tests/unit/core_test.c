// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the pure logic: histograms, clock names, JSON, tz paths. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "clocks.h"
#include "hist.h"
#include "json.h"
#include "tzpath.h"
#include "util.h"

/* The BPF side's bucketing, compiled here from the same source. */
#include "bits.bpf.h"

static void test_log2_slot_bounds(void **state)
{
	(void)state;
	assert_int_equal(log2_slot(0), 0);
	assert_int_equal(log2_slot(1), 0);
	assert_int_equal(log2_slot(2), 1);
	assert_int_equal(log2_slot(3), 1);
	assert_int_equal(log2_slot(1024), 10);
	assert_int_equal(log2_slot(2047), 10);
	assert_int_equal(log2_slot(2048), 11);
	assert_int_equal(log2_slot(UINT64_MAX), HIST_SLOTS - 1);
	for (uint64_t v = 1; v < (1ull << 39); v = v * 3 + 1) {
		int s = log2_slot(v);

		assert_true(v >= hist_slot_lo(s) || s == 0);
		assert_true(v <= hist_slot_hi(s));
	}
}

static char *capture(void (*fn)(FILE *f, void *arg), void *arg)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, arg);
	fclose(f);
	return buf;
}

static void print_hist(FILE *f, void *arg)
{
	print_log2_hist(f, arg, HIST_SLOTS, "nsecs");
}

static void test_hist_print_matches_bcc_layout(void **state)
{
	__u64 slots[HIST_SLOTS] = {};
	char *out;

	(void)state;
	slots[10] = 182;
	slots[11] = 364;
	out = capture(print_hist, slots);
	assert_string_equal(out,
		"     nsecs               : count    distribution\n"
		"      1024 -> 2047       : 182      |********************                    |\n"
		"      2048 -> 4095       : 364      |****************************************|\n");
	free(out);
	assert_int_equal(hist_sum(slots, HIST_SLOTS), 546);
}

static void test_hist_empty_prints_nothing(void **state)
{
	__u64 slots[HIST_SLOTS] = {};
	char *out = capture(print_hist, slots);

	(void)state;
	assert_string_equal(out, "");
	free(out);
}

static void test_clock_names(void **state)
{
	char buf[64];
	int32_t clk;

	(void)state;
	assert_string_equal(clock_name(1, buf, sizeof(buf)), "CLOCK_MONOTONIC");
	assert_string_equal(clock_name(2, buf, sizeof(buf)),
			    "CLOCK_PROCESS_CPUTIME_ID");
	assert_string_equal(clock_name(11, buf, sizeof(buf)), "CLOCK_TAI");
	assert_string_equal(clock_name(~7 | 2, buf, sizeof(buf)),
			    "CPUCLOCK_PROCESS_SCHED");
	assert_string_equal(clock_name(~7 | 4 | 0, buf, sizeof(buf)),
			    "CPUCLOCK_THREAD_PROF");
	assert_string_equal(clock_name(~7 | 3, buf, sizeof(buf)), "CLOCK_FD");
	assert_string_equal(clock_name(42, buf, sizeof(buf)), "CLOCK_42");
	assert_int_equal(clock_from_name("monotonic_raw", &clk), 0);
	assert_int_equal(clk, 4);
	assert_int_equal(clock_from_name("CLOCK_REALTIME_COARSE", &clk), 0);
	assert_int_equal(clk, 5);
	assert_int_equal(clock_from_name("7", &clk), 0);
	assert_int_equal(clk, 7);
	assert_int_equal(clock_from_name("sundial", &clk), -1);
}

static void test_clock_classes(void **state)
{
	(void)state;
	assert_true(clock_vdso_capable(1));
	assert_false(clock_vdso_capable(2));
	assert_true(clock_is_cpu(2));
	assert_true(clock_is_cpu(3));
	assert_true(clock_is_cpu(~7 | 2));
	assert_false(clock_is_cpu(~7 | 3));
	assert_false(clock_is_cpu(-1));		/* names no clock */
	assert_true(clock_is_coarse(6));
	assert_true(clocksource_has_vdso("tsc"));
	assert_false(clocksource_has_vdso("hpet"));
	assert_false(clocksource_has_vdso("acpi_pm"));
}

static void write_str(FILE *f, void *arg)
{
	const char *s = arg;

	json_write_string(f, s, strlen(s));
}

static void test_json_escapes_hostile_bytes(void **state)
{
	char *out;

	(void)state;
	/* The escaped form of escape.h, then JSON's own \" and \\. */
	out = capture(write_str, "a\"b\\c\n\x01\x1b");
	assert_string_equal(out, "\"a\\\"b\\\\x5cc\\\\x0a\\\\x01\\\\x1b\"");
	free(out);
	/* Invalid UTF-8 becomes \xNN, never \u00XX: é stays é. */
	out = capture(write_str, "\xff\xfe\xc3\xa9\xe2\x82");
	assert_string_equal(out, "\"\\\\xff\\\\xfe\xc3\xa9\\\\xe2\\\\x82\"");
	free(out);
	/* An overlong encoding of '/' is not valid UTF-8. */
	out = capture(write_str, "\xc0\xaf");
	assert_string_equal(out, "\"\\\\xc0\\\\xaf\"");
	free(out);
}

static void write_doc(FILE *f, void *arg)
{
	struct json j;

	(void)arg;
	json_init(&j, f, false);
	json_obj_begin(&j, NULL);
	json_str(&j, "a", "x");
	json_arr_begin(&j, "b");
	json_u64(&j, NULL, 1);
	json_i64(&j, NULL, -2);
	json_obj_begin(&j, NULL);
	json_obj_end(&j);
	json_arr_end(&j);
	json_null(&j, "c");
	json_bool(&j, "d", true);
	json_obj_end(&j);
	json_finish(&j);
}

static void test_json_structure(void **state)
{
	char *out = capture(write_doc, NULL);

	(void)state;
	assert_string_equal(out, "{\"a\":\"x\",\"b\":[1,-2,{}],\"c\":null,\"d\":true}\n");
	free(out);
}

static int tz(const char *p)
{
	char buf[TZ_PATH_LEN] = {};

	strncpy(buf, p, TZ_PATH_LEN - 1);
	return tz_builtin_match(buf);
}

static void test_tz_builtin_paths(void **state)
{
	(void)state;
	assert_true(tz("/etc/localtime"));
	assert_true(tz("/etc/timezone"));
	assert_true(tz("/usr/share/zoneinfo"));
	assert_true(tz("/usr/share/zoneinfo/Europe/Paris"));
	assert_true(tz("/usr/lib/zoneinfo/UTC"));
	assert_true(tz("/usr/share/lib/zoneinfo/UTC"));
	assert_false(tz("/etc/localtime.dpkg-new"));
	assert_false(tz("/etc/localtimes"));
	assert_false(tz("/usr/share/zoneinfo-extra/UTC"));
	assert_false(tz("/etc/passwd"));
	assert_false(tz("localtime"));
	assert_false(tz(""));
}

static void test_tz_user_paths(void **state)
{
	struct tz_user_path dir = { .len = 9, .exact = 0, .path = "/opt/zone" };
	struct tz_user_path file = { .len = 7, .exact = 1, .path = "/tmp/tz" };
	struct tz_user_path slash = { .len = 6, .exact = 0, .path = "/zone/" };
	char p[TZ_PATH_LEN] = "/opt/zone/UTC";

	(void)state;
	assert_true(tz_user_match(p, &dir));
	strcpy(p, "/opt/zonefoo");
	assert_false(tz_user_match(p, &dir));
	strcpy(p, "/tmp/tz");
	assert_true(tz_user_match(p, &file));
	strcpy(p, "/tmp/tz/x");
	assert_false(tz_user_match(p, &file));
	strcpy(p, "/zone/UTC");
	assert_true(tz_user_match(p, &slash));
	dir.len = 0;
	strcpy(p, "/opt/zone/UTC");
	assert_false(tz_user_match(p, &dir));
}

static void test_util_formatting(void **state)
{
	char buf[64];
	uint64_t v;
	double d;

	(void)state;
	assert_string_equal(fmt_count(buf, sizeof(buf), 0), "0");
	assert_string_equal(fmt_count(buf, sizeof(buf), 1234567), "1,234,567");
	assert_string_equal(fmt_count(buf, sizeof(buf), 999), "999");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 812), "812 ns");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 3400), "3.4 us");
	assert_string_equal(fmt_duration(buf, sizeof(buf), 1.2e9), "1.20 s");
	assert_int_equal(parse_u64("42", 1, 100, &v), 0);
	assert_int_equal(v, 42);
	assert_int_not_equal(parse_u64("-1", 0, 100, &v), 0);
	assert_int_not_equal(parse_u64("abc", 0, 100, &v), 0);
	assert_int_not_equal(parse_u64("101", 0, 100, &v), 0);
	assert_int_not_equal(parse_u64("", 0, 100, &v), 0);
	assert_int_equal(parse_seconds("0.5", 10, &d), 0);
	assert_int_not_equal(parse_seconds("-1", 10, &d), 0);
	assert_int_not_equal(parse_seconds("nan", 10, &d), 0);
	assert_int_not_equal(parse_seconds("0", 10, &d), 0);
	escape_bytes(buf, sizeof(buf), "a\x01\xff\\", 4);
	assert_string_equal(buf, "a\\x01\\xff\\x5c");
}

/* Sums from zeroed and from UINT64_MAX-initialised minima agree. */
static void test_latency_add(void **state)
{
	struct latency a = { .count = 2, .errors = 1, .total_ns = 30,
			     .min_ns = 10, .max_ns = 20 };
	struct latency b = { .count = 1, .total_ns = 5, .min_ns = 5,
			     .max_ns = 5 };
	struct latency none = { .min_ns = 1 };
	struct latency zeroed = {}, unset = { .min_ns = UINT64_MAX };

	(void)state;
	a.hist[3] = 2;
	b.hist[2] = 1;
	latency_add(&zeroed, &a);
	latency_add(&zeroed, &none);
	latency_add(&zeroed, &b);
	latency_add(&unset, &b);
	latency_add(&unset, &a);
	for (int i = 0; i < 2; i++) {
		const struct latency *l = i ? &unset : &zeroed;

		assert_int_equal(l->count, 3);
		assert_int_equal(l->errors, 1);
		assert_int_equal(l->total_ns, 35);
		assert_int_equal(l->min_ns, 5);
		assert_int_equal(l->max_ns, 20);
		assert_int_equal(l->hist[2], 1);
		assert_int_equal(l->hist[3], 2);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_log2_slot_bounds),
		cmocka_unit_test(test_hist_print_matches_bcc_layout),
		cmocka_unit_test(test_hist_empty_prints_nothing),
		cmocka_unit_test(test_latency_add),
		cmocka_unit_test(test_clock_names),
		cmocka_unit_test(test_clock_classes),
		cmocka_unit_test(test_json_escapes_hostile_bytes),
		cmocka_unit_test(test_json_structure),
		cmocka_unit_test(test_tz_builtin_paths),
		cmocka_unit_test(test_tz_user_paths),
		cmocka_unit_test(test_util_formatting),
	};

	return cmocka_run_group_tests_name("core", tests, NULL, NULL);
}
