/* SPDX-License-Identifier: GPL-2.0 */
/* With -i: kernel events per interval per process, for the HTML timeline. */
#ifndef CLOCKTRACE_TIMELINE_H
#define CLOCKTRACE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "model.h"

#define TIMELINE_MAX_INTERVALS	100000

struct timeline_proc {
	pid_t pid;
	char comm[COMM_LEN + 1];
	uint64_t *events;		/* one per interval */
	uint64_t total;
};

struct timeline {
	size_t n;			/* intervals */
	uint64_t *end_ns;		/* since the start of the trace */
	struct timeline_proc *procs;
	size_t nprocs;
};

/* One interval: what delta (a model_delta) counted, per process. */
void timeline_add(struct timeline *t, const struct model *delta,
		  uint64_t end_ns);
void timeline_free(struct timeline *t);

#endif /* CLOCKTRACE_TIMELINE_H */
