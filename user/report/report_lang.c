// SPDX-License-Identifier: GPL-2.0
/* The --lang section of the text report: kernel events by script line. */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "runtime.h"
#include "util.h"

#define TOP_LINES	10

static int by_events(const void *a, const void *b)
{
	const struct line_sum *x = a, *y = b;
	uint64_t nx = x->tz + x->clock, ny = y->tz + y->clock;

	return (nx < ny) - (nx > ny);
}

/* " < pool.py:12 main": a calling frame, by its file's base name. */
static void print_outer(FILE *f, const struct lang_site_stat *o)
{
	char *name = runtime_method_name(o);

	fputs(" < ", f);
	escape_print(f, path_base_name(o->file), ESCAPE_TEXT);
	fprintf(f, ":%u ", o->line);
	escape_print(f, name, ESCAPE_TEXT);
	free(name);
}

/*
 * "w.rb:4 in Time#localtime -> tzset < w.rb:9 work" or "pool.py:8 in
 * task < pool.py:12 main", escaped; " < ..." where the callers are not
 * all known.
 */
static void print_where(FILE *f, const struct lang_site_stat *s)
{
	char *name = runtime_method_name(s);

	escape_print(f, s->file, ESCAPE_TEXT);
	fprintf(f, ":%u in ", s->line);
	escape_print(f, name, ESCAPE_TEXT);
	free(name);
	if (s->libc_fn)
		fprintf(f, " -> %s", libc_fn_name(s->libc_fn));
	for (uint32_t i = 0; i < s->nouter; i++)
		print_outer(f, &s->outer[i]);
	if (s->stack_cut)
		fputs(" < ...", f);
}

static void print_rows(FILE *f, struct line_sum *v, size_t n)
{
	qsort(v, n, sizeof(*v), by_events);
	fprintf(f, "  %12s %14s  %-6s  %s\n", "TZ-ACCESSES", "CLOCK-SYSCALLS",
		"LANG", "SCRIPT LINE");
	for (size_t i = 0; i < n && i < TOP_LINES; i++) {
		char tz[32], clk[32];

		fprintf(f, "  %12s %14s  %-6s  ",
			fmt_count(tz, sizeof(tz), v[i].tz),
			fmt_count(clk, sizeof(clk), v[i].clock),
			lang_name(v[i].l->lang));
		print_where(f, v[i].l);
		if (v[i].procs > 1)
			fprintf(f, " [%u processes]", v[i].procs);
		fputc('\n', f);
	}
	if (n > TOP_LINES)
		fprintf(f, "  ... %zu more lines (--json lists them all)\n",
			n - TOP_LINES);
}

/* Counted, not dropped: the events of threads with no frame read. */
static void print_unattributed(FILE *f, const struct lang_run *r)
{
	const char *sep = "";

	fprintf(f, "  frames: %llu events tied to no line (",
		(unsigned long long)lang_unattributed_total(r));
	for (int i = 0; i < LANG_UN_MAX; i++) {
		if (!r->unattributed[i])
			continue;
		fprintf(f, "%s%s %llu", sep, lang_unattributed_name(i),
			(unsigned long long)r->unattributed[i]);
		sep = ", ";
	}
	fprintf(f, ")\n");
}

void report_lang_text(FILE *f, const struct model *m)
{
	struct line_sum *v = NULL;
	size_t n = 0;

	fprintf(f, "\nSCRIPT LINES (--lang): kernel events under the Ruby method "
		"call or Python line running, < the calls that led there\n");
	fprintf(f, "  %u interpreter file%s probed by USDT, %u read for "
		"frames%s%s\n", m->lang.files, m->lang.files == 1 ? "" : "s",
		m->lang.py_frame_files + m->lang.rb_frame_files,
		m->lang.failed ? "; " : "", m->lang.failed ? m->lang.error : "");
	fprintf(f, "  ruby: %s, python: %s\n", lang_ruby_mechanism(&m->lang),
		lang_python_mechanism(&m->lang));
	if (m->lang.py_lines_unknown)
		fprintf(f, "  python: %llu events at a line past the copied "
			"location table (shown as line 0)\n",
			(unsigned long long)m->lang.py_lines_unknown);
	if (lang_unattributed_total(&m->lang))
		print_unattributed(f, &m->lang);
	/* Measured on the reference machine; see README, "--lang". */
	fprintf(f, "  cost while traced: Ruby 3.1 and Python 3.11-3.13 frames "
		"read at each event (~1 us per event, nothing per method call "
		"or line); by USDT each Ruby C-method call traps twice (Time.now "
		"~40x slower), each Python line once (~270x)\n");
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].nlang_sites; j++)
			stack_sum_add(&v, &n, &m->procs[i].lang_sites[j]);
	if (n)
		print_rows(f, v, n);
	else
		fprintf(f, "  none: no kernel event happened under a probed "
			"Ruby or Python frame\n");
	free(v);
}
