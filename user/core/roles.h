/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Who is the parent and who are the children, per process tree: each
 * traced tree's root, and below it the forker, the first process that is
 * not a pass-through wrapper (one child and no events of its own, as
 * timeout, strace, env, nice, sudo or a shell running one command are).
 * The parent of "parent versus children" is the forker; the children are
 * its descendants.  Unrelated trees (--cgroup, --comm) stay apart.
 */
#ifndef CLOCKTRACE_ROLES_H
#define CLOCKTRACE_ROLES_H

#include "model.h"

struct role_group {
	size_t procs;
	uint64_t tz;		/* time-zone accesses */
	uint64_t clock;		/* clock syscalls */
	uint64_t cpu_ns;	/* CPU time of those that exited */
	size_t cpu_procs;	/* how many: the others' is not known yet */
	uint64_t wall_ns;	/* from start (or the trace's) to exit or end */
};

struct proc_tree {
	pid_t root;
	pid_t forker;
	size_t wrappers;	/* processes between root and forker, root too */
	struct role_group parent;	/* the forker */
	struct role_group children;	/* every descendant of the forker */
};

struct proc_trees {
	struct proc_tree *v;	/* the busiest first */
	size_t n;
};

void roles_build(const struct model *m, struct proc_trees *out);
void roles_free(struct proc_trees *t);
/* Is p top, or below it, following ppid links within the model? */
bool roles_descends(const struct model *m, const struct proc_model *p,
		    const struct proc_model *top);
/* The tree of the process pid, or NULL. */
const struct proc_tree *roles_tree_of(const struct model *m,
				      const struct proc_trees *t, pid_t pid);

#endif /* CLOCKTRACE_ROLES_H */
