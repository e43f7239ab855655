// SPDX-License-Identifier: GPL-2.0
/*
 * The HTML report: the same model as the text and JSON reports.  Numbers
 * carry data-* attributes with their exact values, so that a test can hold
 * the rendered page against the JSON of the same run.
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/wait.h>

#include "hist.h"
#include "html.h"
#include "report.h"
#include "report_html.h"
#include "roles.h"
#include "util.h"

#define HTML_PROCS_MAX	500
#define HTML_ARGS_MAX	64

static const char style[] =
	":root{--tz:#c2410c;--clk:#1d4ed8;--fg:#1f2328;--mute:#57606a;--line:#d0d7de}\n"
	"body{font:15px/1.45 'DejaVu Sans',system-ui,sans-serif;color:var(--fg);"
	"max-width:1100px;margin:0 auto;padding:1em 1.5em}\n"
	"h1{font-size:1.5em;margin:.2em 0}h2{font-size:1.2em;margin:1.4em 0 .4em;"
	"border-bottom:1px solid var(--line);padding-bottom:.2em}\n"
	"code,td.mono,.cmd{font-family:'DejaVu Sans Mono',monospace;font-size:.9em}\n"
	"dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.1em 1em;margin:.5em 0}\n"
	"dl.facts dt{color:var(--mute)}dl.facts dd{margin:0;min-width:0}\n"
	/* A 200-byte path breaks anywhere rather than widen the page. */
	"td.mono,dd,code,.message,.fix{overflow-wrap:anywhere}\n"
	"table{border-collapse:collapse;margin:.4em 0}th,td{padding:.15em .6em;"
	"border-bottom:1px solid var(--line);text-align:left;vertical-align:top}\n"
	"td.num,th.num{text-align:right;font-variant-numeric:tabular-nums;"
	"white-space:nowrap}\n"
	"caption{text-align:left;color:var(--mute);font-size:.9em;caption-side:top}\n"
	"table.histtable caption{white-space:nowrap}td.range{font-size:.8em;"
	"color:var(--mute)}#compare-table{font-size:.9em}\n"
	".tz{fill:var(--tz)}.clk{fill:var(--clk)}.before{fill:#6e7781}.after{fill:#1a7f37}\n"
	"svg.chart{max-width:100%;height:auto;font-size:12px;display:block;margin:.4em 0}\n"
	"svg.chart text{fill:var(--fg)}svg .axis{stroke:var(--mute)}\n"
	"svg.flame text{font:11px 'DejaVu Sans Mono',monospace;fill:#1f2328}"
	"svg.flame text.on-dark{fill:#fff}svg.flame g.frame:hover rect{stroke:#1f2328}\n"
	"svg .bucket{fill:var(--clk)}svg.cellbar{vertical-align:middle;margin-left:.4em}\n"
	".finding{border-left:4px solid var(--tz);padding:.3em .8em;margin:.6em 0;"
	"background:#fff8f1}.finding.info{border-color:var(--clk);background:#f3f7ff}\n"
	".finding .fix{font-weight:600}.verdict{font-size:1.15em;font-weight:600}\n"
	".warn{color:#9a3412;font-weight:600}.note{color:var(--mute)}\n"
	"@media print{body{max-width:none;font-size:11pt}section{break-inside:avoid}"
	"a{color:inherit}}\n";

static void page_head(FILE *f, const struct model *m)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src "
	      "'none'; style-src 'unsafe-inline'\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>clocktrace ", f);
	html_text(f, m->mode);
	for (int i = 0; i < m->ncommand && i < 8; i++) {
		fputc(' ', f);
		html_textn(f, m->command[i], 200);
	}
	fprintf(f, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style);
}

static void fact(FILE *f, const char *name, const char *id, const char *value)
{
	fprintf(f, "<dt>%s</dt><dd id=\"%s\">", name, id);
	html_text(f, value);
	fputs("</dd>\n", f);
}

static void fact_u64(FILE *f, const char *name, const char *id, uint64_t v)
{
	char s[32];

	fprintf(f, "<dt>%s</dt><dd id=\"%s\" data-value=\"%llu\">%s</dd>\n", name,
		id, (unsigned long long)v, fmt_count(s, sizeof(s), v));
}

static void header_command(FILE *f, const struct model *m)
{
	int i;

	fputs("<dt>Command</dt><dd id=\"command\" class=\"cmd\">", f);
	for (i = 0; i < m->ncommand && i < HTML_ARGS_MAX; i++) {
		if (i)
			fputc(' ', f);
		html_textn(f, m->command[i], 512);
	}
	if (i < m->ncommand)
		fprintf(f, " ... (%d more arguments)", m->ncommand - i);
	fputs("</dd>\n", f);
}

static void header(FILE *f, const struct model *m)
{
	char d[32], when[64];
	time_t now = time(NULL);
	struct tm tm;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%d %H:%M:%S UTC", &tm);
	fprintf(f, "<header>\n<h1>clocktrace %s</h1>\n<dl class=\"facts\">\n",
		m->mode);
	if (m->ncommand)
		header_command(f, m);
	fprintf(f, "<dt>Duration</dt><dd id=\"duration\" data-value=\"%llu\">%s</dd>\n",
		(unsigned long long)model_duration_ns(m),
		fmt_duration(d, sizeof(d), model_duration_ns(m)));
	fact_u64(f, "Processes", "processes", m->nprocs);
	fact_u64(f, "Kernel events", "events", model_events(m));
	fact_u64(f, "Not recorded", "lost", model_lost(m));
	if (m->has_exit) {
		snprintf(d, sizeof(d), m->exit_signal ? "killed by signal %d" :
			 "exit %d", m->exit_signal ? m->exit_signal : m->exit_code);
		fact(f, "PROG", "exit", d);
	}
	fact(f, "Clocksource", "clocksource",
	     m->clocksource[0] ? m->clocksource : "unknown");
	fact(f, "C library probes", "libc", m->libc_enabled ? "on (--libc)" : "off");
	fact(f, "Written", "written", when);
	fact(f, "clocktrace", "version", CLOCKTRACE_VERSION);
	fputs("</dl>\n</header>\n", f);
}

/* As the text report says it: what the finding costs, what the fix saves. */
static void finding_cost(FILE *f, const struct finding_cost *c)
{
	char k[32], r[32], sv[32];

	if (!c->known)
		return;
	fprintf(f, "<p class=\"cost\" data-kernel-ns=\"%llu\" data-saving-ns=\"%llu\">"
		"Cost: %s in the kernel (%s/s, %.1f%% of a CPU)",
		(unsigned long long)c->kernel_ns, (unsigned long long)c->saving_ns,
		fmt_duration(k, sizeof(k), c->kernel_ns),
		fmt_duration(r, sizeof(r), c->per_second_ns), c->cpu_percent);
	if (c->saving_ns)
		fprintf(f, "; the fix saves at least %s",
			fmt_duration(sv, sizeof(sv), c->saving_ns));
	fputs("</p>\n", f);
}

static void findings_section(FILE *f, const struct findings *fs)
{
	fprintf(f, "<section id=\"findings\">\n<h2>Findings (%zu)</h2>\n", fs->n);
	if (!fs->n)
		fputs("<p>None: no repeated time-zone reads and no clock syscalls "
		      "worth a change.</p>\n", f);
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *fd = &fs->v[i];

		fprintf(f, "<div class=\"finding %s\" data-id=\"", fd->severity);
		html_text(f, fd->id);
		fputs("\"><div><strong>[", f);
		html_text(f, fd->severity);
		fputs("] ", f);
		html_text(f, fd->id);
		fputs("</strong> pids", f);
		for (size_t k = 0; k < fd->npids && k < 16; k++)
			fprintf(f, " %d", fd->pids[k]);
		if (fd->npids > 16)
			fprintf(f, " (+%zu more)", fd->npids - 16);
		fputs("</div>\n<p class=\"message\">", f);
		html_text(f, fd->message);
		fputs("</p>\n", f);
		finding_cost(f, &fd->cost);
		fputs("<p class=\"fix\">Fix: ", f);
		html_text(f, fd->fix);
		fputs("</p>\n", f);
		if (fd->runtime_fix) {
			fprintf(f, "<p class=\"fix\">Fix in %s: ", fd->runtime);
			html_text(f, fd->runtime_fix);
			fputs("</p>\n", f);
		}
		fputs("</div>\n", f);
	}
	fputs("</section>\n", f);
}

static void exit_cell(FILE *f, const struct proc_model *p)
{
	if (!p->exited)
		fputs("<td>running</td>", f);
	else if (WIFSIGNALED(p->exit_status))
		fprintf(f, "<td>signal %d</td>", WTERMSIG(p->exit_status));
	else
		fprintf(f, "<td class=\"num\">%d</td>", WEXITSTATUS(p->exit_status));
}

struct tree_ctx {
	FILE *f;
	const struct model *m;
	uint64_t max_tz, max_clk;
	size_t rows;
};

static void count_cell(FILE *f, const char *cls, uint64_t v, uint64_t max)
{
	char s[32];

	fprintf(f, "<td class=\"num %s\" data-value=\"%llu\">%s", cls,
		(unsigned long long)v, fmt_count(s, sizeof(s), v));
	html_cell_bar(f, v, max, cls);
	fputs("</td>", f);
}

static void proc_row(struct tree_ctx *t, const struct proc_model *p,
		     unsigned int depth)
{
	FILE *f = t->f;

	fprintf(f, "<tr data-pid=\"%d\" data-depth=\"%u\"><td class=\"num\">%d</td>"
		"<td class=\"num\">%d</td><td class=\"mono\" style=\"padding-left:%.1fem\">",
		p->pid, p->depth, p->pid, p->ppid, 0.6 + 1.2 * (depth > 20 ? 20 : depth));
	if (depth)
		fputs("\u2514 ", f);
	html_text(f, p->comm);
	fputs("</td>", f);
	count_cell(f, "tz", proc_tz_accesses(p), t->max_tz);
	count_cell(f, "clk", proc_clock_syscalls(p), t->max_clk);
	exit_cell(f, p);
	fputs("<td class=\"mono\">", f);
	html_long_text(f, p->exe ? p->exe : "", HTML_PATH_MAX);
	fputs("</td></tr>\n", f);
}

/* Depth first, children by pid; bounded rows bound the recursion too. */
static void subtree(struct tree_ctx *t, const struct proc_model *p,
		    unsigned int depth)
{
	if (t->rows >= HTML_PROCS_MAX)
		return;
	t->rows++;
	proc_row(t, p, depth);
	for (size_t i = 0; i < t->m->nprocs; i++) {
		const struct proc_model *c = &t->m->procs[i];

		if (c->ppid == p->pid && c != p && c->depth > 0)
			subtree(t, c, depth + 1);
	}
}

static void processes_section(FILE *f, const struct model *m)
{
	struct tree_ctx t = { .f = f, .m = m };

	for (size_t i = 0; i < m->nprocs; i++) {
		uint64_t tz = proc_tz_accesses(&m->procs[i]);
		uint64_t clk = proc_clock_syscalls(&m->procs[i]);

		t.max_tz = tz > t.max_tz ? tz : t.max_tz;
		t.max_clk = clk > t.max_clk ? clk : t.max_clk;
	}
	fputs("<section id=\"processes\">\n<h2>Processes</h2>\n<table id=\"proctree\">\n"
	      "<caption>The process tree (indented by depth); the bars compare each "
	      "process's time-zone file accesses and clock syscalls that entered "
	      "the kernel with the busiest process's.</caption>\n<thead><tr>"
	      "<th class=\"num\">PID</th><th class=\"num\">PPID</th><th>Command</th>"
	      "<th class=\"num\">TZ accesses</th><th class=\"num\">Clock syscalls</th>"
	      "<th>Exit</th><th>Image</th></tr></thead>\n<tbody>\n", f);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		if (p->depth == 0 || !model_find(m, p->ppid))
			subtree(&t, p, 0);
	}
	fputs("</tbody>\n</table>\n", f);
	if (m->nprocs > t.rows)
		fprintf(f, "<p class=\"note\">%zu more processes not shown.</p>\n",
			m->nprocs - t.rows);
	fputs("</section>\n", f);
}

static void group_row(FILE *f, const char *name, const struct role_group *g)
{
	uint64_t n = g->procs ? g->procs : 1;
	char c[4][32];

	fprintf(f, "<tr data-role=\"%s\"><th>%s</th><td class=\"num\">%llu</td>"
		"<td class=\"num\" data-value=\"%llu\">%s</td><td class=\"num\">%s</td>"
		"<td class=\"num\" data-value=\"%llu\">%s</td><td class=\"num\">%s</td>"
		"</tr>\n", name, name, (unsigned long long)g->procs,
		(unsigned long long)g->tz, fmt_count(c[0], sizeof(c[0]), g->tz),
		fmt_count(c[1], sizeof(c[1]), (g->tz + n / 2) / n),
		(unsigned long long)g->clock, fmt_count(c[2], sizeof(c[2]), g->clock),
		fmt_count(c[3], sizeof(c[3]), (g->clock + n / 2) / n));
}

/* The busiest process tree with children (roles.h): its forker is the parent. */
static void parent_children_section(FILE *f, const struct model *m)
{
	const struct role_group *g[2] = { NULL, NULL };
	struct html_bar bars[4];
	struct proc_trees trees;

	roles_build(m, &trees);
	for (size_t i = 0; i < trees.n && !g[0]; i++)
		if (trees.v[i].children.procs) {
			g[0] = &trees.v[i].parent;
			g[1] = &trees.v[i].children;
		}
	if (!g[0]) {
		roles_free(&trees);
		return;
	}
	fputs("<section id=\"parent-children\">\n<h2>Parent versus children</h2>\n", f);
	bars[0] = (struct html_bar){ "parent: tz accesses",
		g[0]->tz / g[0]->procs, "tz", NULL };
	bars[1] = (struct html_bar){ "per child: tz accesses",
		g[1]->tz / g[1]->procs, "tz", NULL };
	bars[2] = (struct html_bar){ "parent: clock syscalls",
		g[0]->clock / g[0]->procs, "clk", NULL };
	bars[3] = (struct html_bar){ "per child: clock syscalls",
		g[1]->clock / g[1]->procs, "clk", NULL };
	html_bar_chart(f, "fig-pvc", "Parent versus children, per process",
		       "Time-zone file accesses and clock syscalls of the parent "
		       "against the average child; the table below has the totals",
		       bars, 4, "");
	fputs("<table id=\"pvc\"><thead><tr><th></th><th class=\"num\">Processes</th>"
	      "<th class=\"num\">TZ accesses</th><th class=\"num\">per process</th>"
	      "<th class=\"num\">Clock syscalls</th><th class=\"num\">per process</th>"
	      "</tr></thead>\n<tbody>\n", f);
	group_row(f, "parent", g[0]);
	group_row(f, "children", g[1]);
	fputs("</tbody></table>\n</section>\n", f);
	roles_free(&trees);
}

/* The bounds in the unit of the figure above it. */
static void hist_table(FILE *f, const char *kind, const struct latency *l)
{
	struct html_unit u = html_hist_unit(l->hist);
	char lo[32], hi[32];

	fprintf(f, "<table class=\"histtable\" data-kind=\"%s\"><caption>%s(): "
		"calls per latency bucket</caption><thead><tr><th class=\"num\">"
		"from (%s)</th><th class=\"num\">to (%s)</th><th class=\"num\">"
		"calls</th></tr></thead><tbody>\n", kind, kind, u.name, u.name);
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!l->hist[i])
			continue;
		fprintf(f, "<tr><td class=\"num\">%s</td><td class=\"num\">%s</td>"
			"<td class=\"num\">%llu</td></tr>\n",
			html_fmt_whole_in(lo, sizeof(lo), hist_slot_lo(i), u),
			html_fmt_whole_in(hi, sizeof(hi), hist_slot_hi(i), u),
			(unsigned long long)l->hist[i]);
	}
	fputs("</tbody></table>\n", f);
}

static void latency_section(FILE *f, const struct model *m)
{
	bool any = false;

	for (int k = 0; k < KIND_MAX; k++) {
		struct latency all = {};
		char id[48], title[128], avg[32];

		for (size_t i = 0; i < m->nprocs; i++)
			latency_add(&all, &m->procs[i].kinds[k]);
		if (!all.count)
			continue;
		if (!any)
			fputs("<section id=\"latency\">\n<h2>Latency</h2>\n", f);
		any = true;
		snprintf(id, sizeof(id), "hist-%s", kind_name(k));
		snprintf(title, sizeof(title), "%s() %s: %llu calls, %llu errors, "
			 "average %s", kind_name(k), kind_is_tz(k) ?
			 "of time-zone files" : "syscalls",
			 (unsigned long long)all.count, (unsigned long long)all.errors,
			 fmt_duration(avg, sizeof(avg), (double)all.total_ns / all.count));
		fprintf(f, "<h3>%s</h3>\n", title);
		html_histogram(f, id, title, kind_name(k), all.hist);
		hist_table(f, kind_name(k), &all);
	}
	if (any)
		fputs("</section>\n", f);
}

struct tz_path_row {
	const struct proc_model *p;
	const struct tz_path_stat *t;
};

static int by_count(const void *a, const void *b)
{
	const struct tz_path_row *x = a, *y = b;

	if (x->t->count != y->t->count)
		return (x->t->count < y->t->count) - (x->t->count > y->t->count);
	return (x->p->pid > y->p->pid) - (x->p->pid < y->p->pid);
}

static void tz_path_row(FILE *f, const struct tz_path_row *r)
{
	char c[32], e[32];

	fprintf(f, "<tr><td class=\"num\">%d</td><td>%s</td><td class=\"num\" "
		"data-value=\"%llu\">%s</td><td class=\"num\">%s</td><td "
		"class=\"mono\">", r->p->pid, kind_name(r->t->kind),
		(unsigned long long)r->t->count,
		fmt_count(c, sizeof(c), r->t->count),
		fmt_count(e, sizeof(e), r->t->errors));
	html_long_text(f, r->t->path, HTML_PATH_MAX);
	fputs("</td></tr>\n", f);
}

/* Per process and path, the most accessed first. */
static void tz_paths_section(FILE *f, const struct model *m)
{
	struct tz_path_row *v;
	size_t n = 0, all = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		all += m->procs[i].npaths;
	if (!all)
		return;
	v = xcalloc(all, sizeof(*v));
	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t k = 0; k < m->procs[i].npaths; k++)
			v[n++] = (struct tz_path_row){ &m->procs[i],
						       &m->procs[i].paths[k] };
	qsort(v, n, sizeof(*v), by_count);
	fputs("<section id=\"tz-paths\">\n<h2>Time-zone file accesses</h2>\n"
	      "<table id=\"tz-path-table\"><thead><tr><th class=\"num\">PID</th>"
	      "<th>Operation</th><th class=\"num\">Count</th><th class=\"num\">"
	      "Errors</th><th>Path</th></tr></thead><tbody>\n", f);
	for (size_t i = 0; i < n && i < HTML_PROCS_MAX; i++)
		tz_path_row(f, &v[i]);
	fputs("</tbody></table>\n", f);
	if (n > HTML_PROCS_MAX)
		fprintf(f, "<p class=\"note\">%zu more rows not shown.</p>\n",
			n - HTML_PROCS_MAX);
	fputs("</section>\n", f);
	free(v);
}

static void losses_section(FILE *f, const struct model *m)
{
	if (!model_any_loss(m))
		return;
	fputs("<section id=\"losses\">\n<h2>Not recorded</h2>\n<table><tbody>\n", f);
	for (int i = 0; i < LOSS_MAX; i++)
		if (m->losses[i])
			fprintf(f, "<tr><th>%s</th><td class=\"num\">%llu</td></tr>\n",
				loss_name(i), (unsigned long long)m->losses[i]);
	fputs("</tbody></table>\n</section>\n", f);
}

void report_html(FILE *f, const struct model *m, const struct findings *fs,
		 const struct compare *cmp, const struct timeline *tl)
{
	page_head(f, m);
	header(f, m);
	fputs("<main>\n", f);
	if (cmp)
		html_compare_section(f, cmp);
	findings_section(f, fs);
	processes_section(f, m);
	parent_children_section(f, m);
	tz_paths_section(f, m);
	latency_section(f, m);
	if (m->libc_enabled)
		html_libc_section(f, m);
	if (m->lang_enabled)
		html_lang_section(f, m);
	html_stacks_section(f, m);
	if (tl && tl->n)
		html_timeline_section(f, tl);
	losses_section(f, m);
	fputs("</main>\n</body>\n</html>\n", f);
	fflush(f);
}
