/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which processes a session traces, and what it learns of each from /proc:
 * the pids named by -p, --comm and --cgroup/--unit resolved before
 * anything is loaded, the targets entered in the kernel's filter (and
 * --tree's descendants), and each process's environment, cgroup,
 * container and image as fork and exec notices come.
 */
#ifndef CLOCKTRACE_TARGETS_H
#define CLOCKTRACE_TARGETS_H

#include <stdbool.h>
#include <sys/types.h>

#include "cli.h"
#include "lang_probe.h"
#include "libc_probe.h"
#include "model.h"
#include "tracer.h"

struct exec_event;
struct event;

/* What a new target is entered in; the probes are NULL when not asked. */
struct targets {
	struct tracer *tracer;
	struct model *model;
	struct libc_probe *libc;
	struct lang_probe *lang;
};

/*
 * --cgroup or --unit resolved into opts->cgtarget; the processes in it now
 * appended to opts->pids (not for top, which traces every process).
 */
int targets_resolve_cgroup(struct opts *opts);
/*
 * attach: -p PIDs made process ids (a thread id names its process) and
 * checked, --comm's matches and the cgroup's processes appended; *named:
 * how many came from -p (they come first).
 */
int targets_resolve(struct opts *opts, size_t *named);
/*
 * One process made a target.  NAMED: the user named it with -p, so its
 * loss is an error; a --comm match or a --tree descendant that is gone
 * is simply not traced.
 */
int targets_add(struct targets *t, pid_t pid, pid_t ppid, unsigned int depth,
		bool named);
/* opts->pids (the first NAMED by -p) and, with --tree, their descendants. */
int targets_seed(struct targets *t, const struct opts *opts, size_t named);

void targets_set_env(struct proc_model *p, int state, char *tz, char *tzdir);
/* TZ and TZDIR from /proc/PID/environ, where readable. */
void targets_learn_env(struct proc_model *p);
/* Its cgroup v2 path, container id and namespace pid, where readable. */
void targets_learn_place(struct proc_model *p);
/* A fork notice: what the child has of its parent until it execs. */
void targets_learn_fork(struct model *m, struct proc_model *p,
			const struct event *e);
/* An exec notice: the new image, its environment and cgroup. */
void targets_learn_exec(struct model *m, struct proc_model *p,
			const struct exec_event *x);

#endif /* CLOCKTRACE_TARGETS_H */
