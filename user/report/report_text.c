// SPDX-License-Identifier: GPL-2.0
/* The report a person reads on stderr after the run. */
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "escape.h"
#include "hist.h"
#include "report.h"
#include "roles.h"
#include "util.h"

#define DEFAULT_TOP 30
#define HEADER_ARGS_MAX 400	/* bytes of the command line in the header */

uint64_t model_events(const struct model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nprocs; i++)
		n += proc_tz_accesses(&m->procs[i]) +
		     proc_clock_syscalls(&m->procs[i]);
	for (size_t i = 0; i < m->nfolded; i++)
		n += proc_tz_accesses(&m->folded[i]) +
		     proc_clock_syscalls(&m->folded[i]);
	return n;
}

/* The command line, bounded: a program may have 100,000 arguments. */
static void print_command(FILE *f, const struct model *m)
{
	size_t used = 0;
	int i;

	for (i = 0; i < m->ncommand && used < HEADER_ARGS_MAX; i++) {
		char *arg = escape_dup(m->command[i], ESCAPE_TEXT);

		used += fprintf(f, " %s", arg);
		free(arg);
	}
	if (i < m->ncommand)
		fprintf(f, " ... (%d more arguments)", m->ncommand - i);
}

/* Only when an older kernel made us load a fallback: what it changes. */
static void print_fallbacks(FILE *f, const struct model *m)
{
	char list[160];

	if (!m->kernel.release[0])
		return;
	bpf_features_fallbacks(&m->kernel.features, list, sizeof(list));
	if (list[0])
		fprintf(f, "  kernel %s: %s (see clocktrace doctor)\n",
			m->kernel.release, list);
}

static void print_header(FILE *f, const struct model *m)
{
	uint64_t procs = m->nprocs + m->evicted;
	char n1[32], n2[32], d[32];

	fprintf(f, "\nclocktrace %s:", m->mode);
	print_command(f, m);
	fprintf(f, "\n  %s, %llu process%s, %s events, %s lost",
		fmt_duration(d, sizeof(d), model_duration_ns(m)),
		(unsigned long long)procs, procs == 1 ? "" : "es",
		fmt_count(n1, sizeof(n1), model_events(m)),
		fmt_count(n2, sizeof(n2), model_lost(m)));
	if (m->has_exit) {
		if (m->exit_signal)
			fprintf(f, ", killed by signal %d", m->exit_signal);
		else
			fprintf(f, ", exit %d", m->exit_code);
	}
	fprintf(f, "; clocksource %s",
		m->clocksource[0] ? m->clocksource : "unknown");
	if (m->kernel.attach != ATTACH_AUTO)
		fprintf(f, "; syscalls seen by %s",
			attach_mode_name(m->kernel.attach));
	fputc('\n', f);
	print_fallbacks(f, m);
}

static void exit_words(char *buf, size_t size, const struct proc_model *p)
{
	if (!p->exited)
		snprintf(buf, size, "running");
	else if (p->exit_status & 0x7f)
		snprintf(buf, size, "sig %d", p->exit_status & 0x7f);
	else
		snprintf(buf, size, "%d", (p->exit_status >> 8) & 0xff);
}

static void print_proc_row(FILE *f, const struct proc_model *p)
{
	char *comm = escape_dup(p->comm, ESCAPE_TEXT);
	char *exe = escape_dup(p->exe, ESCAPE_TEXT);
	char tz[32], clk[32], ex[16];
	int indent = p->depth < 8 ? p->depth * 2 : 16;

	exit_words(ex, sizeof(ex), p);
	fprintf(f, "  %8d %8d %*s%-*s %12s %14s %8s  %s\n", p->pid, p->ppid,
		indent, "", 18 - indent, comm,
		fmt_count(tz, sizeof(tz), proc_tz_accesses(p)),
		fmt_count(clk, sizeof(clk), proc_clock_syscalls(p)), ex, exe);
	free(comm);
	free(exe);
}

static int by_ppid(const void *a, const void *b)
{
	const struct proc_model *x = *(const struct proc_model **)a;
	const struct proc_model *y = *(const struct proc_model **)b;

	return (x->ppid > y->ppid) - (x->ppid < y->ppid);
}

/* Depth-first, siblings most active first (the order of byact is kept). */
static void print_subtree(FILE *f, struct proc_model **kids, size_t n,
			  const struct proc_model *p, unsigned int *budget,
			  int level)
{
	size_t lo = 0, hi = n;

	if (!*budget || level > 64)
		return;
	print_proc_row(f, p);
	(*budget)--;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (kids[mid]->ppid < p->pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < n && kids[lo]->ppid == p->pid; lo++)
		if (kids[lo]->pid != p->pid && kids[lo]->depth > p->depth)
			print_subtree(f, kids, n, kids[lo], budget, level + 1);
}

static void print_tree(FILE *f, const struct model *m,
		       const struct report_opts *o)
{
	struct proc_model **byact = model_by_activity(m);
	struct proc_model **kids = xcalloc(m->nprocs, sizeof(*kids));
	unsigned int top = o->top_n ? o->top_n : DEFAULT_TOP;
	unsigned int budget = top;

	memcpy(kids, byact, m->nprocs * sizeof(*kids));
	/* qsort is not stable: a merge by ppid that keeps activity order. */
	for (size_t i = 1; i < m->nprocs; i++) {
		struct proc_model *k = kids[i];
		size_t j = i;

		while (j > 0 && by_ppid(&kids[j - 1], &k) > 0) {
			kids[j] = kids[j - 1];
			j--;
		}
		kids[j] = k;
	}
	fprintf(f, "\nPROCESSES (tree, most active first)\n");
	fprintf(f, "  %8s %8s %-18s %12s %14s %8s  %s\n", "PID", "PPID", "COMM",
		"TZ-ACCESSES", "CLOCK-SYSCALLS", "EXIT", "EXE");
	if (m->nprocs > top) {
		for (size_t i = 0; i < m->nprocs && budget; i++)
			print_proc_row(f, byact[i]), budget--;
		fprintf(f, "  ... %zu more processes (--top N shows more)\n",
			m->nprocs - top);
	} else {
		for (size_t i = 0; i < m->nprocs; i++)
			if (!model_find(m, m->procs[i].ppid) ||
			    m->procs[i].depth == 0)
				print_subtree(f, kids, m->nprocs, &m->procs[i],
					      &budget, 0);
	}
	free(kids);
	free(byact);
}

/* A long attach evicts exited processes: their sums per comm. */
static void print_folded(FILE *f, const struct model *m)
{
	char comm[80], a[32], b[32], c[32];

	if (!m->nfolded)
		return;
	fprintf(f, "\nEXITED AND EVICTED (%llu processes, summed per comm)\n",
		(unsigned long long)m->evicted);
	fprintf(f, "  %10s %-18s %12s %14s\n", "PROCESSES", "COMM",
		"TZ-ACCESSES", "CLOCK-SYSCALLS");
	for (size_t i = 0; i < m->nfolded; i++) {
		const struct proc_model *g = &m->folded[i];

		escape_bytes(comm, sizeof(comm), g->comm, strlen(g->comm));
		fprintf(f, "  %10s %-18s %12s %14s\n",
			fmt_count(a, sizeof(a), g->folded), comm,
			fmt_count(b, sizeof(b), proc_tz_accesses(g)),
			fmt_count(c, sizeof(c), proc_clock_syscalls(g)));
	}
}

static void print_group(FILE *f, const char *name, const struct role_group *g)
{
	char a[32], b[32], c[32], d[32], cpu[32] = "-", wall[32];
	double n = g->procs ? g->procs : 1;

	/* CPU time is the kernel's at exit: per process that exited. */
	if (g->cpu_procs)
		fmt_duration(cpu, sizeof(cpu), g->cpu_ns / g->cpu_procs);
	fmt_duration(wall, sizeof(wall), g->wall_ns / n);
	fprintf(f, "  %-10s %9zu %14s %12s %16s %12s %12s %12s\n", name,
		g->procs, fmt_count(a, sizeof(a), g->tz),
		fmt_count(b, sizeof(b), (uint64_t)(g->tz / n + 0.5)),
		fmt_count(c, sizeof(c), g->clock),
		fmt_count(d, sizeof(d), (uint64_t)(g->clock / n + 0.5)), cpu,
		wall);
}

/* "tree of pid 10 (timeout): the parent is pid 11 (tar), below 1 wrapper" */
static void print_tree_line(FILE *f, const struct model *m,
			    const struct proc_tree *t)
{
	const struct proc_model *root = model_find(m, t->root);
	const struct proc_model *forker = model_find(m, t->forker);
	char rc[80], fc[80];

	escape_bytes(rc, sizeof(rc), root->comm, strlen(root->comm));
	escape_bytes(fc, sizeof(fc), forker->comm, strlen(forker->comm));
	fprintf(f, "  tree of pid %d (%s)", t->root, rc);
	if (t->wrappers)
		fprintf(f, ": the parent is pid %d (%s), below %zu wrapper%s "
			"that made no events", t->forker, fc, t->wrappers,
			t->wrappers == 1 ? "" : "s");
	fputc('\n', f);
}

/*
 * One table per process tree with children, the busiest first; the
 * parent is the tree's forker (roles.h), not a wrapper in front of it.
 */
static void print_parent_vs_children(FILE *f, const struct model *m)
{
	struct proc_trees trees;
	size_t shown = 0;

	roles_build(m, &trees);
	for (size_t i = 0; i < trees.n; i++) {
		const struct proc_tree *t = &trees.v[i];

		if (!t->children.procs)
			continue;
		if (!shown++) {
			fprintf(f, "\nPARENT VERSUS CHILDREN\n");
			fprintf(f, "  %-10s %9s %14s %12s %16s %12s %12s %12s\n",
				"", "PROCESSES", "TZ-ACCESSES", "PER-PROCESS",
				"CLOCK-SYSCALLS", "PER-PROCESS", "CPU/PROCESS",
				"WALL/PROCESS");
		}
		if (trees.n > 1 || t->wrappers)
			print_tree_line(f, m, t);
		print_group(f, "parent", &t->parent);
		print_group(f, "children", &t->children);
	}
	roles_free(&trees);
}

/*
 * A process that rewrites a path while the kernel uses it: what was seen
 * changing is not counted above, and a change and change back within one
 * syscall cannot be seen, so its split between paths is not to be trusted.
 */
static void print_tz_changed(FILE *f, const struct model *m)
{
	char n[32];

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		if (!p->tz_changed)
			continue;
		fprintf(f, "  pid %d rewrote the path of %s accesses during "
			"the syscall (tz_path_changed, not counted above); its "
			"split between paths may be off\n", p->pid,
			fmt_count(n, sizeof(n), p->tz_changed));
	}
}

static void print_tz_paths(FILE *f, const struct model *m)
{
	struct tz_path_stat *all = NULL;
	size_t n = 0;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (size_t k = 0; k < p->npaths; k++) {
			size_t j;

			for (j = 0; j < n; j++)
				if (all[j].kind == p->paths[k].kind &&
				    !strcmp(all[j].path, p->paths[k].path))
					break;
			if (j == n) {
				all = xrealloc(all, n + 1, sizeof(*all));
				all[n] = p->paths[k];
				all[n].count = all[n].errors = 0;
				n++;
			}
			all[j].count += p->paths[k].count;
			all[j].errors += p->paths[k].errors;
		}
	}
	if (n) {
		fprintf(f, "\nTIME-ZONE FILE ACCESSES (all processes)\n");
		fprintf(f, "  %-9s %12s %10s  %s\n", "OP", "COUNT", "ERRORS",
			"PATH");
	}
	for (size_t j = 0; j < n; j++) {
		char c[32], e[32];

		fprintf(f, "  %-9s %12s %10s  ", kind_name(all[j].kind),
			fmt_count(c, sizeof(c), all[j].count),
			fmt_count(e, sizeof(e), all[j].errors));
		escape_print(f, all[j].path, ESCAPE_TEXT);
		fputc('\n', f);
	}
	free(all);
	print_tz_changed(f, m);
}

static void print_clockids(FILE *f, const struct model *m)
{
	struct clockid_stat *all = NULL;
	size_t n = 0;
	char name[64], c[32];

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (size_t k = 0; k < p->nclockids; k++) {
			size_t j;

			for (j = 0; j < n; j++)
				if (all[j].clockid == p->clockids[k].clockid)
					break;
			if (j == n) {
				all = xrealloc(all, n + 1, sizeof(*all));
				all[n].clockid = p->clockids[k].clockid;
				all[n++].count = 0;
			}
			all[j].count += p->clockids[k].count;
		}
	}
	if (n)
		fprintf(f, "\nCLOCK IDS READ THROUGH THE KERNEL (clock_gettime)\n");
	for (size_t j = 0; j < n; j++)
		fprintf(f, "  %-28s %12s  %s\n",
			clock_name(all[j].clockid, name, sizeof(name)),
			fmt_count(c, sizeof(c), all[j].count),
			clock_is_cpu(all[j].clockid) ? "(CPU-time clock: always a syscall)" :
			clock_vdso_capable(all[j].clockid) ? "(vDSO-capable)" : "");
	free(all);
}

static void print_latency(FILE *f, const char *title, const struct latency *l)
{
	char avg[32], lo[32], hi[32], c[32];

	if (!l->count)
		return;
	fprintf(f, "\n%s: %s calls, %llu errors, avg %s, min %s, max %s\n",
		title, fmt_count(c, sizeof(c), l->count),
		(unsigned long long)l->errors,
		fmt_duration(avg, sizeof(avg), (double)l->total_ns / l->count),
		fmt_duration(lo, sizeof(lo), l->min_ns),
		fmt_duration(hi, sizeof(hi), l->max_ns));
	print_log2_hist(f, l->hist, HIST_SLOTS, "nsecs");
}

static const char *latency_title(int kind, char *buf, size_t size)
{
	if (kind_is_tz(kind))
		snprintf(buf, size, "LATENCY %s() of time-zone files",
			 kind_name(kind));
	else
		snprintf(buf, size, "LATENCY %s() syscalls", kind_name(kind));
	return buf;
}

static void print_histograms(FILE *f, const struct model *m,
			     const struct report_opts *o)
{
	char title[128];

	for (int k = 0; k < KIND_MAX; k++) {
		struct latency all = {};

		for (size_t i = 0; i < m->nprocs; i++)
			latency_add(&all, &m->procs[i].kinds[k]);
		print_latency(f, latency_title(k, title, sizeof(title)), &all);
	}
	if (!o->per_process)
		return;
	for (size_t i = 0; i < m->nprocs; i++) {
		for (int k = 0; k < KIND_MAX; k++) {
			char t[160];

			snprintf(t, sizeof(t), "%s, pid %d",
				 latency_title(k, title, sizeof(title)),
				 m->procs[i].pid);
			print_latency(f, t, &m->procs[i].kinds[k]);
		}
	}
}

/* Where the environment is set (a unit, an image, a profile): the first. */
static void print_first_place(FILE *f, const struct finding *fd)
{
	if (!fd->nfixes || !strcmp(fd->fixes[0].where, "program"))
		return;
	fprintf(f, "    fix in the %s: ", fd->fixes[0].where);
	/* A unit's name comes from the traced program's cgroup. */
	escape_print(f, fd->fixes[0].how, ESCAPE_TEXT);
	fputc('\n', f);
}

/* "cost: 41 ms in the kernel (20 ms/s, 2.0% of a CPU); fixed: -40 ms" */
static void print_cost(FILE *f, const struct finding_cost *c)
{
	char k[32], r[32], sv[32];

	if (!c->known)
		return;
	fprintf(f, "    cost: %s in the kernel (%s/s, %.1f%% of a CPU)",
		fmt_duration(k, sizeof(k), c->kernel_ns),
		fmt_duration(r, sizeof(r), c->per_second_ns), c->cpu_percent);
	if (c->saving_ns)
		fprintf(f, "; the fix saves at least %s",
			fmt_duration(sv, sizeof(sv), c->saving_ns));
	fputc('\n', f);
}

static void print_findings(FILE *f, const struct findings *fs,
			   const struct model *m)
{
	fprintf(f, "\nFINDINGS\n");
	if (!fs->n)
		fprintf(f, "  none: no repeated time-zone reads and no clock "
			"syscalls worth a change\n");
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *fd = &fs->v[i];

		fprintf(f, "  [%s] %s:", fd->severity, fd->id);
		for (size_t k = 0; k < fd->npids && k < 8; k++)
			fprintf(f, " %d", fd->pids[k]);
		if (fd->npids > 8)
			fprintf(f, " (+%zu more)", fd->npids - 8);
		/* A message quotes paths and symbols of the program. */
		fputs("\n    ", f);
		escape_print(f, fd->message, ESCAPE_TEXT);
		fputc('\n', f);
		if (fd->see)
			fprintf(f, "    cost: counted under %s\n", fd->see);
		print_cost(f, &fd->cost);
		fputs("    fix: ", f);
		escape_print(f, fd->fix, ESCAPE_TEXT);
		fputc('\n', f);
		if (fd->runtime_fix)
			fprintf(f, "    fix in %s: %s\n", fd->runtime,
				fd->runtime_fix);
		print_first_place(f, fd);
		if (!strcmp(fd->id, "tz-repeated-access"))
			report_stacks_text(f, m, STACK_CLASS_TZ, 5);
	}
}

static void print_losses(FILE *f, const struct model *m)
{
	if (!model_any_loss(m))
		return;
	fprintf(f, "\nNOT RECORDED (counted, not silently dropped)\n");
	for (int i = 0; i < LOSS_MAX; i++)
		if (m->losses[i])
			fprintf(f, "  %-26s %llu\n", loss_name(i),
				(unsigned long long)m->losses[i]);
	if (m->losses[LOSS_PROC_MAP_FULL])
		fprintf(f, "  (processes beyond --max-procs were not traced; "
			"raise it to trace them)\n");
}



void report_text(FILE *f, const struct model *m, const struct findings *fs,
		 const struct report_opts *o)
{
	print_header(f, m);
	print_tree(f, m, o);
	print_folded(f, m);
	print_parent_vs_children(f, m);
	print_tz_paths(f, m);
	print_clockids(f, m);
	print_histograms(f, m, o);
	if (m->libc_enabled)
		report_libc_text(f, m);
	if (m->lang_enabled)
		report_lang_text(f, m);
	if (m->vdso_enabled)
		report_vdso_text(f, m);
	print_losses(f, m);
	print_findings(f, fs, m);
	fflush(f);
}

void report_interval_text(FILE *f, const struct model *delta,
			  const struct report_opts *o)
{
	struct proc_model **byact = model_by_activity(delta);
	unsigned int top = o->top_n ? o->top_n : 10;
	char d[32], ev[32], tz[32], clk[32], *comm;

	fprintf(f, "\n%s%sinterval %s: %s events, %llu lost\n",
		o->interval_label ? o->interval_label : "",
		o->interval_label && *o->interval_label ? " " : "",
		fmt_duration(d, sizeof(d), model_duration_ns(delta)),
		fmt_count(ev, sizeof(ev), model_events(delta)),
		(unsigned long long)model_lost(delta));
	fprintf(f, "  %8s %-16s %12s %14s\n", "PID", "COMM", "TZ-ACCESSES",
		"CLOCK-SYSCALLS");
	for (size_t i = 0; i < delta->nprocs && i < top; i++) {
		const struct proc_model *p = byact[i];

		if (!proc_tz_accesses(p) && !proc_clock_syscalls(p))
			break;
		comm = escape_dup(p->comm, ESCAPE_TEXT);
		fprintf(f, "  %8d %-16s %12s %14s\n", p->pid, comm,
			fmt_count(tz, sizeof(tz), proc_tz_accesses(p)),
			fmt_count(clk, sizeof(clk), proc_clock_syscalls(p)));
		free(comm);
	}
	fflush(f);
	free(byact);
}
