// SPDX-License-Identifier: GPL-2.0
/* The HTML report's optional sections: --compare, -i timeline, --libc. */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report_html.h"
#include "util.h"

#define TIMELINE_LINES	8
#define TL_W		640
#define TL_H		220
#define TL_LEFT		60
#define LIBC_SITES	20
#define LANG_SITES	100

static void figure_cells(FILE *f, const struct compare_figure *x)
{
	char a[32], b[32], c[32];

	fprintf(f, "<td class=\"num\" data-value=\"%llu\">%s</td>"
		"<td class=\"num range\">%s \u2013 %s</td>", (unsigned long long)x->median,
		fmt_duration(a, sizeof(a), x->median),
		fmt_duration(b, sizeof(b), x->min), fmt_duration(c, sizeof(c), x->max));
}

static void compare_row(FILE *f, const struct compare *c, enum compare_role r,
			enum compare_variant v)
{
	const struct compare_side *s = &c->side[r][v];
	char n[2][32];

	fprintf(f, "<tr data-role=\"%s\" data-variant=\"%s\"><th>%s</th><td>%s</td>"
		"<td class=\"num\">%u</td>", compare_role_name(r),
		compare_variant_name(v), compare_role_name(r),
		compare_variant_name(v), s->processes);
	figure_cells(f, &s->wall);
	figure_cells(f, &s->cpu);
	fprintf(f, "<td class=\"num\" data-value=\"%llu\">%s</td>"
		"<td class=\"num\" data-value=\"%llu\">%s</td>",
		(unsigned long long)s->tz_accesses,
		fmt_count(n[0], sizeof(n[0]), s->tz_accesses),
		(unsigned long long)s->clock_syscalls,
		fmt_count(n[1], sizeof(n[1]), s->clock_syscalls));
	if (v == VARIANT_BEFORE)
		fprintf(f, "<td class=\"num speedup\" rowspan=\"2\" data-value=\"%.4f\">"
			"%.2fx</td>", compare_speedup(c, r), compare_speedup(c, r));
	fputs("</tr>\n", f);
}

static void compare_chart(FILE *f, const struct compare *c)
{
	struct html_bar bars[2 * ROLE_MAX];
	char labels[2 * ROLE_MAX][48];
	size_t n = 0;

	for (int r = 0; r < ROLE_MAX; r++) {
		if (r != ROLE_ALL && !c->side[r][VARIANT_BEFORE].processes)
			continue;
		for (int v = 0; v < VARIANT_MAX; v++, n++) {
			snprintf(labels[n], sizeof(labels[n]), "%s, %s",
				 compare_role_name(r), compare_variant_name(v));
			/* In microseconds: the bars need no finer grain. */
			bars[n] = (struct html_bar){ labels[n],
				c->side[r][v].wall.median / 1000,
				v == VARIANT_BEFORE ? "before" : "after" };
		}
	}
	html_bar_chart(f, "fig-compare", "Median wall time before and after the fix",
		       "Median wall time in microseconds of PROG as it is (grey) and "
		       "with the fix (green), for all processes and per role; the "
		       "table below has every figure", bars, n, "us");
}

void html_compare_section(FILE *f, const struct compare *c)
{
	fputs("<section id=\"compare\">\n<h2>With the fix</h2>\n<p class=\"verdict\" "
	      "id=\"verdict\">", f);
	html_text(f, c->verdict);
	fprintf(f, "</p>\n<p class=\"note\">PROG as it is, then with");
	for (size_t i = 0; i < c->nfix; i++) {
		fputs(" <code>", f);
		html_text(f, c->fix[i]);
		fputs("</code>", f);
	}
	fprintf(f, ": %u timed run%s of each, alternating, without the syscall "
		"probes (times: median and min\u2013max); counts from one traced "
		"run of each.</p>\n", c->repeat, c->repeat == 1 ? "" : "s");
	for (size_t i = 0; i < c->npreset; i++) {
		fputs("<p class=\"note preset\">PROG as it is already had <code>", f);
		html_text(f, c->preset[i]);
		fputs("</code> in its environment.</p>\n", f);
	}
	if (c->exit_differs)
		fputs("<p class=\"warn\">Warning: PROG's exit status differs between "
		      "the two variants.</p>\n", f);
	if (c->stdout_differs)
		fputs("<p class=\"warn\">Warning: PROG's standard output differs "
		      "between the two variants.</p>\n", f);
	else if (c->stdout_varies)
		fputs("<p class=\"note\">PROG's standard output changes from run to "
		      "run, so it was not compared.</p>\n", f);
	compare_chart(f, c);
	fputs("<div class=\"wide\"><table id=\"compare-table\"><thead><tr><th>Role</th>"
	      "<th>Variant</th><th class=\"num\">Procs</th><th class=\"num\">Wall</th><th "
	      "class=\"num\">min \u2013 max</th><th class=\"num\">CPU</th><th "
	      "class=\"num\">min \u2013 max</th><th class=\"num\">TZ accesses</th>"
	      "<th class=\"num\">Clock syscalls</th><th class=\"num\">Speed-up</th>"
	      "</tr></thead>\n<tbody>\n", f);
	for (int r = 0; r < ROLE_MAX; r++) {
		if (r != ROLE_ALL && !c->side[r][VARIANT_BEFORE].processes)
			continue;
		compare_row(f, c, r, VARIANT_BEFORE);
		compare_row(f, c, r, VARIANT_AFTER);
	}
	fputs("</tbody></table></div>\n</section>\n", f);
}

static int by_total(const void *a, const void *b)
{
	const struct timeline_proc *x = *(struct timeline_proc *const *)a;
	const struct timeline_proc *y = *(struct timeline_proc *const *)b;

	return (x->total < y->total) - (x->total > y->total);
}

static const char *const line_colors[TIMELINE_LINES] = {
	"#c2410c", "#1d4ed8", "#1a7f37", "#8250df", "#bf3989", "#0a7ea4",
	"#6e7781", "#9a6700",
};

static void timeline_svg(FILE *f, const struct timeline *tl,
			 struct timeline_proc **top, size_t n)
{
	uint64_t max = 1;
	double dx = tl->n > 1 ? (double)(TL_W - TL_LEFT - 10) / (tl->n - 1) : 0;

	for (size_t i = 0; i < n; i++)
		for (size_t k = 0; k < tl->n; k++)
			max = top[i]->events[k] > max ? top[i]->events[k] : max;
	fprintf(f, "<svg class=\"chart timeline\" id=\"fig-timeline\" role=\"img\" "
		"viewBox=\"0 0 %d %d\" width=\"%d\" height=\"%d\" aria-labelledby="
		"\"fig-timeline-t fig-timeline-d\">\n<title id=\"fig-timeline-t\">"
		"Kernel events per interval</title>\n<desc id=\"fig-timeline-d\">"
		"Time-zone accesses and clock syscalls per interval for the %zu "
		"busiest processes over %zu intervals; the table below has the "
		"numbers</desc>\n", TL_W, TL_H + 30, TL_W, TL_H + 30, n, tl->n);
	fprintf(f, "<line class=\"axis\" x1=\"%d\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>"
		"<text x=\"%d\" y=\"14\" text-anchor=\"end\">%llu</text>\n",
		TL_LEFT, TL_H, TL_W - 10, TL_H, TL_LEFT - 4, (unsigned long long)max);
	for (size_t i = 0; i < n; i++)
		fprintf(f, "<text x=\"%d\" y=\"%d\" text-anchor=\"end\" "
			"fill=\"%s\" style=\"fill:%s\">\u25a0 %d</text>\n", TL_W - 10,
			14 + 14 * (int)i, line_colors[i], line_colors[i], top[i]->pid);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<polyline fill=\"none\" stroke-width=\"2\" stroke=\"%s\" "
			"data-pid=\"%d\" points=\"", line_colors[i], top[i]->pid);
		for (size_t k = 0; k < tl->n; k++)
			fprintf(f, "%.1f,%.1f ", TL_LEFT + k * dx, TL_H -
				(double)top[i]->events[k] / max * (TL_H - 20));
		fputs("\"/>\n", f);
	}
	fprintf(f, "<text x=\"%d\" y=\"%d\">%.2f s</text><text x=\"%d\" y=\"%d\" "
		"text-anchor=\"end\">%.2f s</text>\n</svg>\n", TL_LEFT, TL_H + 18,
		tl->end_ns[0] / 1e9, TL_W - 10, TL_H + 18, tl->end_ns[tl->n - 1] / 1e9);
}

static void timeline_table(FILE *f, const struct timeline *tl,
			   struct timeline_proc **top, size_t n)
{
	fputs("<table id=\"timeline-table\"><caption>Kernel events per interval "
	      "and process (colours as in the figure)</caption><thead><tr><th "
	      "class=\"num\">Interval end</th>", f);
	for (size_t i = 0; i < n; i++) {
		fprintf(f, "<th class=\"num\" data-pid=\"%d\"><span style=\"color:%s\">"
			"\u25a0</span> %d ", top[i]->pid, line_colors[i], top[i]->pid);
		html_text(f, top[i]->comm);
		fputs("</th>", f);
	}
	fputs("</tr></thead>\n<tbody>\n", f);
	for (size_t k = 0; k < tl->n; k++) {
		fprintf(f, "<tr><td class=\"num\">%.2f s</td>", tl->end_ns[k] / 1e9);
		for (size_t i = 0; i < n; i++)
			fprintf(f, "<td class=\"num\">%llu</td>",
				(unsigned long long)top[i]->events[k]);
		fputs("</tr>\n", f);
	}
	fputs("</tbody></table>\n", f);
}

void html_timeline_section(FILE *f, const struct timeline *tl)
{
	struct timeline_proc **top = xcalloc(tl->nprocs + 1, sizeof(*top));
	size_t n = tl->nprocs < TIMELINE_LINES ? tl->nprocs : TIMELINE_LINES;

	for (size_t i = 0; i < tl->nprocs; i++)
		top[i] = &tl->procs[i];
	qsort(top, tl->nprocs, sizeof(*top), by_total);
	fprintf(f, "<section id=\"timeline\">\n<h2>Timeline</h2>\n");
	if (!n)
		fputs("<p>No kernel events in any interval.</p>\n", f);
	else {
		timeline_svg(f, tl, top, n);
		timeline_table(f, tl, top, n);
	}
	fputs("</section>\n", f);
	free(top);
}

static void libc_fn_row(FILE *f, uint32_t fn, const struct libc_stats *s)
{
	fprintf(f, "<tr data-fn=\"%s\"><td class=\"mono\">%s()</td><td class=\"num\">"
		"%llu</td><td class=\"num\">%llu</td><td class=\"num\">%llu</td></tr>\n",
		libc_fn_name(fn), libc_fn_name(fn), (unsigned long long)s->calls,
		(unsigned long long)s->tz_accesses,
		(unsigned long long)s->clock_syscalls);
}

static void libc_sites(FILE *f, const struct model *m)
{
	size_t shown = 0;

	fputs("<table id=\"libc-sites\"><caption>Call sites (return addresses), per "
	      "process</caption><thead><tr><th class=\"num\">PID</th><th>Function"
	      "</th><th class=\"num\">Calls</th><th>Caller</th><th>Module</th>"
	      "<th>Source</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < m->nprocs && shown < LIBC_SITES; i++) {
		const struct proc_model *p = &m->procs[i];

		for (size_t k = 0; k < p->ncallers && shown < LIBC_SITES; k++, shown++) {
			const struct caller_stat *c = &p->callers[k];

			fprintf(f, "<tr><td class=\"num\">%d</td><td class=\"mono\">%s()"
				"</td><td class=\"num\">%llu</td><td class=\"mono\">",
				p->pid, libc_fn_name(c->fn), (unsigned long long)c->count);
			if (c->symbol)
				html_text(f, c->symbol);
			else
				fprintf(f, "0x%llx", (unsigned long long)c->addr);
			fputs("</td><td class=\"mono\">", f);
			html_text(f, c->module ? c->module : "unknown");
			fputs("</td><td class=\"mono\">", f);
			html_text(f, c->source ? c->source : "");
			fputs("</td></tr>\n", f);
		}
	}
	fputs("</tbody></table>\n", f);
}

void html_libc_section(FILE *f, const struct model *m)
{
	struct libc_stats all[LIBC_FN_MAX] = {};

	for (size_t i = 0; i < m->nprocs; i++)
		for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
			const struct libc_stats *s = proc_libc(&m->procs[i], fn);

			all[fn].calls += s->calls;
			all[fn].tz_accesses += s->tz_accesses;
			all[fn].clock_syscalls += s->clock_syscalls;
		}
	fputs("<section id=\"libc\">\n<h2>C library calls (--libc)</h2>\n<table "
	      "id=\"libc-fns\"><caption>Calls of the C library's time functions and "
	      "the kernel events made inside them, all processes</caption><thead><tr>"
	      "<th>Function</th><th class=\"num\">Calls</th><th class=\"num\">TZ "
	      "accesses inside</th><th class=\"num\">Clock syscalls inside</th></tr>"
	      "</thead><tbody>\n", f);
	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++)
		if (all[fn].calls)
			libc_fn_row(f, fn, &all[fn]);
	fputs("</tbody></table>\n", f);
	libc_sites(f, m);
	fputs("</section>\n", f);
}

static void lang_site_row(FILE *f, const struct proc_model *p,
			  const struct lang_site_stat *l)
{
	fprintf(f, "<tr data-line=\"%u\"><td class=\"num\">%d</td><td>%s</td>"
		"<td class=\"mono\">", l->line, p->pid, lang_name(l->lang));
	html_text(f, l->file);
	fprintf(f, ":%u</td><td class=\"mono\">", l->line);
	if (l->cls) {
		html_text(f, l->cls);
		fputc('#', f);
	}
	html_text(f, l->func);
	fprintf(f, "</td><td class=\"num\" data-value=\"%llu\">%llu</td>"
		"<td class=\"num\" data-value=\"%llu\">%llu</td></tr>\n",
		(unsigned long long)l->tz_accesses,
		(unsigned long long)l->tz_accesses,
		(unsigned long long)l->clock_syscalls,
		(unsigned long long)l->clock_syscalls);
}

void html_lang_section(FILE *f, const struct model *m)
{
	size_t shown = 0;

	fputs("<section id=\"lang\">\n<h2>Script lines (--lang)</h2>\n<table "
	      "id=\"lang-sites\"><caption>Kernel events under the Ruby method "
	      "call or Python line running, per process</caption><thead><tr>"
	      "<th class=\"num\">PID</th><th>Language</th><th>Line</th><th>In</th>"
	      "<th class=\"num\">TZ accesses</th><th class=\"num\">Clock "
	      "syscalls</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < m->nprocs && shown < LANG_SITES; i++)
		for (size_t k = 0; k < m->procs[i].nlang_sites &&
		     shown < LANG_SITES; k++, shown++)
			lang_site_row(f, &m->procs[i], &m->procs[i].lang_sites[k]);
	fputs("</tbody></table>\n</section>\n", f);
}
