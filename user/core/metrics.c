// SPDX-License-Identifier: GPL-2.0
/*
 * Per-group counters from per-process totals.  A process's total may go
 * down (top's LRU maps forget a process; a pid is reused after eviction):
 * then the counter restarted, and all of the new total is growth.
 */
#include <string.h>

#include "metrics.h"
#include "util.h"

static uint64_t growth(uint64_t cur, uint64_t old, bool restarted)
{
	return restarted ? cur : cur - old;
}

static void latency_grow(struct latency *sum, const struct latency *cur,
			 const struct latency *old)
{
	bool restarted = cur->count < old->count;

	if (cur->count == old->count)
		return;
	sum->count += growth(cur->count, old->count, restarted);
	sum->errors += growth(cur->errors, old->errors, restarted);
	sum->total_ns += growth(cur->total_ns, old->total_ns, restarted);
	for (int i = 0; i < HIST_SLOTS; i++)
		sum->hist[i] += growth(cur->hist[i], old->hist[i], restarted);
	if (cur->min_ns < sum->min_ns)
		sum->min_ns = cur->min_ns;
	if (cur->max_ns > sum->max_ns)
		sum->max_ns = cur->max_ns;
}

static const struct tz_path_stat *old_path(const struct proc_model *old,
					   const struct tz_path_stat *s)
{
	for (size_t i = 0; old && i < old->npaths; i++)
		if (old->paths[i].kind == s->kind &&
		    !strcmp(old->paths[i].path, s->path))
			return &old->paths[i];
	return NULL;
}

static uint64_t old_clockid(const struct proc_model *old, int32_t clk)
{
	for (size_t i = 0; old && i < old->nclockids; i++)
		if (old->clockids[i].clockid == clk)
			return old->clockids[i].count;
	return 0;
}

static void proc_grow(struct proc_model *sum, const struct proc_model *cur,
		      const struct proc_model *old)
{
	static const struct proc_model none;

	for (int k = 0; k < KIND_MAX; k++)
		latency_grow(&sum->kinds[k], &cur->kinds[k],
			     &(old ? old : &none)->kinds[k]);
	for (size_t i = 0; i < cur->npaths; i++) {
		const struct tz_path_stat *s = &cur->paths[i];
		const struct tz_path_stat *o = old_path(old, s);
		bool restarted = o && s->count < o->count;

		if (o && s->count == o->count)
			continue;
		model_add_path(sum, s->path, s->kind,
			       growth(s->count, o ? o->count : 0, restarted),
			       growth(s->errors, o ? o->errors : 0, restarted));
	}
	for (size_t i = 0; i < cur->nclockids; i++) {
		const struct clockid_stat *c = &cur->clockids[i];
		uint64_t o = old_clockid(old, c->clockid);

		if (c->count != o)
			model_add_clockid(sum, c->clockid,
					  growth(c->count, o, c->count < o));
	}
}

static uint64_t proc_counts(const struct proc_model *p)
{
	uint64_t n = 0;

	for (int k = 0; k < KIND_MAX; k++)
		n += p->kinds[k].count;
	for (size_t i = 0; i < p->npaths; i++)
		n += p->paths[i].count;
	for (size_t i = 0; i < p->nclockids; i++)
		n += p->clockids[i].count;
	return n;
}

/*
 * The maps are read one after another while events go on: a path's count
 * may be ahead of its syscall's, so every kind of counter is compared.
 */
static bool proc_grew(const struct proc_model *cur,
		      const struct proc_model *old)
{
	return proc_counts(cur) != (old ? proc_counts(old) : 0);
}

/* A group's name: the last comm the process was seen with. */
static const char *group_comm(const struct proc_model *cur,
			      const struct proc_model *old)
{
	if (cur->comm[0])
		return cur->comm;
	if (old && old->comm[0])
		return old->comm;
	return "?";
}

/* A cgroup group's name: the process's cgroup v2 path, as last seen. */
static const char *group_cgroup(const struct proc_model *cur,
				const struct proc_model *old)
{
	if (cur->cgroup)
		return cur->cgroup;
	if (old && old->cgroup)
		return old->cgroup;
	return "?";
}

static bool in_group(const struct metrics *mx, const struct proc_model *g,
		     const char *comm, const char *cgroup)
{
	if (mx->by == METRICS_BY_CGROUP)
		return g->cgroup && !strcmp(g->cgroup, cgroup);
	return !strcmp(g->comm, comm);
}

static struct proc_model *group_of(struct metrics *mx, pid_t pid,
				   const char *comm, const char *cgroup)
{
	struct model *g = &mx->groups;
	struct proc_model *p;

	if (mx->by == METRICS_BY_PID) {
		p = model_proc(g, pid);
	} else {
		for (size_t i = 0; i < g->nprocs; i++)
			if (in_group(mx, &g->procs[i], comm, cgroup))
				return &g->procs[i];
		/* Ids in order of appearance keep the array sorted. */
		p = model_proc(g, g->nprocs ? g->procs[g->nprocs - 1].pid + 1 : 1);
		if (mx->by == METRICS_BY_CGROUP)
			p->cgroup = xstrdup(cgroup);
	}
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	return p;
}

void metrics_update(struct metrics *mx, const struct model *cur)
{
	struct model next = {};

	for (size_t i = 0; i < cur->nprocs; i++) {
		const struct proc_model *p = &cur->procs[i];
		const struct proc_model *old = model_find(&mx->last, p->pid);
		const char *comm = group_comm(p, old);

		if (proc_grew(p, old))
			proc_grow(group_of(mx, p->pid, comm,
					   group_cgroup(p, old)), p, old);
	}
	model_copy(&next, cur);
	/* An exited process's name and cgroup are kept for when its entry is read again. */
	for (size_t i = 0; i < next.nprocs; i++) {
		struct proc_model *p = &next.procs[i];
		const struct proc_model *old = model_find(&mx->last, p->pid);

		if (!p->comm[0] && old)
			memcpy(p->comm, old->comm, sizeof(p->comm));
		if (!p->cgroup && old && old->cgroup)
			p->cgroup = xstrdup(old->cgroup);
	}
	model_free(&mx->last);
	mx->last = next;
	memcpy(mx->groups.losses, cur->losses, sizeof(cur->losses));
	mx->groups.start_ns = cur->start_ns;
	mx->groups.end_ns = cur->end_ns;
}

void metrics_forget(struct metrics *mx, pid_t pid)
{
	model_remove(&mx->last, pid);
}

void metrics_free(struct metrics *mx)
{
	model_free(&mx->last);
	model_free(&mx->groups);
}
