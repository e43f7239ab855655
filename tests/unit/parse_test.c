// SPDX-License-Identifier: GPL-2.0
/*
 * The command line's number and list parsers: what a user types by
 * mistake (blanks, signs, hex, exponents, empty list items) is refused,
 * and each refusal says why (not a number, too large, too small).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "cli.h"
#include "procfs.h"
#include "util.h"

static void test_u64_plain_decimal_only(void **state)
{
	static const char *const refused[] = {
		"", " 5", "5 ", "+5", "-5", "0x10", "010x", "1e3", "5.0", "١",
		"\t7", "7\n",
	};
	uint64_t v = 0;

	(void)state;
	assert_int_equal(parse_u64("0", 0, 10, &v), 0);
	assert_int_equal(v, 0);
	assert_int_equal(parse_u64("010", 0, 10, &v), 0);
	assert_int_equal(v, 10);
	assert_int_equal(parse_u64("18446744073709551615", 0, UINT64_MAX, &v), 0);
	assert_true(v == UINT64_MAX);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		assert_int_equal(parse_u64(refused[i], 0, 100, &v), -EINVAL);
	assert_int_equal(parse_u64(NULL, 0, 100, &v), -EINVAL);
}

static void test_u64_range_errors(void **state)
{
	uint64_t v = 7;

	(void)state;
	assert_int_equal(parse_u64("101", 0, 100, &v), -ERANGE);
	assert_int_equal(parse_u64("99999999999999999999", 0, UINT64_MAX, &v),
			 -ERANGE);
	assert_int_equal(parse_u64("0", 1, 100, &v), -EDOM);
	/* A refused value leaves the output alone. */
	assert_int_equal(v, 7);
}

static void test_seconds(void **state)
{
	static const char *const refused[] = {
		"", ".", "-1", "+1", " 1", "1 ", "0x10", "1e-9", "1e3", "1E3",
		"nan", "inf", "infinity", "1,5", "1..2", "1.2.3", "5s",
	};
	double d = 0;

	(void)state;
	assert_int_equal(parse_seconds("0.5", 10, &d), 0);
	assert_true(d == 0.5);
	assert_int_equal(parse_seconds(".25", 10, &d), 0);
	assert_true(d == 0.25);
	assert_int_equal(parse_seconds("3.", 10, &d), 0);
	assert_true(d == 3);
	assert_int_equal(parse_seconds("10", 10, &d), 0);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++)
		assert_int_equal(parse_seconds(refused[i], 10, &d), -EINVAL);
	assert_int_equal(parse_seconds("10.001", 10, &d), -ERANGE);
	assert_int_equal(parse_seconds("99999999999", 1e7, &d), -ERANGE);
	assert_int_equal(parse_seconds("0", 10, &d), -EDOM);
	assert_int_equal(parse_seconds("0.0000001", 10, &d), -EDOM);
	assert_int_equal(parse_seconds("0.000001", 10, &d), 0);
}

static void test_pid_list(void **state)
{
	static const char *const refused[] = {
		"", ",", "1,,2", ",5", "5,", " 5", "5 ", "1, 2", "0", "-1",
		"4194305", "0x10", "12345678901234567890", "a", "1;2",
	};
	pid_t *pids = NULL;
	size_t n = 0;

	(void)state;
	assert_int_equal(parse_pid_list("1,22,4194304", &pids, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(pids[0], 1);
	assert_int_equal(pids[1], 22);
	assert_int_equal(pids[2], 4194304);
	for (size_t i = 0; i < ARRAY_SIZE(refused); i++) {
		free(pids);
		pids = NULL;
		n = 0;
		assert_int_equal(parse_pid_list(refused[i], &pids, &n), -1);
	}
	free(pids);
}

static void test_escape_arg_keeps_one_line(void **state)
{
	char buf[32];

	(void)state;
	assert_string_equal(escape_arg(buf, sizeof(buf), "a\nb\033[2J"),
			    "a\\x0ab\\x1b[2J");
	/* Cut short, still terminated, never half an escape. */
	assert_string_equal(escape_arg(buf, 6, "ab\ncd"), "ab");
}

/* --attach takes the three words exactly, and names them back. */
static void test_attach_mode_words(void **state)
{
	const char *const words[] = { "auto", "tracepoint", "fentry" };
	enum attach_mode m = ATTACH_TRACEPOINT;

	(void)state;
	for (size_t i = 0; i < 3; i++) {
		assert_int_equal(attach_mode_parse(words[i], &m), 0);
		assert_string_equal(attach_mode_name(m), words[i]);
	}
	assert_int_equal(m, ATTACH_FENTRY);
	assert_int_equal(attach_mode_parse("Fentry", &m), -1);
	assert_int_equal(attach_mode_parse("fentry ", &m), -1);
	assert_int_equal(attach_mode_parse("", &m), -1);
	assert_int_equal(attach_mode_parse("kprobe", &m), -1);
	assert_int_equal(m, ATTACH_FENTRY);
}

static void test_proc_stat_state_and_flags(void **state)
{
	char st = 0;
	unsigned long flags = 0;

	(void)state;
	/* A comm with blanks and ')' in it: the last ')' ends it. */
	assert_int_equal(proc_stat_parse("42 (a) b) Z) Z 1 42 42 0 -1 4227084 "
					 "0 0", &st, &flags), 0);
	assert_int_equal(st, 'Z');
	assert_int_equal(flags, 4227084);
	assert_int_equal(proc_stat_parse("2 (kthreadd) S 0 0 0 0 -1 2129984 0",
					 &st, &flags), 0);
	assert_true(flags & PROC_FLAG_KTHREAD);
	assert_int_equal(proc_stat_parse("2 (kthreadd S 0 0", &st, &flags), -1);
	assert_int_equal(proc_stat_parse("2 (x) S 0 0 0", &st, &flags), -1);
	assert_int_equal(proc_stat_parse("", &st, &flags), -1);
}

/* A mapping's identity, read as the kernel prints it: no stat of the file. */
static void test_maps_line_identity(void **state)
{
	struct maps_entry e;

	(void)state;
	assert_int_equal(maps_parse_line("7f00a000-7f00b000 r-xp 00002000 fd:01 "
					 "1839283                    /usr/lib/x "
					 "y.so", &e), 0);
	assert_true(e.exec);
	assert_int_equal(e.offset, 0x2000);
	assert_int_equal(e.dev_major, 0xfd);
	assert_int_equal(e.dev_minor, 1);
	assert_int_equal(e.ino, 1839283);
	assert_string_equal(e.path, "/usr/lib/x y.so");
	/* Anonymous: identity 0, no path. */
	assert_int_equal(maps_parse_line("1000-2000 rw-p 00000000 00:00 0 ", &e),
			 0);
	assert_int_equal(e.ino, 0);
	assert_null(e.path);
	/* A device or inode that is not one: the line is refused. */
	assert_int_equal(maps_parse_line("1000-2000 r--p 00000000 fd01 5 /a", &e),
			 -1);
	assert_int_equal(maps_parse_line("1000-2000 r--p 00000000 fd:01 -5 /a",
					 &e), -1);
	assert_int_equal(maps_parse_line("1000-2000 r--p 00000000 fd:01 x /a",
					 &e), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_u64_plain_decimal_only),
		cmocka_unit_test(test_u64_range_errors),
		cmocka_unit_test(test_seconds),
		cmocka_unit_test(test_pid_list),
		cmocka_unit_test(test_escape_arg_keeps_one_line),
		cmocka_unit_test(test_proc_stat_state_and_flags),
		cmocka_unit_test(test_attach_mode_words),
		cmocka_unit_test(test_maps_line_identity),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
