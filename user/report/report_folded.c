// SPDX-License-Identifier: GPL-2.0
/*
 * --format folded: one line per stack, "comm;frame;frame count", the input
 * of flamegraph.pl, inferno and speedscope.  Without --libc the stacks are
 * kernel events (comm;stat;/etc/localtime, comm;clock_gettime;CLOCK_...),
 * weighed by count; with --libc they are C library calls under their call
 * sites (comm;do_work (prog.c:42);localtime), weighed by calls; with --lang
 * kernel events under script lines (comm;w.rb:4 Time#localtime;tzset;tz).
 */
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "escape.h"
#include "report.h"
#include "runtime.h"
#include "stack.h"
#include "util.h"

struct stack {
	char *frames;
	uint64_t count;
};

struct stacks {
	struct stack *v;
	size_t n;
};

/*
 * Escaped (escape.h) so that neither ';' (the separator) nor a byte the
 * program chose can end a frame or a line: "\x3b" for ';'.  Whole: a cut
 * frame would merge two stacks.  Returns a malloc'd string.
 */
static char *frame(const char *src)
{
	char *esc = escape_dup(src, ESCAPE_TEXT);
	char *out = xcalloc(4 * strlen(esc) + 1, 1);
	size_t o = 0;

	for (const char *p = esc; *p; p++) {
		if (*p == ';') {
			memcpy(out + o, "\\x3b", 4);
			o += 4;
		} else {
			out[o++] = *p;
		}
	}
	free(esc);
	return out;
}

/* Adds count to the stack of n frames, merging equal stacks. */
static void add_frames(struct stacks *s, uint64_t count,
		       const char *const *frames, size_t n)
{
	char *f, *line, *more;

	if (!count)
		return;
	line = xstrdup("");
	for (size_t i = 0; i < n; i++) {
		f = frame(frames[i]);
		more = xasprintf("%s%s%s", line, i ? ";" : "", f);
		free(f);
		free(line);
		line = more;
	}
	for (size_t i = 0; i < s->n; i++) {
		if (!strcmp(s->v[i].frames, line)) {
			s->v[i].count += count;
			free(line);
			return;
		}
	}
	s->v = xrealloc(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = (struct stack){ line, count };
}

/* The stack "a;b;c", or "a;b" when c is NULL. */
static void add_stack(struct stacks *s, uint64_t count, const char *a,
		      const char *b, const char *c)
{
	const char *frames[] = { a, b, c };

	add_frames(s, count, frames, c ? 3 : 2);
}

static void add_kernel_stacks(struct stacks *s, const struct proc_model *p)
{
	char name[64];

	for (size_t i = 0; i < p->npaths; i++)
		add_stack(s, p->paths[i].count, p->comm,
			  kind_name(p->paths[i].kind), p->paths[i].path);
	for (size_t i = 0; i < p->nclockids; i++)
		add_stack(s, p->clockids[i].count, p->comm, "clock_gettime",
			  clock_name(p->clockids[i].clockid, name, sizeof(name)));
	add_stack(s, p->kinds[KIND_GETTIMEOFDAY].count, p->comm,
		  "gettimeofday", NULL);
	add_stack(s, p->kinds[KIND_TIME].count, p->comm, "time", NULL);
}

/* "do_work (prog.c:42)": the function and the base name of its line. */
static char *site_frame(const struct caller_stat *c)
{
	const char *mod = c->module ? c->module : "?";
	char *fn, *plus, *out;

	fn = c->symbol ? xstrdup(c->symbol) :
	     xasprintf("%s+0x%llx", mod, (unsigned long long)(c->has_offset ?
							    c->offset : c->addr));
	plus = c->symbol ? strchr(fn, '+') : NULL;
	if (plus)
		*plus = '\0';
	if (!c->source) {
		out = xasprintf("%s (%s)", fn, mod);
	} else {
		const char *base = path_base_name(c->source);

		out = xasprintf("%s (%.*s)", fn, (int)strcspn(base, " "), base);
	}
	free(fn);
	return out;
}

static void add_libc_stacks(struct stacks *s, const struct proc_model *p)
{
	for (size_t i = 0; i < p->ncallers; i++) {
		const struct caller_stat *c = &p->callers[i];
		char *site = site_frame(c);

		add_stack(s, c->count, p->comm, site, libc_fn_name(c->fn));
		free(site);
	}
}

/* "w.rb:4 Time#localtime": the script's base name keeps frames short. */
static char *script_frame(const struct lang_site_stat *l)
{
	char *name = runtime_method_name(l);
	char *frame = xasprintf("%s:%u %s", path_base_name(l->file), l->line,
				name);

	free(name);
	return frame;
}

/*
 * "comm;pool.py:12 main;pool.py:5 work;tz": the calling frames outermost
 * first (--lang-depth), "[...]" above them where they are not all known.
 */
static void add_lang_stack(struct stacks *s, const struct proc_model *p,
			   const struct lang_site_stat *l)
{
	const char *frames[LANG_DEPTH_MAX + 5] = { p->comm };
	char *names[LANG_DEPTH_MAX] = { NULL };
	size_t n = 1, k = 0;

	if (l->stack_cut)
		frames[n++] = "[...]";
	for (uint32_t i = l->nouter; i-- > 0 && k < LANG_OUTER_MAX;) {
		names[k] = script_frame(&l->outer[i]);
		frames[n++] = names[k++];
	}
	names[k] = script_frame(l);
	frames[n++] = names[k++];
	if (l->libc_fn)
		frames[n++] = libc_fn_name(l->libc_fn);
	frames[n] = "tz";
	add_frames(s, l->tz_accesses, frames, n + 1);
	frames[n] = "clock";
	add_frames(s, l->clock_syscalls, frames, n + 1);
	while (k-- > 0)
		free(names[k]);
}

static void add_lang_stacks(struct stacks *s, const struct proc_model *p)
{
	for (size_t i = 0; i < p->nlang_sites; i++)
		add_lang_stack(s, p, &p->lang_sites[i]);
}

/* --stacks: "comm;main;do_work;localtime;tzset;...;stat", outermost first. */
static void add_whole_stacks(struct stacks *s, const struct stack_table *t)
{
	for (size_t i = 0; i < t->nrows; i++) {
		const struct stack_row *r = &t->rows[i];
		const char **frames = xcalloc(r->nframes + 2, sizeof(*frames));
		char **labels = xcalloc(r->nframes + 1, sizeof(*labels));
		size_t n = 0;

		frames[n++] = r->comm;
		for (size_t k = r->nframes; k-- > 0;) {
			labels[k] = stack_frame_label(&r->frames[k], false);
			frames[n++] = labels[k];
		}
		frames[n++] = stack_row_event(r);
		add_frames(s, stack_row_weight(r), frames, n);
		for (size_t k = 0; k < r->nframes; k++)
			free(labels[k]);
		free(labels);
		free(frames);
	}
}

static int by_frames(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->frames,
		      ((const struct stack *)b)->frames);
}

void report_folded(FILE *f, const struct model *m)
{
	struct stacks s = {};

	if (m->stacks)
		add_whole_stacks(&s, m->stacks);
	for (size_t i = 0; i < m->nprocs && !m->stacks; i++) {
		if (m->lang_enabled)
			add_lang_stacks(&s, &m->procs[i]);
		else if (m->libc_enabled)
			add_libc_stacks(&s, &m->procs[i]);
		else
			add_kernel_stacks(&s, &m->procs[i]);
	}
	if (s.n)
		qsort(s.v, s.n, sizeof(*s.v), by_frames);
	for (size_t i = 0; i < s.n; i++) {
		fprintf(f, "%s %llu\n", s.v[i].frames,
			(unsigned long long)s.v[i].count);
		free(s.v[i].frames);
	}
	free(s.v);
}
