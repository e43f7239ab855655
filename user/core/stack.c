// SPDX-License-Identifier: GPL-2.0
/* Rows of whole stacks and their weights: see stack.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "stack.h"
#include "util.h"

struct stack_row *stack_table_add(struct stack_table *t)
{
	if (t->nrows == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 64;
		t->rows = xrealloc(t->rows, t->cap, sizeof(*t->rows));
	}
	memset(&t->rows[t->nrows], 0, sizeof(t->rows[0]));
	return &t->rows[t->nrows++];
}

void stack_frame_free(struct stack_frame *f)
{
	free(f->function);
	free(f->file);
	free(f->module);
	free(f->build_id);
}

void stack_table_free(struct stack_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		for (size_t j = 0; j < t->rows[i].nframes; j++)
			stack_frame_free(&t->rows[i].frames[j]);
		free(t->rows[i].frames);
		free(t->rows[i].key);
	}
	free(t->rows);
	memset(t, 0, sizeof(*t));
}

uint32_t stack_class_of(uint32_t kind)
{
	return kind >= KIND_FIRST_TZ ? STACK_CLASS_TZ : STACK_CLASS_CLOCK;
}

uint64_t stack_row_weight(const struct stack_row *r)
{
	return r->tz_accesses + r->clock_syscalls;
}

static uint64_t exact_count(const struct proc_model *p, uint32_t kind)
{
	return kind < KIND_MAX ? p->kinds[kind].count : 0;
}

static int by_process(const void *a, const void *b)
{
	const struct stack_share *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (x->kind != y->kind)
		return x->kind < y->kind ? -1 : 1;
	return x->row < y->row ? -1 : x->row > y->row;
}

static void add_weight(struct stack_row *r, uint32_t kind, uint64_t w)
{
	if (stack_class_of(kind) == STACK_CLASS_TZ)
		r->tz_accesses += w;
	else
		r->clock_syscalls += w;
}

/* The row of the events of processes that had no copy. */
static size_t uncopied_row(struct stack_table *t)
{
	struct stack_row *r;

	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].kind == KIND_MAX)
			return i;
	r = stack_table_add(t);
	r->kind = KIND_MAX;
	return t->nrows - 1;
}

/*
 * One process's kind of event: its exact count shared over s[0..n) by copies,
 * the rounding left to the row with most copies.
 */
static void weigh_group(struct stack_table *t, const struct stack_share *s,
			size_t n, uint64_t exact)
{
	uint64_t copies = 0, given = 0;
	size_t most = 0;

	for (size_t i = 0; i < n; i++) {
		copies += s[i].copies;
		if (s[i].copies > s[most].copies)
			most = i;
	}
	for (size_t i = 0; i < n && copies; i++) {
		uint64_t w = (uint64_t)((unsigned __int128)exact * s[i].copies /
					copies);

		add_weight(&t->rows[s[i].row], s[i].kind, w);
		given += w;
		if (exact != copies)
			t->rows[s[i].row].sampled = true;
	}
	if (copies)
		add_weight(&t->rows[s[most].row], s[most].kind, exact - given);
}

static bool row_has_pid(const struct stack_share *s, size_t n, size_t row,
			pid_t pid, size_t before)
{
	for (size_t i = 0; i < before && i < n; i++)
		if (s[i].row == row && s[i].pid == pid)
			return true;
	return false;
}

static void count_processes(struct stack_table *t, const struct stack_share *s,
			    size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!row_has_pid(s, n, s[i].row, s[i].pid, i))
			t->rows[s[i].row].processes++;
}

static void weigh_uncopied(struct stack_table *t, const struct model *m,
			   const struct stack_share *s, size_t n)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (uint32_t kind = 0; kind < KIND_MAX; kind++) {
			uint64_t exact = exact_count(p, kind);
			size_t row;
			bool found = false;

			for (size_t j = 0; j < n && !found; j++)
				found = s[j].pid == p->pid && s[j].kind == kind;
			if (found || !exact)
				continue;
			row = uncopied_row(t);
			add_weight(&t->rows[row], kind, exact);
			t->rows[row].processes++;
		}
	}
}

void stack_table_weigh(struct stack_table *t, struct stack_share *s,
		       size_t n, const struct model *m)
{
	for (size_t i = 0; i < t->nrows; i++) {
		t->rows[i].tz_accesses = t->rows[i].clock_syscalls = 0;
		t->rows[i].processes = 0;
		t->rows[i].sampled = false;
	}
	qsort(s, n, sizeof(*s), by_process);
	for (size_t i = 0, j; i < n; i = j) {
		const struct proc_model *p = model_find(m, s[i].pid);

		for (j = i; j < n && s[j].pid == s[i].pid &&
		     s[j].kind == s[i].kind; j++)
			;
		weigh_group(t, s + i, j - i, p ? exact_count(p, s[i].kind) : 0);
	}
	count_processes(t, s, n);
	weigh_uncopied(t, m, s, n);
}

static const struct stack_table *order_of;

static int heavier(const void *a, const void *b)
{
	uint64_t x = stack_row_weight(&order_of->rows[*(const size_t *)a]);
	uint64_t y = stack_row_weight(&order_of->rows[*(const size_t *)b]);

	if (x != y)
		return x > y ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

size_t *stack_table_order(const struct stack_table *t, size_t *n)
{
	size_t *idx = xcalloc(t->nrows + 1, sizeof(*idx));

	*n = 0;
	for (size_t i = 0; i < t->nrows; i++)
		if (stack_row_weight(&t->rows[i]))
			idx[(*n)++] = i;
	order_of = t;
	qsort(idx, *n, sizeof(*idx), heavier);
	return idx;
}

char *stack_frame_label(const struct stack_frame *f, bool with_line)
{
	const char *file;

	if (!f->function && f->module)
		return xasprintf("[%s+0x%llx]", f->module,
				 (unsigned long long)f->offset);
	if (!f->function)
		return xstrdup("[unknown]");
	/* stackcollapse-perf.pl --inline marks inlined calls so. */
	if (!with_line)
		return xasprintf("%s%s", f->function, f->inlined ? "_[i]" : "");
	if (!f->file || !f->line)
		return xasprintf("%s%s", f->function,
				 f->inlined ? " (inlined)" : "");
	file = path_base_name(f->file);
	return xasprintf("%s (%s:%u%s)", f->function, file, f->line,
			 f->inlined ? ", inlined" : "");
}
