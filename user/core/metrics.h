/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The series a fleet's collectors see: counters per group of processes
 * (a comm by default), monotonic across expositions although processes
 * come and go, their pids are reused and their kernel entries are evicted.
 * Each update adds what every process did since the last one to its group.
 */
#ifndef CLOCKTRACE_METRICS_H
#define CLOCKTRACE_METRICS_H

#include "model.h"

enum metrics_by {
	METRICS_BY_COMM,
	METRICS_BY_PID,
	METRICS_BY_CGROUP,
	METRICS_BY_CONTAINER,	/* its id ("": none) and its pod */
	METRICS_BY_POD,		/* a Kubernetes pod's UID ("": none) */
};

/*
 * Container and pod groups at most: a node runs far fewer at once.  A new
 * one beyond the cap first folds every group none of whose processes is
 * alive (exited containers) into the METRICS_FOLDED group; if all are
 * alive it goes there itself.  Counters stay monotonic: the sum over the
 * series never goes down, a folded group's own series ends.
 */
#define METRICS_GROUPS_MAX	256
#define METRICS_FOLDED		"_folded"

struct metrics {
	enum metrics_by by;
	struct model last;	/* per-process totals at the last update */
	struct model groups;	/* procs[] are the groups' sums */
};

/* Adds cur's growth since the last update; cur holds per-process totals. */
void metrics_update(struct metrics *mx, const struct model *cur);
/* pid's entries were evicted: a process reusing it starts from zero. */
void metrics_forget(struct metrics *mx, pid_t pid);
void metrics_free(struct metrics *mx);

#endif /* CLOCKTRACE_METRICS_H */
