// SPDX-License-Identifier: GPL-2.0
/* Stack rows weighted by the exact counts (user/core/stack.c). */
#include "unit_test.h"

#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "stack.h"

static void set_count(struct model *m, pid_t pid, uint32_t kind, uint64_t n)
{
	model_proc(m, pid)->kinds[kind].count = n;
}

/* 1000 stats of pid 1 copied 90 + 10 times: 900 and 100, sampled. */
static void test_weights_in_proportion_sum_to_exact(void **state)
{
	struct stack_share s[] = {
		{ .row = 0, .pid = 1, .kind = KIND_TZ_STAT, .copies = 90 },
		{ .row = 1, .pid = 1, .kind = KIND_TZ_STAT, .copies = 10 },
	};
	struct stack_table t = {};
	struct model m = {};

	(void)state;
	stack_table_add(&t)->kind = KIND_TZ_STAT;
	stack_table_add(&t)->kind = KIND_TZ_STAT;
	set_count(&m, 1, KIND_TZ_STAT, 1000);
	stack_table_weigh(&t, s, 2, &m);
	assert_int_equal(t.rows[0].tz_accesses, 900);
	assert_int_equal(t.rows[1].tz_accesses, 100);
	assert_true(t.rows[0].sampled);
	stack_table_free(&t);
	model_free(&m);
}

/* 10 events over 3 copies: the rounding goes to the row with most. */
static void test_rounding_kept_exact(void **state)
{
	struct stack_share s[] = {
		{ .row = 0, .pid = 7, .kind = KIND_CLOCK_GETTIME, .copies = 1 },
		{ .row = 1, .pid = 7, .kind = KIND_CLOCK_GETTIME, .copies = 2 },
	};
	struct stack_table t = {};
	struct model m = {};

	(void)state;
	stack_table_add(&t)->kind = KIND_CLOCK_GETTIME;
	stack_table_add(&t)->kind = KIND_CLOCK_GETTIME;
	set_count(&m, 7, KIND_CLOCK_GETTIME, 10);
	stack_table_weigh(&t, s, 2, &m);
	assert_int_equal(t.rows[0].clock_syscalls + t.rows[1].clock_syscalls, 10);
	assert_int_equal(t.rows[1].clock_syscalls, 7);
	stack_table_free(&t);
	model_free(&m);
}

/*
 * Two processes in one row count as two; a process whose events had no
 * copy gives them to the row without frames; weighing twice is the same.
 */
static void test_processes_and_uncopied(void **state)
{
	struct stack_share s[] = {
		{ .row = 0, .pid = 2, .kind = KIND_TZ_STAT, .copies = 5 },
		{ .row = 0, .pid = 3, .kind = KIND_TZ_STAT, .copies = 5 },
		{ .row = 0, .pid = 3, .kind = KIND_TZ_OPEN, .copies = 1 },
	};
	struct stack_table t = {};
	struct model m = {};
	size_t n, *order;

	(void)state;
	stack_table_add(&t)->kind = KIND_TZ_STAT;
	set_count(&m, 2, KIND_TZ_STAT, 5);
	set_count(&m, 3, KIND_TZ_STAT, 5);
	set_count(&m, 3, KIND_TZ_OPEN, 1);
	set_count(&m, 4, KIND_TZ_STAT, 30);
	for (int round = 0; round < 2; round++) {
		stack_table_weigh(&t, s, 3, &m);
		assert_int_equal(t.nrows, 2);
		assert_int_equal(t.rows[0].processes, 2);
		assert_int_equal(t.rows[0].tz_accesses, 11);
		assert_false(t.rows[0].sampled);
		assert_int_equal(t.rows[1].kind, KIND_MAX);
		assert_int_equal(t.rows[1].tz_accesses, 30);
	}
	order = stack_table_order(&t, &n);
	assert_int_equal(n, 2);
	assert_int_equal(order[0], 1);
	free(order);
	stack_table_free(&t);
	model_free(&m);
}

/*
 * --lang: 1000 stats of pid 1, 600 under chain a (work < main), 300 under
 * chain b (only b's own frame), 100 under none.  Chain a's 100 copies fell
 * in one row, the unattributed events' 10 in another, chain b had none:
 * each weighs its exact count, b in a row of its script frames alone.
 */
static void test_weights_by_script_chain(void **state)
{
	struct lang_site_stat outer = { .lang = LANG_PYTHON, .file = "pool.py",
					.func = "main", .line = 12 };
	struct lang_site_stat a = { .lang = LANG_PYTHON, .file = "pool.py",
				    .func = "work", .line = 5, .tz_accesses = 600,
				    .outer = &outer, .nouter = 1 };
	struct lang_site_stat b = { .lang = LANG_PYTHON, .file = "pool.py",
				    .func = "other", .line = 8, .tz_accesses = 300 };
	struct stack_share s[] = {
		{ .row = 0, .pid = 1, .kind = KIND_TZ_STAT, .copies = 100 },
		{ .row = 1, .pid = 1, .kind = KIND_TZ_STAT, .copies = 10 },
	};
	struct stack_table t = {};
	struct model m = {};
	const struct stack_row *r;

	(void)state;
	stack_table_add(&t)->kind = KIND_TZ_STAT;
	stack_table_add(&t)->kind = KIND_TZ_STAT;
	s[0].chain = stack_table_chain(&t, &a);
	assert_int_equal(stack_table_chain(&t, &a), s[0].chain);
	set_count(&m, 1, KIND_TZ_STAT, 1000);
	model_add_lang_site(model_find(&m, 1), &a);
	model_add_lang_site(model_find(&m, 1), &b);
	m.lang_enabled = true;
	for (int round = 0; round < 2; round++) {
		stack_table_weigh(&t, s, 2, &m);
		assert_int_equal(t.rows[0].tz_accesses, 600);
		assert_true(t.rows[0].sampled);
		assert_int_equal(t.rows[1].tz_accesses, 100);
		assert_int_equal(t.nrows, 3);
		r = &t.rows[2];
		assert_int_equal(r->kind, KIND_MAX);
		assert_int_equal(r->tz_accesses, 300);
		assert_int_equal(r->processes, 1);
		assert_int_equal(r->nframes, 1);
		assert_string_equal(r->frames[0].function, "other");
		assert_int_equal(r->frames[0].lang, LANG_PYTHON);
	}
	stack_table_free(&t);
	model_free(&m);
}

/*
 * A chain with no copy of its own, or events under none, get a row made
 * while weighing: the rows may move then (64 fill the first allocation).
 * Each process is counted once in a row, whatever its classes.
 */
static void test_uncopied_rows_when_the_table_grows(void **state)
{
	struct lang_site_stat a = { .lang = LANG_RUBY, .file = "w.rb",
				    .func = "due_at", .line = 4,
				    .tz_accesses = 300, .clock_syscalls = 7 };
	struct stack_share s = { .row = 0, .pid = 1, .kind = KIND_TZ_STAT,
				 .copies = 1 };
	struct stack_table t = {};
	struct model m = {};
	const struct stack_row *r;

	(void)state;
	for (int i = 0; i < 64; i++)
		stack_table_add(&t)->kind = KIND_TZ_STAT;
	set_count(&m, 1, KIND_TZ_STAT, 301);
	set_count(&m, 1, KIND_CLOCK_GETTIME, 9);
	model_add_lang_site(model_find(&m, 1), &a);
	m.lang_enabled = true;
	stack_table_weigh(&t, &s, 1, &m);
	assert_int_equal(t.rows[0].tz_accesses, 1);
	assert_int_equal(t.nrows, 66);
	r = &t.rows[64];
	assert_int_equal(r->chain, 1);
	assert_int_equal(r->tz_accesses, 300);
	assert_int_equal(r->clock_syscalls, 7);
	assert_int_equal(r->processes, 1);
	assert_int_equal(t.rows[65].chain, 0);
	assert_int_equal(t.rows[65].clock_syscalls, 2);
	stack_table_free(&t);
	model_free(&m);
}

/*
 * A long session's shares: 2000 processes, each copied 50 times over 10
 * rows.  Each row has every process once; the weights sum to the counts.
 */
#define MANY_PROCS	2000
#define MANY_COPIES	50
#define MANY_ROWS	10

static void test_many_shares(void **state)
{
	size_t n = MANY_PROCS * MANY_COPIES;
	struct stack_share *s = calloc(n, sizeof(*s));
	struct stack_table t = {};
	struct model m = {};
	uint64_t sum = 0;

	(void)state;
	assert_non_null(s);
	for (int r = 0; r < MANY_ROWS; r++)
		stack_table_add(&t)->kind = KIND_TZ_STAT;
	for (size_t i = 0; i < n; i++) {
		s[i].row = i % MANY_ROWS;
		s[i].pid = 1 + i / MANY_COPIES;
		s[i].kind = KIND_TZ_STAT;
		s[i].copies = 1;
	}
	for (pid_t pid = 1; pid <= MANY_PROCS; pid++)
		set_count(&m, pid, KIND_TZ_STAT, 5000);
	stack_table_weigh(&t, s, n, &m);
	assert_int_equal(t.nrows, MANY_ROWS);
	for (int r = 0; r < MANY_ROWS; r++) {
		assert_int_equal(t.rows[r].processes, MANY_PROCS);
		sum += t.rows[r].tz_accesses;
	}
	assert_int_equal(sum, (uint64_t)MANY_PROCS * 5000);
	free(s);
	stack_table_free(&t);
	model_free(&m);
}

static void test_frame_labels(void **state)
{
	struct stack_frame f = { .function = "do_work",
				 .file = "/src/tools/tzloop.c", .line = 165 };
	struct stack_frame anon = { .module = "libc.so.6", .offset = 0x8a3c };
	char *s;

	(void)state;
	s = stack_frame_label(&f, true);
	assert_string_equal(s, "do_work (tzloop.c:165)");
	free(s);
	s = stack_frame_label(&f, false);
	assert_string_equal(s, "do_work");
	free(s);
	s = stack_frame_label(&anon, true);
	assert_string_equal(s, "[libc.so.6+0x8a3c]");
	free(s);
	/* An inlined call: marked in the text, "_[i]" in folded stacks. */
	f.inlined = true;
	s = stack_frame_label(&f, true);
	assert_string_equal(s, "do_work (tzloop.c:165, inlined)");
	free(s);
	s = stack_frame_label(&f, false);
	assert_string_equal(s, "do_work_[i]");
	free(s);
	f.file = NULL;
	s = stack_frame_label(&f, true);
	assert_string_equal(s, "do_work (inlined)");
	free(s);
	/* A script's frame: known by its file in folded stacks. */
	f = (struct stack_frame){ .function = "work", .file = "/app/pool.py",
				  .line = 5, .lang = LANG_PYTHON };
	s = stack_frame_label(&f, true);
	assert_string_equal(s, "work (pool.py:5)");
	free(s);
	s = stack_frame_label(&f, false);
	assert_string_equal(s, "work (pool.py)");
	free(s);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_weights_in_proportion_sum_to_exact),
		cmocka_unit_test(test_rounding_kept_exact),
		cmocka_unit_test(test_processes_and_uncopied),
		cmocka_unit_test(test_weights_by_script_chain),
		cmocka_unit_test(test_uncopied_rows_when_the_table_grows),
		cmocka_unit_test(test_frame_labels),
		cmocka_unit_test(test_many_shares),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
