// SPDX-License-Identifier: GPL-2.0
/* The --vdso part of the reports: estimates from samples, with intervals. */
#include <math.h>

#include "escape.h"
#include "json.h"
#include "report.h"

static void estimate_of(const struct model *m, const struct proc_model *p,
			struct vdso_estimate *e)
{
	vdso_estimate(&p->vdso, m->vdso_period_ns, m->vdso_cost, e);
}

/* Whole ns and calls: low rounded down, high up, so the interval holds. */
static void json_interval(struct json *j, const char *key, struct interval v)
{
	json_obj_begin(j, key);
	json_u64(j, "estimate", llround(v.estimate));
	json_u64(j, "low", floor(v.low));
	json_u64(j, "high", ceil(v.high));
	json_obj_end(j);
}

void report_vdso_json_proc(struct json *j, const struct model *m,
			   const struct proc_model *p)
{
	struct vdso_estimate e;

	estimate_of(m, p, &e);
	json_obj_begin(j, "vdso");
	json_u64(j, "samples", e.samples);
	json_u64(j, "total_samples", p->vdso.total);
	json_interval(j, "time_ns", e.time_ns);
	json_interval(j, "calls", e.calls);
	json_obj_begin(j, "by_function");
	for (int f = 0; f < VDSO_FN_MAX; f++) {
		if (!p->vdso.fn[f])
			continue;
		json_obj_begin(j, vdso_fn_name(f));
		json_u64(j, "samples", p->vdso.fn[f]);
		if (m->vdso_cost[f].median > 0)
			json_interval(j, "calls", e.fn_calls[f]);
		else
			json_null(j, "calls");
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_end(j);
}

/* How the estimates were made: the period and the costs they rest on. */
void report_vdso_json_run(struct json *j, const struct model *m)
{
	json_obj_begin(j, "vdso");
	json_str(j, "method", "cpu-clock sampling; 95% interval: Wilson on "
		 "the samples' share, for calls with the per-call cost's error");
	json_u64(j, "period_ns", llround(m->vdso_period_ns));
	json_obj_begin(j, "ns_per_call");
	for (int f = 0; f < VDSO_FN_OTHER; f++) {
		const struct vdso_cost *c = &m->vdso_cost[f];

		if (c->median <= 0)
			continue;
		json_obj_begin(j, vdso_fn_name(f));
		json_double(j, "median", c->median);
		json_double(j, "low", c->low);
		json_double(j, "high", c->high);
		json_double(j, "rel_sd", c->rel_sd);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_end(j);
}

static void print_proc(FILE *f, const struct model *m,
		       const struct proc_model *p)
{
	struct vdso_estimate e;

	estimate_of(m, p, &e);
	fprintf(f, "  %8d %-16s %8llu %8llu %9.3f [%.3f, %.3f] %12.0f [%.0f, %.0f]\n",
		p->pid, p->comm, (unsigned long long)e.samples,
		(unsigned long long)p->vdso.total, e.time_ns.estimate / 1e6,
		e.time_ns.low / 1e6, e.time_ns.high / 1e6, e.calls.estimate,
		e.calls.low, e.calls.high);
}

void report_vdso_text(FILE *f, const struct model *m)
{
	fprintf(f, "\nvDSO clock reads (--vdso): an ESTIMATE from sampling CPU "
		"time every %.0f us;\n  time = samples in the vDSO x period, "
		"95%% Wilson interval on their share of\n  the process's "
		"samples; calls = time / ns per call timed here, the interval\n"
		"  widened by that cost's own error (", m->vdso_period_ns / 1e3);
	for (int fn = 0, first = 1; fn < VDSO_FN_OTHER; fn++)
		if (m->vdso_cost[fn].median > 0) {
			fprintf(f, "%s%s %.1f ns +-%.0f%%", first ? "" : ", ",
				vdso_fn_name(fn), m->vdso_cost[fn].median,
				VDSO_Z * m->vdso_cost[fn].rel_sd * 100);
			first = 0;
		}
	fprintf(f, ")\n  %8s %-16s %8s %8s %s\n", "PID", "COMM", "IN-VDSO",
		"SAMPLES", "TIME-MS [95%]          CALLS [95%]");
	for (size_t i = 0; i < m->nprocs; i++)
		if (m->procs[i].vdso.total)
			print_proc(f, m, &m->procs[i]);
}
