// SPDX-License-Identifier: GPL-2.0
/* The HTML report's escaping, on hostile bytes. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "html.h"
#include "report_html.h"
#include "stack.h"
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

/* html_flame_graph of t's tz weights, max rects, into a string. */
static char *flame_of(const struct stack_table *t, size_t max)
{
	char *buf = NULL;
	size_t size = 0;
	FILE *f = open_memstream(&buf, &size);

	html_flame_graph(f, t, STACK_CLASS_TZ, max);
	fclose(f);
	return buf;
}

static size_t occurrences(const char *s, const char *what)
{
	size_t n = 0;

	for (; (s = strstr(s, what)); s++)
		n++;
	return n;
}

/* A row of two frames, leaf then main, with weight tz. */
static void add_row(struct stack_table *t, const char *leaf, uint64_t tz)
{
	struct stack_row *r = stack_table_add(t);

	r->kind = KIND_TZ_STAT;
	snprintf(r->comm, sizeof(r->comm), "w");
	r->frames = calloc(2, sizeof(*r->frames));
	r->frames[0].function = strdup(leaf);
	r->frames[0].module = strdup("libc.so.6");
	r->frames[1].function = strdup("main");
	r->frames[1].module = strdup("w");
	r->nframes = 2;
	r->tz_accesses = tz;
}

static void test_flame_counts_what_is_not_drawn(void **state)
{
	struct stack_table t = { 0 };
	char name[32], *out;

	(void)state;
	/* 0.1 px wide: leaf and its event left out, one event under them. */
	add_row(&t, "wide", 10000);
	add_row(&t, "thin", 1);
	out = flame_of(&t, FLAME_RECTS_MAX);
	assert_non_null(strstr(out, "data-frames=\"2\" data-events=\"1\""));
	assert_int_equal(occurrences(out, "<g class=\"frame\""), 5);
	assert_non_null(strstr(out, "data-count=\"10001\" data-kind=\"frame\" "
				    "data-function=\"main\""));
	free(out);
	stack_table_free(&t);
	memset(&t, 0, sizeof(t));
	/* all, w, main, 300 leaves and their 300 events: past the cap. */
	for (int i = 0; i < 300; i++) {
		snprintf(name, sizeof(name), "leaf%d", i);
		add_row(&t, name, 1 + i % 5);
	}
	out = flame_of(&t, 50);
	assert_int_equal(occurrences(out, "<g class=\"frame\""), 50);
	assert_non_null(strstr(out, "data-frames=\"553\" data-events=\"900\""));
	assert_non_null(strstr(out, "Not drawn: 553 frames"));
	free(out);
	stack_table_free(&t);
}

static void test_flame_titles_and_labels_escaped(void **state)
{
	struct stack_table t = { 0 };
	char *out;

	(void)state;
	add_row(&t, "<script>&\x1b\\'\"", 5);
	out = flame_of(&t, FLAME_RECTS_MAX);
	assert_null(strstr(out, "<script"));
	assert_null(strchr(out, '\x1b'));
	/* The title, the data attribute and the label: each escaped. */
	assert_int_equal(occurrences(out,
		"&lt;script&gt;&amp;\\x1b\\x5c&#39;&quot;"), 3);
	free(out);
	stack_table_free(&t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_markup_becomes_text),
		cmocka_unit_test(test_control_and_bad_bytes_become_hex),
		cmocka_unit_test(test_printable_utf8_stays),
		cmocka_unit_test(test_length_bounds_the_read),
		cmocka_unit_test(test_timeline_zero_fills_late_and_idle_processes),
		cmocka_unit_test(test_flame_counts_what_is_not_drawn),
		cmocka_unit_test(test_flame_titles_and_labels_escaped),
	};

	return cmocka_run_group_tests_name("html", tests, NULL, NULL);
}
