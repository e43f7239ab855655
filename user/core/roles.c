// SPDX-License-Identifier: GPL-2.0
/* Parent and children per process tree: see roles.h. */
#include <stdlib.h>
#include <string.h>

#include "roles.h"
#include "util.h"

static bool is_root(const struct model *m, const struct proc_model *p)
{
	return p->depth == 0 || !model_find(m, p->ppid) || p->ppid == p->pid;
}

/* The only child of p in the model, or NULL (none, or more than one). */
static const struct proc_model *only_child(const struct model *m,
					   const struct proc_model *p)
{
	const struct proc_model *child = NULL;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *c = &m->procs[i];

		if (c->ppid != p->pid || c == p || is_root(m, c))
			continue;
		if (child)
			return NULL;
		child = c;
	}
	return child;
}

static bool made_events(const struct proc_model *p)
{
	return proc_tz_accesses(p) || proc_clock_syscalls(p);
}

bool roles_descends(const struct model *m, const struct proc_model *p,
			  const struct proc_model *top)
{
	for (size_t hops = 0; p && hops <= m->nprocs; hops++) {
		if (p == top)
			return true;
		if (is_root(m, p))
			return false;
		p = model_find(m, p->ppid);
	}
	return false;
}

static void group_add(const struct model *m, struct role_group *g,
		      const struct proc_model *p)
{
	uint64_t start = p->start_ns > m->start_ns ? p->start_ns : m->start_ns;
	uint64_t end = p->exited && p->exit_ns ? p->exit_ns : m->end_ns;

	g->procs++;
	g->tz += proc_tz_accesses(p);
	g->clock += proc_clock_syscalls(p);
	if (p->exited) {
		g->cpu_ns += p->cpu_ns;
		g->cpu_procs++;
	}
	if (end > start)
		g->wall_ns += end - start;
}

static void tree_of_root(const struct model *m, const struct proc_model *root,
			 struct proc_tree *t)
{
	const struct proc_model *forker = root, *next;

	memset(t, 0, sizeof(*t));
	t->root = root->pid;
	while (!made_events(forker) && (next = only_child(m, forker))) {
		t->wrappers++;
		forker = next;
	}
	t->forker = forker->pid;
	group_add(m, &t->parent, forker);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		if (p != forker && roles_descends(m, p, forker))
			group_add(m, &t->children, p);
	}
}

static uint64_t tree_work(const struct proc_tree *t)
{
	return t->parent.tz + t->parent.clock + t->children.tz +
	       t->children.clock;
}

static int busiest_first(const void *a, const void *b)
{
	uint64_t x = tree_work(a), y = tree_work(b);

	if (x != y)
		return x > y ? -1 : 1;
	return ((const struct proc_tree *)a)->root -
	       ((const struct proc_tree *)b)->root;
}

void roles_build(const struct model *m, struct proc_trees *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < m->nprocs; i++) {
		if (!is_root(m, &m->procs[i]))
			continue;
		out->v = xrealloc(out->v, out->n + 1, sizeof(*out->v));
		tree_of_root(m, &m->procs[i], &out->v[out->n++]);
	}
	if (out->n > 1)
		qsort(out->v, out->n, sizeof(*out->v), busiest_first);
}

void roles_free(struct proc_trees *t)
{
	free(t->v);
	memset(t, 0, sizeof(*t));
}

const struct proc_tree *roles_tree_of(const struct model *m,
				      const struct proc_trees *t, pid_t pid)
{
	const struct proc_model *p = model_find(m, pid);

	for (size_t hops = 0; p && hops <= m->nprocs; hops++) {
		if (is_root(m, p))
			break;
		p = model_find(m, p->ppid);
	}
	for (size_t i = 0; p && i < t->n; i++)
		if (t->v[i].root == p->pid)
			return &t->v[i];
	return NULL;
}
