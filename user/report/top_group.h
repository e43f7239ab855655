/* SPDX-License-Identifier: GPL-2.0 */
/* clocktrace top's rows: one per process, and rows summed per group. */
#ifndef CLOCKTRACE_TOP_GROUP_H
#define CLOCKTRACE_TOP_GROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "cli.h"
#include "json.h"

struct top_row {
	pid_t pid;
	double tz_rate;
	double clock_rate;
	int32_t top_clock;
	uint64_t cpu_clock;
	uint64_t vdso_clock;
	uint64_t tz;
};

/* top --by container or cgroup: the processes' rows summed per group. */
struct top_group {
	char *key;		/* container id or cgroup path; NULL: none */
	bool gone;		/* processes that exited: their place unknown */
	unsigned int procs;
	double tz_rate;
	double clock_rate;
	pid_t busiest;		/* the process with the most tz accesses */
	double busiest_tz_rate;
};

/* Ranked as the rows are, most tz accesses first. */
size_t top_group_rows(const struct top_row *rows, size_t n, enum top_by by,
		      struct top_group **groups);
void top_groups_free(struct top_group *groups, size_t n);
void top_groups_print_screen(FILE *out, enum top_by by,
			     const struct top_group *g, size_t n,
			     unsigned int top);
/* The "groups" array of top --json's line. */
void top_groups_json(struct json *j, enum top_by by,
		     const struct top_group *g, size_t n, unsigned int top);

#endif /* CLOCKTRACE_TOP_GROUP_H */
