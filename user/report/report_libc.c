// SPDX-License-Identifier: GPL-2.0
/* The --libc section of the text report: library calls and what they cost. */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "report.h"
#include "util.h"


#define TOP_CALLERS	5
#define TOP_PROCS	3

static bool observable(const struct model *m, uint32_t fn)
{
	uint8_t how = m->libc.probe[fn];

	return how & (LIBC_PROBE_EMULATED | LIBC_PROBE_STEPPED);
}

static void sum_stats(struct libc_stats *dst, const struct libc_stats *src)
{
	dst->calls += src->calls;
	dst->lat.total_ns += src->lat.total_ns;
	dst->tz_accesses += src->tz_accesses;
	dst->clock_syscalls += src->clock_syscalls;
	dst->kernel_ns += src->kernel_ns;
}

static void print_unseen(FILE *f, const struct model *m, uint32_t fn)
{
	const char *reason = libc_unobservable_reason(m->libc.probe[fn]);

	/* The same words as the JSON report's "reason". */
	if (reason)
		fprintf(f, "  %-14s not observable: %s\n", libc_fn_name(fn),
			reason);
	else if (m->libc.probe[fn] & LIBC_PROBE_ALIAS)
		fprintf(f, "  %-14s the same code as another function above: "
			"its calls are counted there\n", libc_fn_name(fn));
}

static void print_row(FILE *f, const struct model *m, uint32_t fn,
		      const struct libc_stats *s, bool all)
{
	char calls[32], avg[32], tz[32], clk[32], share[16] = "-";
	bool timed = libc_fn_timed(fn);

	if (!observable(m, fn)) {
		if (all)
			print_unseen(f, m, fn);
		return;
	}
	if (!s->calls)
		return;
	if (timed && s->lat.total_ns)
		snprintf(share, sizeof(share), "%.0f%%",
			 100.0 * s->kernel_ns / s->lat.total_ns);
	if (timed)
		fmt_duration(avg, sizeof(avg), (double)s->lat.total_ns / s->calls);
	else
		snprintf(avg, sizeof(avg), "(counted)");
	fprintf(f, "  %-14s %12s %11s %12s %8.2f %14s %8s\n", libc_fn_name(fn),
		fmt_count(calls, sizeof(calls), s->calls), avg,
		fmt_count(tz, sizeof(tz), s->tz_accesses),
		(double)s->tz_accesses / s->calls,
		fmt_count(clk, sizeof(clk), s->clock_syscalls), share);
}

static void print_table(FILE *f, const struct model *m,
			const struct libc_stats *stats, bool all)
{
	fprintf(f, "  %-14s %12s %11s %12s %8s %14s %8s\n", "FUNCTION", "CALLS",
		"AVG(+PROBE)", "TZ ACCESSES", "PER CALL", "CLOCK SYSCALLS",
		"KERNEL");
	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++)
		print_row(f, m, fn, &stats[fn], all);
}

static uint64_t proc_libc_calls(const struct proc_model *p)
{
	uint64_t n = 0;

	for (int fn = 1; fn < LIBC_FN_MAX; fn++)
		n += proc_libc(p, fn)->calls;
	return n;
}

static int by_calls(const void *a, const void *b)
{
	uint64_t x = proc_libc_calls(*(struct proc_model *const *)a);
	uint64_t y = proc_libc_calls(*(struct proc_model *const *)b);

	return (x < y) - (x > y);
}

static void print_per_process(FILE *f, const struct model *m)
{
	struct proc_model **v = xcalloc(m->nprocs, sizeof(*v));

	for (size_t i = 0; i < m->nprocs; i++)
		v[i] = &m->procs[i];
	qsort(v, m->nprocs, sizeof(*v), by_calls);
	for (size_t i = 0; i < m->nprocs && i < TOP_PROCS; i++) {
		if (!proc_libc_calls(v[i]))
			break;
		fprintf(f, "\n  pid %d ", v[i]->pid);
		escape_print(f, v[i]->comm, ESCAPE_TEXT);
		fputs(":\n", f);
		print_table(f, m, v[i]->libc, false);
	}
	free(v);
}

/*
 * Call sites over all processes: the same code of the same file is one
 * site however many processes ran it.
 */
static size_t gather_sites(const struct model *m, struct site_sum **out)
{
	struct site_sum *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		for (size_t j = 0; j < m->procs[i].ncallers; j++)
			site_sum_add(&v, &n, &m->procs[i].callers[j]);
	*out = v;
	return n;
}

static void print_sites(FILE *f, const struct model *m)
{
	struct site_sum *v;
	size_t n = gather_sites(m, &v);

	if (!n)
		return;
	site_sums_sort(v, n);
	fprintf(f, "\n  Top call sites:\n");
	for (size_t i = 0; i < n && i < TOP_CALLERS; i++) {
		char cnt[32], *where = caller_site_words(v[i].c);

		fprintf(f, "  %12s  %-14s ", fmt_count(cnt, sizeof(cnt),
			v[i].calls), libc_fn_name(v[i].c->fn));
		/* Symbol, file and source names come from the program's files. */
		escape_print(f, where, ESCAPE_TEXT);
		free(where);
		if (v[i].procs > 1)
			fprintf(f, " [%u processes]", v[i].procs);
		fputc('\n', f);
	}
	free(v);
}

static void print_absent(FILE *f, const struct model *m)
{
	bool any = false;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		if (p->libc_state != LIBC_STATE_ABSENT)
			continue;
		if (!any)
			fprintf(f, "\n  No C library to probe (static binary "
				"or a runtime without libc):");
		any = true;
		fprintf(f, " %d ", p->pid);
		escape_print(f, p->comm, ESCAPE_TEXT);
	}
	if (any)
		fputc('\n', f);
}

/* Hits x measured cost; nested calls (tzset inside mktime) not included. */
static void print_overhead(FILE *f, const struct model *m,
			   const struct libc_stats *all)
{
	double ns = 0;
	uint64_t hits = 0;
	char d[32], h[32];

	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
		uint8_t how = m->libc.probe[fn];
		uint64_t n = all[fn].calls;

		hits += n;
		ns += n * (double)(how & LIBC_PROBE_STEPPED ? HIT_NS_STEPPED :
				   HIT_NS_EMULATED);
		if (libc_fn_timed(fn))
			ns += n * (double)HIT_NS_RETURN;
	}
	fprintf(f, "\n  Probe overhead: ~%s added to the program (%s calls "
		"probed; %.1f us per emulated entry, %.1f us single-stepped, "
		"%.1f us per return)\n", fmt_duration(d, sizeof(d), ns),
		fmt_count(h, sizeof(h), hits), HIT_NS_EMULATED / 1e3,
		HIT_NS_STEPPED / 1e3, HIT_NS_RETURN / 1e3);
}

/* Processes whose counts miss the calls made before a late probe. */
static void print_late_pids(FILE *f, const struct model *m)
{
	size_t shown = 0, late = 0;

	for (size_t i = 0; i < m->nprocs; i++) {
		if (!m->procs[i].libc_late)
			continue;
		if (!late++)
			fputs("  counts incomplete (a library was probed after "
			      "they started) for pid", f);
		if (shown++ < 8)
			fprintf(f, " %d", m->procs[i].pid);
	}
	if (late > shown)
		fprintf(f, " (+%zu more)", late - shown);
	if (late)
		fputc('\n', f);
}

static void print_placement(FILE *f, const struct model *m)
{
	bool any = false;

	fprintf(f, "  %u librar%s probed with %s%s", m->libc.libs,
		m->libc.libs == 1 ? "y" : "ies",
		libc_links_name(m->libc.links), m->libc.systemwide ?
		", trapping in every process on the machine" :
		" of each traced process (nothing else traps)");
	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
		if (!(m->libc.probe[fn] & LIBC_PROBE_STEPPED))
			continue;
		fprintf(f, "%s%s", any ? ", " : "; single-stepped (slow): ",
			libc_fn_name(fn));
		any = true;
	}
	fprintf(f, "%s\n", any ? "" : "; all on emulated instructions");
	if (m->libc.late_libs)
		fprintf(f, "  %u librar%s first seen in a running process: "
			"calls made before that were not seen\n",
			m->libc.late_libs, m->libc.late_libs == 1 ? "y" : "ies");
	print_late_pids(f, m);
}

void report_libc_text(FILE *f, const struct model *m)
{
	struct libc_stats all[LIBC_FN_MAX];

	memset(all, 0, sizeof(all));
	for (size_t i = 0; i < m->nprocs; i++)
		for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++)
			sum_stats(&all[fn], proc_libc(&m->procs[i], fn));
	fprintf(f, "\nC library time calls (--libc): timed = entry and return "
		"probes, (counted) = entry only\n");
	/* The entry program reads the clock before the probed instruction
	 * is stepped, the return program after the return's trap. */
	fprintf(f, "  AVG(+PROBE) includes the probes' own traps (~%.1f us per "
		"return), not only the function's time\n", HIT_NS_RETURN / 1e3);
	print_placement(f, m);
	print_table(f, m, all, true);
	if (m->nprocs > 1)
		print_per_process(f, m);
	print_sites(f, m);
	print_absent(f, m);
	print_overhead(f, m, all);
}
