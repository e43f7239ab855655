// SPDX-License-Identifier: GPL-2.0
/* Rows of whole stacks and their weights: see stack.h. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"
#include "runtime.h"
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
	for (size_t i = 0; i < t->nchains; i++)
		lang_site_free(&t->chains[i]);
	free(t->chains);
	memset(t, 0, sizeof(*t));
}

uint32_t stack_table_chain(struct stack_table *t,
			   const struct lang_site_stat *s)
{
	for (size_t i = 0; i < t->nchains; i++)
		if (lang_same_stack(&t->chains[i], s))
			return (uint32_t)i + 1;
	t->chains = xrealloc(t->chains, t->nchains + 1, sizeof(*t->chains));
	lang_site_copy(&t->chains[t->nchains++], s);
	return (uint32_t)t->nchains;
}

static void script_frame(struct stack_frame *f, const struct lang_site_stat *s)
{
	f->function = runtime_method_name(s);
	f->file = xstrdup(s->file ? s->file : "?");
	f->line = s->line;
	f->lang = s->lang;
}

size_t stack_script_frames(const struct lang_site_stat *s,
			   struct stack_frame **out)
{
	*out = xcalloc(s->nouter + 1, sizeof(**out));
	script_frame(&(*out)[0], s);
	for (uint32_t i = 0; i < s->nouter; i++)
		script_frame(&(*out)[1 + i], &s->outer[i]);
	return s->nouter + 1;
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

/* by_process's first keys: what weigh_uncopied() looks up. */
static int by_pid_kind(const void *a, const void *b)
{
	const struct stack_share *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->kind < y->kind ? -1 : x->kind > y->kind;
}

static int by_process(const void *a, const void *b)
{
	const struct stack_share *x = a, *y = b;

	return by_pid_kind(a, b) ?: (x->row < y->row ? -1 : x->row > y->row);
}

static void add_class_weight(struct stack_row *r, uint32_t cls, uint64_t w)
{
	if (cls == STACK_CLASS_TZ)
		r->tz_accesses += w;
	else
		r->clock_syscalls += w;
}

static void add_weight(struct stack_row *r, uint32_t kind, uint64_t w)
{
	add_class_weight(r, stack_class_of(kind), w);
}

/*
 * The row of the events that had no copy: of processes none of whose
 * events had one (chain 0), or of a --lang chain none of whose had one
 * (its script frames alone).
 */
static size_t uncopied_row(struct stack_table *t, uint32_t chain)
{
	struct stack_row *r;

	for (size_t i = 0; i < t->nrows; i++)
		if (t->rows[i].kind == KIND_MAX && t->rows[i].chain == chain)
			return i;
	r = stack_table_add(t);
	r->kind = KIND_MAX;
	r->chain = chain;
	if (chain)
		r->nframes = stack_script_frames(&t->chains[chain - 1],
						 &r->frames);
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

/* A process once in a row's processes, whatever its kinds or classes. */
static void count_process(struct stack_row *r, pid_t pid)
{
	if (r->counted == pid)
		return;
	r->counted = pid;
	r->processes++;
}

/* s is sorted by process first: a row's marker holds through its shares. */
static void count_processes(struct stack_table *t, const struct stack_share *s,
			    size_t n)
{
	for (size_t i = 0; i < n; i++)
		count_process(&t->rows[s[i].row], s[i].pid);
}

static void weigh_uncopied(struct stack_table *t, const struct model *m,
			   const struct stack_share *s, size_t n)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (uint32_t kind = 0; kind < KIND_MAX; kind++) {
			struct stack_share key = { .pid = p->pid, .kind = kind };
			uint64_t exact = exact_count(p, kind);
			size_t row;

			/* s is in by_process's order. */
			if (!exact || bsearch(&key, s, n, sizeof(*s), by_pid_kind))
				continue;
			row = uncopied_row(t, 0);
			add_weight(&t->rows[row], kind, exact);
			count_process(&t->rows[row], p->pid);
		}
	}
}

static uint64_t class_count(const struct proc_model *p, uint32_t cls)
{
	uint64_t n = 0;

	for (uint32_t kind = 0; kind < KIND_MAX; kind++)
		if (stack_class_of(kind) == cls)
			n += exact_count(p, kind);
	return n;
}

static uint64_t site_count(const struct lang_site_stat *l, uint32_t cls)
{
	return cls == STACK_CLASS_TZ ? l->tz_accesses : l->clock_syscalls;
}

/* p's events of class cls under a script chain: c, or any (c NULL). */
static uint64_t chain_count(const struct proc_model *p,
			    const struct lang_site_stat *c, uint32_t cls)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nlang_sites; i++)
		if (!c || lang_same_stack(&p->lang_sites[i], c))
			n += site_count(&p->lang_sites[i], cls);
	return n;
}

/* The exact count a group of shares of one process, class and chain weighs. */
static uint64_t chain_exact(const struct stack_table *t,
			    const struct proc_model *p, uint32_t cls,
			    uint32_t chain)
{
	uint64_t all, under;

	if (chain)
		return chain_count(p, &t->chains[chain - 1], cls);
	all = class_count(p, cls);
	under = chain_count(p, NULL, cls);
	return all > under ? all - under : 0;
}

/* by_chain's first keys: what has_share() looks up. */
static int by_pid_class_chain(const void *a, const void *b)
{
	const struct stack_share *x = a, *y = b;
	uint32_t cx = stack_class_of(x->kind), cy = stack_class_of(y->kind);

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	if (cx != cy)
		return cx < cy ? -1 : 1;
	return x->chain < y->chain ? -1 : x->chain > y->chain;
}

static int by_chain(const void *a, const void *b)
{
	return by_pid_class_chain(a, b) ?: by_process(a, b);
}

/* s is in by_chain's order. */
static bool has_share(const struct stack_share *s, size_t n, pid_t pid,
		      uint32_t cls, uint32_t chain)
{
	struct stack_share key = { .pid = pid, .chain = chain };

	/* A kind of class cls: classes compare through their kinds. */
	for (uint32_t kind = 0; kind < KIND_MAX; kind++)
		if (stack_class_of(kind) == cls) {
			key.kind = kind;
			break;
		}
	return bsearch(&key, s, n, sizeof(*s), by_pid_class_chain);
}

static void add_uncopied(struct stack_table *t, const struct proc_model *p,
			 uint32_t chain, uint32_t cls, uint64_t w)
{
	/* uncopied_row() may move the rows: its index first. */
	size_t row = uncopied_row(t, chain);
	struct stack_row *r = &t->rows[row];

	add_class_weight(r, cls, w);
	count_process(r, p->pid);
	if (chain && !r->comm[0])
		snprintf(r->comm, sizeof(r->comm), "%s", p->comm);
}

/* A process's events of a class whose chain, or itself, had no copy. */
static void weigh_uncopied_chains(struct stack_table *t,
				  const struct proc_model *p, uint32_t cls,
				  const struct stack_share *s, size_t n)
{
	uint64_t rest = chain_exact(t, p, cls, 0);

	for (size_t i = 0; i < p->nlang_sites; i++) {
		const struct lang_site_stat *l = &p->lang_sites[i];
		uint32_t chain;

		if (!site_count(l, cls))
			continue;
		chain = stack_table_chain(t, l);
		if (!has_share(s, n, p->pid, cls, chain))
			add_uncopied(t, p, chain, cls, site_count(l, cls));
	}
	if (rest && !has_share(s, n, p->pid, cls, 0))
		add_uncopied(t, p, 0, cls, rest);
}

/*
 * With --lang's sites: the exact count of each (process, class, chain)
 * shared over its copies; the events under no chain, the rest.
 */
static void weigh_by_chain(struct stack_table *t, struct stack_share *s,
			   size_t n, const struct model *m)
{
	qsort(s, n, sizeof(*s), by_chain);
	for (size_t i = 0, j; i < n; i = j) {
		const struct proc_model *p = model_find(m, s[i].pid);
		uint32_t cls = stack_class_of(s[i].kind);

		for (j = i; j < n && s[j].pid == s[i].pid &&
		     stack_class_of(s[j].kind) == cls &&
		     s[j].chain == s[i].chain; j++)
			;
		weigh_group(t, s + i, j - i,
			    p ? chain_exact(t, p, cls, s[i].chain) : 0);
	}
	count_processes(t, s, n);
	for (size_t i = 0; i < m->nprocs; i++)
		for (uint32_t cls = 0; cls < STACK_CLASSES; cls++)
			weigh_uncopied_chains(t, &m->procs[i], cls, s, n);
}

void stack_table_weigh(struct stack_table *t, struct stack_share *s,
		       size_t n, const struct model *m)
{
	for (size_t i = 0; i < t->nrows; i++) {
		t->rows[i].tz_accesses = t->rows[i].clock_syscalls = 0;
		t->rows[i].processes = 0;
		t->rows[i].counted = 0;
		t->rows[i].sampled = false;
	}
	if (m->lang_enabled) {
		weigh_by_chain(t, s, n, m);
		return;
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

const char *stack_row_event(const struct stack_row *r)
{
	if (r->kind < KIND_MAX)
		return kind_name(r->kind);
	return r->nframes ? "[no native stack copied]" : "[no stack copied]";
}

char *stack_frame_label(const struct stack_frame *f, bool with_line)
{
	const char *file;

	if (!f->function && f->module)
		return xasprintf("[%s+0x%llx]", f->module,
				 (unsigned long long)f->offset);
	if (!f->function)
		return xstrdup("[unknown]");
	/* A script's function is known by its file: "work (pool.py)". */
	if (f->lang && !with_line)
		return xasprintf("%s (%s)", f->function,
				 f->file ? path_base_name(f->file) : "?");
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
