// SPDX-License-Identifier: GPL-2.0
/* The HTML report's escaping, on hostile bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "html.h"
#include "timeline.h"

static char *escaped(const char *s, size_t len)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	html_textn(f, s, len);
	fclose(f);
	return buf;
}

static void check(const char *in, const char *want)
{
	char *got = escaped(in, strlen(in));

	assert_string_equal(got, want);
	free(got);
}

static void test_markup_becomes_text(void **state)
{
	(void)state;
	check("<script>alert('x')</script>",
	      "&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;");
	check("a\"b&c", "a&quot;b&amp;c");
}

static void test_control_and_bad_bytes_become_hex(void **state)
{
	(void)state;
	check("\033[31mred\r\n", "\\x1b[31mred\\x0d\\x0a");
	check("back\\slash", "back\\x5cslash");
	/* Invalid UTF-8: a lone continuation, an overlong '/', a surrogate. */
	check("\x80\xc0\xaf\xed\xa0\x80", "\\x80\\xc0\\xaf\\xed\\xa0\\x80");
	/* A C1 control and a right-to-left override, though well formed. */
	check("\xc2\x85\xe2\x80\xae", "\\xc2\\x85\\xe2\\x80\\xae");
	/* Cut in the middle of a sequence. */
	check("\xe2\x86", "\\xe2\\x86");
}

static void test_printable_utf8_stays(void **state)
{
	(void)state;
	check("Z\xc3\xbcrich \xe2\x86\x92 \xf0\x9f\x95\x90", "Z\xc3\xbcrich \xe2\x86\x92 \xf0\x9f\x95\x90");
}

static void test_length_bounds_the_read(void **state)
{
	char *got = escaped("abcdef", 3);

	(void)state;
	assert_string_equal(got, "abc");
	free(got);
}

static void add_interval(struct timeline *t, pid_t pid, uint64_t tz,
			 uint64_t end_ns)
{
	struct model m = {};
	struct proc_model *p = model_proc(&m, pid);

	p->kinds[KIND_TZ_STAT].count = tz;
	timeline_add(t, &m, end_ns);
	model_free(&m);
}

static void test_timeline_zero_fills_late_and_idle_processes(void **state)
{
	struct timeline t = {};

	(void)state;
	add_interval(&t, 10, 5, 100);
	add_interval(&t, 11, 7, 200);	/* 10 idle, 11 new */
	add_interval(&t, 10, 0, 300);	/* nothing at all */
	assert_int_equal(t.n, 3);
	assert_int_equal(t.nprocs, 2);
	assert_int_equal(t.procs[0].pid, 10);
	assert_int_equal(t.procs[0].events[0], 5);
	assert_int_equal(t.procs[0].events[1], 0);
	assert_int_equal(t.procs[0].events[2], 0);
	assert_int_equal(t.procs[1].events[0], 0);
	assert_int_equal(t.procs[1].events[1], 7);
	assert_int_equal(t.procs[1].events[2], 0);
	assert_int_equal(t.procs[1].total, 7);
	assert_int_equal(t.end_ns[2], 300);
	timeline_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markup_becomes_text),
		cmocka_unit_test(test_control_and_bad_bytes_become_hex),
		cmocka_unit_test(test_printable_utf8_stays),
		cmocka_unit_test(test_length_bounds_the_read),
		cmocka_unit_test(test_timeline_zero_fills_late_and_idle_processes),
	};

	return cmocka_run_group_tests_name("html", tests, NULL, NULL);
}
