// SPDX-License-Identifier: GPL-2.0
/*
 * --format folded: one line per stack, "comm;frame;frame count", the input
 * of flamegraph.pl, inferno and speedscope.  Without --libc the stacks are
 * kernel events (comm;stat;/etc/localtime, comm;clock_gettime;CLOCK_...),
 * weighed by count; with --libc they are C library calls under their call
 * sites (comm;do_work (prog.c:42);localtime), weighed by calls.
 */
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "report.h"
#include "util.h"

struct stack {
	char *frames;
	uint64_t count;
};

struct stacks {
	struct stack *v;
	size_t n;
};

/* Escaped so that neither ';' (the separator) nor a byte the program chose
 * can end a frame or a line: "\x3b" for ';', \xNN for the unprintable. */
static void frame(char *dst, size_t size, const char *src)
{
	char esc[512];
	size_t o = 0;

	escape_bytes(esc, sizeof(esc), src, strlen(src));
	for (const char *p = esc; *p && o + 5 < size; p++) {
		if (*p == ';') {
			memcpy(dst + o, "\\x3b", 4);
			o += 4;
		} else {
			dst[o++] = *p;
		}
	}
	dst[o] = '\0';
}

/* Adds count to the stack "a;b;c", merging equal stacks (sorted later). */
static void add_stack(struct stacks *s, uint64_t count, const char *a,
		      const char *b, const char *c)
{
	char fa[600], fb[600], fc[600], *line;

	if (!count)
		return;
	frame(fa, sizeof(fa), a);
	frame(fb, sizeof(fb), b);
	frame(fc, sizeof(fc), c ? c : "");
	line = c ? xasprintf("%s;%s;%s", fa, fb, fc) : xasprintf("%s;%s", fa, fb);
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
		const char *base = strrchr(c->source, '/');
		size_t len = strcspn(base ? base + 1 : c->source, " ");

		out = xasprintf("%s (%.*s)", fn, (int)len,
				base ? base + 1 : c->source);
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

static int by_frames(const void *a, const void *b)
{
	return strcmp(((const struct stack *)a)->frames,
		      ((const struct stack *)b)->frames);
}

void report_folded(FILE *f, const struct model *m)
{
	struct stacks s = {};

	for (size_t i = 0; i < m->nprocs; i++) {
		if (m->libc_enabled)
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
