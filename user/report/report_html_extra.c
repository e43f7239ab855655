// SPDX-License-Identifier: GPL-2.0
/* The HTML report's optional sections: --compare, -i timeline, --libc. */
#include <stdlib.h>
#include <string.h>

#include "html.h"
#include "report_html.h"
#include "runtime.h"
#include "util.h"

#define TIMELINE_LINES	8
#define TL_W		640
#define TL_H		220
#define TL_LEFT		60
#define LIBC_SITES	20
#define LANG_SITES	100

/* The one unit of the table and the chart: the longest figure's. */
static struct html_unit compare_unit(const struct compare *c)
{
	uint64_t max = 0;

	for (int r = 0; r < ROLE_MAX; r++)
		for (int v = 0; v < VARIANT_MAX; v++) {
			const struct compare_side *s = &c->side[r][v];

			max = s->wall.max > max ? s->wall.max : max;
			max = s->cpu.max > max ? s->cpu.max : max;
		}
	return html_unit_of(max);
}

static void figure_cells(FILE *f, const struct compare_figure *x,
			 struct html_unit u)
{
	char a[32], b[32], c[32];

	fprintf(f, "<td class=\"num\" data-value=\"%llu\">%s</td>"
		"<td class=\"num range\">%s \u2013 %s</td>", (unsigned long long)x->median,
		html_fmt_in(a, sizeof(a), x->median, u),
		html_fmt_in(b, sizeof(b), x->min, u),
		html_fmt_in(c, sizeof(c), x->max, u));
}

static void compare_row(FILE *f, const struct compare *c, enum compare_role r,
			enum compare_variant v, struct html_unit u)
{
	const struct compare_side *s = &c->side[r][v];
	char n[2][32];

	fprintf(f, "<tr data-role=\"%s\" data-variant=\"%s\"><th>%s</th><td>%s</td>"
		"<td class=\"num\">%u</td>", compare_role_name(r),
		compare_variant_name(v), compare_role_name(r),
		compare_variant_name(v), s->processes);
	figure_cells(f, &s->wall, u);
	figure_cells(f, &s->cpu, u);
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

static void compare_chart(FILE *f, const struct compare *c, struct html_unit u)
{
	struct html_bar bars[2 * ROLE_MAX];
	char labels[2 * ROLE_MAX][48], texts[2 * ROLE_MAX][32];
	char title[96], desc[256];
	size_t n = 0;

	for (int r = 0; r < ROLE_MAX; r++) {
		if (r != ROLE_ALL && !c->side[r][VARIANT_BEFORE].processes)
			continue;
		for (int v = 0; v < VARIANT_MAX; v++, n++) {
			uint64_t ns = c->side[r][v].wall.median;

			snprintf(labels[n], sizeof(labels[n]), "%s, %s",
				 compare_role_name(r), compare_variant_name(v));
			bars[n] = (struct html_bar){ labels[n], ns,
				v == VARIANT_BEFORE ? "before" : "after",
				html_fmt_in(texts[n], sizeof(texts[n]), ns, u) };
		}
	}
	snprintf(title, sizeof(title), "Median wall time before and after the "
		 "fix (%s)", u.name);
	snprintf(desc, sizeof(desc), "Median wall time in %s of PROG as it is "
		 "(grey) and with the fix (green), for all processes and per "
		 "role; the table below has every figure", u.name);
	html_bar_chart(f, "fig-compare", title, desc, bars, n, u.name);
}

void html_compare_section(FILE *f, const struct compare *c)
{
	struct html_unit u = compare_unit(c);

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
	compare_chart(f, c, u);
	fprintf(f, "<table id=\"compare-table\"><thead><tr><th>Role</th>"
		"<th>Variant</th><th class=\"num\">Procs</th><th class=\"num\">"
		"Wall (%s)</th><th class=\"num\">min \u2013 max (%s)</th><th "
		"class=\"num\">CPU (%s)</th><th class=\"num\">min \u2013 max (%s)"
		"</th><th class=\"num\">TZ accesses</th><th class=\"num\">Clock "
		"syscalls</th><th class=\"num\">Speed-up</th></tr></thead>\n"
		"<tbody>\n", u.name, u.name, u.name, u.name);
	for (int r = 0; r < ROLE_MAX; r++) {
		if (r != ROLE_ALL && !c->side[r][VARIANT_BEFORE].processes)
			continue;
		compare_row(f, c, r, VARIANT_BEFORE, u);
		compare_row(f, c, r, VARIANT_AFTER, u);
	}
	fputs("</tbody></table>\n</section>\n", f);
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

/* "do_work+0x28" (the symbol), "-" when the file has none. */
static void site_caller_cell(FILE *f, const struct caller_stat *c)
{
	fputs("<td class=\"mono\">", f);
	if (c->symbol)
		html_long_text(f, c->symbol, HTML_PATH_MAX);
	else
		fputs("\u2013", f);
	fputs("</td>", f);
}

/* "date_core.so+0x107f8", as the text report names a site; the run's
 * address only where the file offset is unknown. */
static void site_module_cell(FILE *f, const struct caller_stat *c)
{
	fputs("<td class=\"mono\">", f);
	html_long_text(f, c->module ? c->module : "unknown", HTML_PATH_MAX);
	if (c->has_offset)
		fprintf(f, "+0x%llx", (unsigned long long)c->offset);
	else
		fprintf(f, " at 0x%llx", (unsigned long long)c->addr);
	fputs("</td>", f);
}

static void libc_site_row(FILE *f, const struct site_sum *s)
{
	char n[32];

	fprintf(f, "<tr data-fn=\"%s\"><td class=\"mono\">%s()</td><td "
		"class=\"num\" data-value=\"%llu\">%s</td><td class=\"num\">%u"
		"</td>", libc_fn_name(s->c->fn), libc_fn_name(s->c->fn),
		(unsigned long long)s->calls, fmt_count(n, sizeof(n), s->calls),
		s->procs);
	site_caller_cell(f, s->c);
	site_module_cell(f, s->c);
	fputs("<td class=\"mono\">", f);
	html_long_text(f, s->c->source ? s->c->source : "", HTML_PATH_MAX);
	fputs("</td></tr>\n", f);
}

/* Merged over processes and sorted as the text report's "Top call sites". */
static void libc_sites(FILE *f, const struct model *m)
{
	struct site_sum *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t k = 0; k < m->procs[i].ncallers; k++)
			site_sum_add(&v, &n, &m->procs[i].callers[k]);
	site_sums_sort(v, n);
	fputs("<table id=\"libc-sites\"><caption>Call sites, the same code of "
	      "the same file counted once over all processes, most calls first"
	      "</caption><thead><tr><th>Function</th><th class=\"num\">Calls</th>"
	      "<th class=\"num\">Processes</th><th>Caller</th><th>Module+offset"
	      "</th><th>Source</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n && i < LIBC_SITES; i++)
		libc_site_row(f, &v[i]);
	fputs("</tbody></table>\n", f);
	if (n > LIBC_SITES)
		fprintf(f, "<p class=\"note\">%zu more call sites (the JSON "
			"report lists them all).</p>\n", n - LIBC_SITES);
	free(v);
}

struct fn_total {
	uint32_t fn;
	struct libc_stats s;
};

/* Most calls first, ties in the text report's order (the enum's). */
static int by_fn_calls(const void *a, const void *b)
{
	const struct fn_total *x = a, *y = b;

	if (x->s.calls != y->s.calls)
		return (x->s.calls < y->s.calls) - (x->s.calls > y->s.calls);
	return (x->fn > y->fn) - (x->fn < y->fn);
}

void html_libc_section(FILE *f, const struct model *m)
{
	struct fn_total all[LIBC_FN_MAX - 1] = {};

	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
		all[fn - 1].fn = fn;
		for (size_t i = 0; i < m->nprocs; i++) {
			const struct libc_stats *s = proc_libc(&m->procs[i], fn);

			all[fn - 1].s.calls += s->calls;
			all[fn - 1].s.tz_accesses += s->tz_accesses;
			all[fn - 1].s.clock_syscalls += s->clock_syscalls;
		}
	}
	qsort(all, LIBC_FN_MAX - 1, sizeof(all[0]), by_fn_calls);
	fputs("<section id=\"libc\">\n<h2>C library calls (--libc)</h2>\n<table "
	      "id=\"libc-fns\"><caption>Calls of the C library's time functions and "
	      "the kernel events made inside them, all processes, most calls "
	      "first</caption><thead><tr><th>Function</th><th class=\"num\">Calls"
	      "</th><th class=\"num\">TZ accesses inside</th><th class=\"num\">"
	      "Clock syscalls inside</th></tr></thead><tbody>\n", f);
	for (uint32_t i = 0; i < LIBC_FN_MAX - 1 && all[i].s.calls; i++)
		libc_fn_row(f, all[i].fn, &all[i].s);
	fputs("</tbody></table>\n", f);
	libc_sites(f, m);
	fputs("</section>\n", f);
}

static void lang_site_row(FILE *f, const struct line_sum *s)
{
	const struct lang_site_stat *l = s->l;
	char tz[32], clk[32], *name;

	fprintf(f, "<tr data-line=\"%u\"><td>%s</td><td class=\"mono\">",
		l->line, lang_name(l->lang));
	html_long_text(f, l->file, HTML_PATH_MAX);
	fprintf(f, ":%u</td><td class=\"mono\">", l->line);
	name = runtime_method_name(l);
	html_text(f, name);
	free(name);
	fprintf(f, "</td><td class=\"mono\">%s%s</td>", l->libc_fn ?
		libc_fn_name(l->libc_fn) : "", l->libc_fn ? "()" : "");
	fprintf(f, "<td class=\"num\" data-value=\"%llu\">%s</td><td class="
		"\"num\" data-value=\"%llu\">%s</td><td class=\"num\">%u</td>"
		"</tr>\n", (unsigned long long)s->tz,
		fmt_count(tz, sizeof(tz), s->tz), (unsigned long long)s->clock,
		fmt_count(clk, sizeof(clk), s->clock), s->procs);
}

/* Merged over processes and sorted as the text report's SCRIPT LINES. */
void html_lang_section(FILE *f, const struct model *m)
{
	struct line_sum *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t k = 0; k < m->procs[i].nlang_sites; k++)
			line_sum_add(&v, &n, &m->procs[i].lang_sites[k]);
	line_sums_sort(v, n);
	fputs("<section id=\"lang\">\n<h2>Script lines (--lang)</h2>\n<table "
	      "id=\"lang-sites\"><caption>Kernel events under the Ruby method "
	      "call or Python line running, the same line counted once over all "
	      "processes, most events first</caption><thead><tr><th>Language</th>"
	      "<th>Line</th><th>In</th><th>C library call</th><th class=\"num\">"
	      "TZ accesses</th><th class=\"num\">Clock syscalls</th><th class="
	      "\"num\">Processes</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n && i < LANG_SITES; i++)
		lang_site_row(f, &v[i]);
	fputs("</tbody></table>\n", f);
	if (n > LANG_SITES)
		fprintf(f, "<p class=\"note\">%zu more lines (the JSON report "
			"lists them all).</p>\n", n - LANG_SITES);
	fputs("</section>\n", f);
	free(v);
}
