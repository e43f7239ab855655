// SPDX-License-Identifier: GPL-2.0
/*
 * Per-group counters from per-process totals.  A process's total may go
 * down (top's LRU maps forget a process; a pid is reused after eviction):
 * then the counter restarted, and all of the new total is growth.
 */
#include <stdio.h>
#include <string.h>

#include "container.h"
#include "container_names.h"

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

/* Container and pod groups are keyed by their id, kept in container[]. */
static bool keyed_by_id(const struct metrics *mx)
{
	return mx->by == METRICS_BY_CONTAINER || mx->by == METRICS_BY_POD;
}

/*
 * The id of P's group: its container's, or its pod's UID from the cgroup
 * path, else from the runtime's files (a podman pod's cgroup has none);
 * "": none.
 */
static const char *group_id(const struct metrics *mx, const char *cgroup,
			    const char *container,
			    const struct container_names *names,
			    char buf[POD_UID_LEN + 1])
{
	if (mx->by == METRICS_BY_CONTAINER)
		return container;
	if (pod_uid(cgroup, buf))
		return buf;
	return names ? names->pod_uid : "";
}

/* Its container id, as last seen; "": none. */
static const char *group_container(const struct proc_model *cur,
				   const struct proc_model *old)
{
	if (cur->container[0])
		return cur->container;
	return old ? old->container : "";
}

static bool in_group(const struct metrics *mx, const struct proc_model *g,
		     const char *comm, const char *cgroup, const char *id)
{
	if (mx->by == METRICS_BY_CGROUP)
		return g->cgroup && !strcmp(g->cgroup, cgroup);
	if (keyed_by_id(mx))
		return !strcmp(g->container, id);
	return !strcmp(g->comm, comm);
}

static struct proc_model *new_group(struct metrics *mx)
{
	struct model *g = &mx->groups;

	/* Ids in order of appearance keep the array sorted. */
	return model_proc(g, g->nprocs ? g->procs[g->nprocs - 1].pid + 1 : 1);
}

static struct proc_model *find_group(struct metrics *mx, const char *comm,
				     const char *cgroup, const char *id)
{
	for (size_t i = 0; i < mx->groups.nprocs; i++)
		if (in_group(mx, &mx->groups.procs[i], comm, cgroup, id))
			return &mx->groups.procs[i];
	return NULL;
}

/* A live process of CUR is in group G. */
static bool group_live(const struct metrics *mx, const struct proc_model *g,
		       const struct model *cur)
{
	char buf[POD_UID_LEN + 1];

	for (size_t i = 0; i < cur->nprocs; i++) {
		const struct proc_model *p = &cur->procs[i];

		if (!p->exited && !strcmp(g->container, group_id(mx,
		    p->cgroup ? p->cgroup : "", p->container, p->names, buf)))
			return true;
	}
	return false;
}

static struct proc_model *folded_group(struct metrics *mx)
{
	struct proc_model *f = find_group(mx, "", "", METRICS_FOLDED);

	if (!f) {
		f = new_group(mx);
		snprintf(f->container, sizeof(f->container), METRICS_FOLDED);
	}
	return f;
}

/* Every group without a live process summed into the folded one. */
static void fold_exited(struct metrics *mx, const struct model *cur)
{
	for (size_t i = 0; i < mx->groups.nprocs;) {
		struct proc_model *g = &mx->groups.procs[i];
		pid_t folded_pid;

		if (!strcmp(g->container, METRICS_FOLDED) ||
		    group_live(mx, g, cur)) {
			i++;
			continue;
		}
		folded_pid = folded_group(mx)->pid;
		/* folded_group() may have moved the array. */
		g = &mx->groups.procs[i];
		proc_grow(model_find(&mx->groups, folded_pid), g, NULL);
		model_remove(&mx->groups, g->pid);
	}
}

/* P's group, with what it was last seen as (OLD) where P forgot it. */
static struct proc_model *group_of(struct metrics *mx, const struct model *cur,
				   const struct proc_model *p,
				   const struct proc_model *old)
{
	const char *comm = group_comm(p, old), *cgroup = group_cgroup(p, old);
	const char *container = group_container(p, old);
	const struct container_names *names = p->names ? p->names :
					      old ? old->names : NULL;
	char buf[POD_UID_LEN + 1];
	const char *id = keyed_by_id(mx) ?
			 group_id(mx, cgroup, container, names, buf) : "";
	struct proc_model *g;

	if (mx->by == METRICS_BY_PID) {
		g = model_proc(&mx->groups, p->pid);
	} else if ((g = find_group(mx, comm, cgroup, id))) {
		/* found */
	} else if (keyed_by_id(mx) && mx->groups.nprocs >= METRICS_GROUPS_MAX &&
		   (fold_exited(mx, cur), mx->groups.nprocs >= METRICS_GROUPS_MAX)) {
		g = folded_group(mx);
	} else {
		g = new_group(mx);
		if (mx->by != METRICS_BY_COMM)
			g->cgroup = xstrdup(cgroup);
		snprintf(g->container, sizeof(g->container), "%s", id);
	}
	/* A group's labels: the names of its container, or of its pod's. */
	if (!g->names && strcmp(g->container, METRICS_FOLDED))
		g->names = names;
	snprintf(g->comm, sizeof(g->comm), "%s", comm);
	return g;
}

void metrics_update(struct metrics *mx, const struct model *cur)
{
	struct model next = {};

	for (size_t i = 0; i < cur->nprocs; i++) {
		const struct proc_model *p = &cur->procs[i];
		const struct proc_model *old = model_find(&mx->last, p->pid);

		if (proc_grew(p, old))
			proc_grow(group_of(mx, cur, p, old), p, old);
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
		if (!p->container[0] && old)
			memcpy(p->container, old->container,
			       sizeof(p->container));
		if (!p->names && old)
			p->names = old->names;
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
