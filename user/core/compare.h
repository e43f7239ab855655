/* SPDX-License-Identifier: GPL-2.0 */
/*
 * run --compare: PROG as it is against PROG with a fix, run alternately,
 * reduced to figures per process role.  Plain data: the runs are added by
 * run_compare.c, and unit tests add them by hand.
 */
#ifndef CLOCKTRACE_COMPARE_H
#define CLOCKTRACE_COMPARE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "json.h"
#include "model.h"

#define COMPARE_FIX_MAX		8
#define COMPARE_REPEAT_MAX	20

enum compare_variant { VARIANT_BEFORE, VARIANT_AFTER, VARIANT_MAX };
enum compare_role { ROLE_ALL, ROLE_PARENT, ROLE_CHILDREN, ROLE_MAX };

/* One role's share of one run. */
struct role_sample {
	unsigned int processes;
	uint64_t wall_ns;		/* first start to last exit */
	uint64_t cpu_ns;
	uint64_t tz_accesses;
	uint64_t clock_syscalls;
};

struct compare_run {
	enum compare_variant variant;
	bool counted;			/* syscall probes on: counts, not times */
	int status;			/* wait(2) status of PROG */
	uint64_t stdout_hash;		/* FNV-1a of everything PROG wrote */
	uint64_t stdout_bytes;
	uint64_t rusage_cpu_ns;		/* wait4's figure: an oracle for cpu_ns */
	struct role_sample role[ROLE_MAX];
};

struct compare_figure {
	uint64_t median, min, max;
};

/* A role under one variant, over the runs. */
struct compare_side {
	unsigned int processes;
	unsigned int timed;			/* runs */
	struct compare_figure wall, cpu;	/* timed runs */
	uint64_t tz_accesses;			/* the counted run */
	uint64_t clock_syscalls;
};

struct compare {
	const char *fix[COMPARE_FIX_MAX];	/* NAME=VALUE */
	size_t nfix;
	/* The fix's variables PROG as it is already has, NAME=VALUE. */
	const char *preset[COMPARE_FIX_MAX];
	size_t npreset;
	unsigned int repeat;
	struct compare_run *runs;
	size_t nruns;

	/* Filled by compare_summarize. */
	struct compare_side side[ROLE_MAX][VARIANT_MAX];
	bool exit_differs;
	bool stdout_differs;		/* stable within each variant, not across */
	bool stdout_varies;		/* from run to run: not compared */
	char verdict[256];
};

#define COMPARE_HASH_INIT	0xcbf29ce484222325ull
uint64_t compare_hash(uint64_t h, const void *buf, size_t len);

/* What one run's model holds, per role (parent: depth 0). */
void compare_sample(const struct model *m, struct role_sample out[ROLE_MAX]);
void compare_add_run(struct compare *c, const struct compare_run *r);
void compare_summarize(struct compare *c);
/* Median wall time before over after, per role; 0 when not measured. */
double compare_speedup(const struct compare *c, enum compare_role role);
const char *compare_role_name(enum compare_role role);
const char *compare_variant_name(enum compare_variant v);
void compare_free(struct compare *c);

void compare_json(struct json *j, const struct compare *c);
void compare_text(FILE *f, const struct compare *c);

#endif /* CLOCKTRACE_COMPARE_H */
