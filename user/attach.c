// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace attach: trace processes that already run, their threads and
 * every child they fork from now on (--tree: the existing ones too).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "privs.h"
#include "procfs.h"
#include "session.h"
#include "util.h"

struct target_scan {
	struct env *env;
	pid_t *pids;
	size_t n;
};

/* The process a thread id belongs to: counters are per process. */
static pid_t tgid_of(pid_t pid)
{
	char path[64], *buf, *line;
	long tgid = pid;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	buf = read_file(path, 1 << 16, NULL);
	if (!buf)
		return -1;
	line = strstr(buf, "\nTgid:");
	if (line)
		tgid = strtol(line + 6, NULL, 10);
	free(buf);
	return tgid > 0 ? tgid : -1;
}

static void match_comm(pid_t pid, void *ctx)
{
	struct target_scan *ts = ctx;
	char comm[32];

	if (pid == getpid() || proc_comm(pid, comm, sizeof(comm)))
		return;
	if (strcmp(comm, ts->env->comm))
		return;
	ts->pids = xrealloc(ts->pids, ts->n + 1, sizeof(*ts->pids));
	ts->pids[ts->n++] = pid;
}

static int resolve_targets(struct env *env)
{
	struct target_scan ts = { .env = env };

	for (size_t i = 0; i < env->npids; i++) {
		pid_t tgid = tgid_of(env->pids[i]);

		if (tgid < 0 || !proc_exists(tgid)) {
			warn("attach: no process with pid %d", env->pids[i]);
			return EXIT_TOOL_FAILURE;
		}
		if (tgid == getpid()) {
			warn("attach: pid %d is clocktrace itself", tgid);
			return EXIT_TOOL_FAILURE;
		}
		env->pids[i] = tgid;
	}
	if (!env->comm)
		return 0;
	ts.pids = env->pids;
	ts.n = env->npids;
	proc_for_each(match_comm, &ts);
	if (ts.n == env->npids) {
		warn("attach: no process named '%s'", env->comm);
		free(ts.pids);
		env->pids = NULL;
		return EXIT_TOOL_FAILURE;
	}
	env->pids = ts.pids;
	env->npids = ts.n;
	return 0;
}

static int add_target(struct session *s, pid_t pid, pid_t ppid,
		      unsigned int depth)
{
	struct proc_model *p;
	char comm[32] = "";

	if (model_find(&s->model, pid) && depth > 0)
		return 0;
	proc_comm(pid, comm, sizeof(comm));
	if (tracer_add_proc(&s->tracer, pid, ppid, depth, comm))
		return -1;
	p = model_proc(&s->model, pid);
	p->ppid = ppid;
	p->depth = depth;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	free(p->exe);
	p->exe = proc_exe(pid);
	session_learn_proc_env(p);
	tracer_set_proc_tz(&s->tracer, pid, p->tz, p->tzdir);
	if (s->env.libc)
		libc_probe_process(&s->libc, &s->tracer, p);
	return 0;
}

struct tree_scan {
	pid_t *pid;
	pid_t *ppid;
	size_t n;
};

static void note_parent(pid_t pid, void *ctx)
{
	struct tree_scan *t = ctx;

	t->pid = xrealloc(t->pid, t->n + 1, sizeof(*t->pid));
	t->ppid = xrealloc(t->ppid, t->n + 1, sizeof(*t->ppid));
	t->pid[t->n] = pid;
	t->ppid[t->n++] = proc_ppid(pid);
}

/* --tree: the descendants that exist now, level by level. */
static int add_descendants(struct session *s, pid_t root, unsigned int depth,
			   const struct tree_scan *t)
{
	if (depth > 64)
		return 0;
	for (size_t i = 0; i < t->n; i++) {
		if (t->ppid[i] != root || t->pid[i] == getpid())
			continue;
		if (add_target(s, t->pid[i], root, depth) ||
		    add_descendants(s, t->pid[i], depth + 1, t))
			return -1;
	}
	return 0;
}

static int seed_targets(struct session *s)
{
	struct tree_scan t = {};
	int err = 0;

	s->model.start_ns = now_ns();
	for (size_t i = 0; i < s->env.npids && !err; i++)
		err = add_target(s, s->env.pids[i], proc_ppid(s->env.pids[i]), 0);
	if (err || !s->env.tree)
		return err;
	proc_for_each(note_parent, &t);
	for (size_t i = 0; i < s->env.npids && !err; i++)
		err = add_descendants(s, s->env.pids[i], 1, &t);
	free(t.pid);
	free(t.ppid);
	return err;
}

int cmd_attach(int argc, char **argv)
{
	int err;
	struct session *s = session_new(MODE_ATTACH, argc, argv, &err);

	if (!err)
		err = resolve_targets(&s->env);
	if (!err)
		err = open_report(s->env.output, &s->out, stderr);
	if (!err)
		err = open_report(s->env.html, &s->html, NULL);
	if (err)
		goto out;
	s->model.command = argv;
	s->model.ncommand = argc;
	err = EXIT_TOOL_FAILURE;
	if (session_setup(s) || seed_targets(s))
		goto out;
	drop_privileges(s->env.libc);
	if (s->env.interval > 0)
		session_add_timer(s, s->env.interval, &s->timerfd);
	session_start_status(s);
	model_copy(&s->prev, &s->model);
	session_loop(s);
	session_stop_status(s);
	err = s->abort_signal ? 128 + s->abort_signal : 0;
	if (!s->abort_signal) {
		session_finish_model(s);
		session_write_report(s);
	}
out:
	session_free(s);
	return err < 0 ? 0 : err;
}
