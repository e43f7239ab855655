// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "timeline.h"
#include "util.h"

static struct timeline_proc *timeline_proc(struct timeline *t, pid_t pid)
{
	struct timeline_proc *p;

	for (size_t i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	t->procs = xrealloc(t->procs, t->nprocs + 1, sizeof(*t->procs));
	p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	/* A process first seen now had nothing in the earlier intervals. */
	p->events = xcalloc(t->n + 1, sizeof(*p->events));
	return p;
}

void timeline_add(struct timeline *t, const struct model *delta,
		  uint64_t end_ns)
{
	if (t->n >= TIMELINE_MAX_INTERVALS)
		return;
	for (size_t i = 0; i < t->nprocs; i++)
		t->procs[i].events = xrealloc(t->procs[i].events, t->n + 1,
					      sizeof(uint64_t));
	for (size_t i = 0; i < t->nprocs; i++)
		t->procs[i].events[t->n] = 0;
	for (size_t i = 0; i < delta->nprocs; i++) {
		const struct proc_model *d = &delta->procs[i];
		uint64_t n = proc_tz_accesses(d) + proc_clock_syscalls(d);
		struct timeline_proc *p;

		if (!n)
			continue;
		p = timeline_proc(t, d->pid);
		memcpy(p->comm, d->comm, sizeof(p->comm));
		p->events[t->n] = n;
		p->total += n;
	}
	t->end_ns = xrealloc(t->end_ns, t->n + 1, sizeof(*t->end_ns));
	t->end_ns[t->n++] = end_ns;
}

void timeline_free(struct timeline *t)
{
	for (size_t i = 0; i < t->nprocs; i++)
		free(t->procs[i].events);
	free(t->procs);
	free(t->end_ns);
	memset(t, 0, sizeof(*t));
}
