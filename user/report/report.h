/* SPDX-License-Identifier: GPL-2.0 */
/* Views of one model: each reads the model and findings, none touches BPF. */
#ifndef CLOCKTRACE_REPORT_H
#define CLOCKTRACE_REPORT_H

#include <stdbool.h>
#include <stdio.h>

#include "findings.h"
#include "metrics.h"
#include "model.h"

struct report_opts {
	unsigned int top_n;		/* 0: the default cut */
	bool per_process;		/* histograms per process too */
	const char *interval_label;	/* set for an interval report */
};

void report_text(FILE *f, const struct model *m, const struct findings *fs,
		 const struct report_opts *o);
void report_json(FILE *f, const struct model *m, const struct findings *fs,
		 bool pretty);
struct compare;
/* The run report with the compare section of run --compare (cmp may be NULL). */
void report_json_compare(FILE *f, const struct model *m,
			 const struct findings *fs, bool pretty,
			 const struct compare *cmp);
struct om_opts {
	enum metrics_by by;		/* what a group is: its labels */
	bool prometheus_text;		/* text format 0.0.4, not OpenMetrics */
};

void report_openmetrics(FILE *f, const struct model *m,
			const struct om_opts *o);
/* One interval of attach/run -i: a short table of what changed. */
void report_interval_text(FILE *f, const struct model *delta,
			  const struct report_opts *o);
/* Stacks for flame graphs: "comm;frame;frame count" lines. */
void report_folded(FILE *f, const struct model *m);
/* The --lang section: kernel events by script line. */
void report_lang_text(FILE *f, const struct model *m);
/* The --libc section of the text report. */
void report_libc_text(FILE *f, const struct model *m);

/* --vdso: the estimates, per process and how they were made. */
struct json;
void report_vdso_json_proc(struct json *j, const struct model *m,
			   const struct proc_model *p);
void report_vdso_json_run(struct json *j, const struct model *m);
void report_vdso_text(FILE *f, const struct model *m);

/* --stacks: the top stacks of a class (enum stack_class), and JSON's. */
void report_stacks_text(FILE *f, const struct model *m, uint32_t cls,
			size_t top);
void report_stacks_json(struct json *j, const struct model *m);

uint64_t model_events(const struct model *m);

#endif /* CLOCKTRACE_REPORT_H */
