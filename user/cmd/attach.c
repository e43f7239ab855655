// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace attach: trace processes that already run, their threads and
 * every child they fork from now on (--tree: the existing ones too).
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "cgroup.h"
#include "procfs.h"
#include "session.h"
#include "util.h"

struct target_scan {
	struct opts *opts;
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

/*
 * Whether the whole process has exited (or was reaped).  Its pidfd says so
 * exactly: /proc's state letter is Z for a leader thread that exited while
 * other threads of the process still run.
 */
static bool proc_gone(pid_t pid)
{
	int fd = syscall(SYS_pidfd_open, pid, 0);
	struct pollfd p = { .fd = fd, .events = POLLIN };
	bool gone;

	if (fd < 0)
		return errno == ESRCH;
	gone = poll(&p, 1, 0) == 1;
	close(fd);
	return gone;
}

static bool is_kernel_thread(pid_t pid)
{
	unsigned long flags = 0;
	char state;

	return !proc_state(pid, &state, &flags) && (flags & PROC_FLAG_KTHREAD);
}

/* A -p target that cannot be traced: said in one line. */
static int untraceable(pid_t pid)
{
	if (proc_gone(pid)) {
		ct_warn("attach: pid %d has exited (a zombie, not yet reaped)", pid);
		return EXIT_TOOL_FAILURE;
	}
	if (is_kernel_thread(pid)) {
		ct_warn("attach: pid %d is a kernel thread: it makes no system "
		     "calls of its own to trace", pid);
		return EXIT_TOOL_FAILURE;
	}
	return 0;
}

static void match_comm(pid_t pid, void *ctx)
{
	struct target_scan *ts = ctx;
	char comm[32];

	if (pid == getpid() || proc_comm(pid, comm, sizeof(comm)) ||
	    is_kernel_thread(pid) || proc_gone(pid))
		return;
	if (strcmp(comm, ts->opts->comm))
		return;
	ts->pids = xrealloc(ts->pids, ts->n + 1, sizeof(*ts->pids));
	ts->pids[ts->n++] = pid;
}

/*
 * --cgroup or --unit: the processes in the cgroup and below it now join
 * opts->pids; the kernel side adds those that fork or exec there later.
 * attach needs the cgroup to exist; run and top may wait for it.
 */
int attach_resolve_cgroup(struct opts *opts)
{
	const char *cmd = mode_name(opts->mode);
	pid_t *pids;
	size_t n;

	if (!opts->cgroup && !opts->unit)
		return 0;
	opts->cgtarget = cgroup_target_resolve(cmd, opts->cgroup, opts->unit,
					      opts->mode == MODE_ATTACH);
	if (!opts->cgtarget)
		return EXIT_TOOL_FAILURE;
	if (!opts->cgtarget->exists || opts->mode == MODE_TOP)
		return 0;
	if (cgroup_scan(cmd, opts->cgtarget->dir, &pids, &n))
		return EXIT_TOOL_FAILURE;
	for (size_t i = 0; i < n; i++) {
		if (pids[i] == getpid())
			continue;
		opts->pids = xrealloc(opts->pids, opts->npids + 1,
				     sizeof(*opts->pids));
		opts->pids[opts->npids++] = pids[i];
	}
	free(pids);
	return 0;
}

/* *named: how many of the targets were named by -p (they come first). */
static int resolve_targets(struct opts *opts, size_t *named)
{
	struct target_scan ts = { .opts = opts };

	for (size_t i = 0; i < opts->npids; i++) {
		pid_t tgid = tgid_of(opts->pids[i]);

		if (tgid < 0 || !proc_exists(tgid)) {
			ct_warn("attach: no process with pid %d", opts->pids[i]);
			return EXIT_TOOL_FAILURE;
		}
		if (tgid == getpid()) {
			ct_warn("attach: pid %d is clocktrace itself", tgid);
			return EXIT_TOOL_FAILURE;
		}
		if (untraceable(tgid))
			return EXIT_TOOL_FAILURE;
		opts->pids[i] = tgid;
	}
	*named = opts->npids;
	if (opts->comm) {
		ts.pids = opts->pids;
		ts.n = opts->npids;
		proc_for_each(match_comm, &ts);
		/* A service not started yet: the kernel adds it at its exec. */
		if (ts.n == opts->npids) {
			char safe[64];

			ct_warn("attach: no process named '%s' yet: waiting for "
			     "one to exec", escape_arg(safe, sizeof(safe),
							opts->comm));
		}
		opts->pids = ts.pids;
		opts->npids = ts.n;
	}
	return attach_resolve_cgroup(opts);
}

/*
 * A target can exit between the scan of /proc and its entry in the process
 * map; the kernel side then never sees it exit, and the report would call
 * it running forever.  Asked after the entry is made, so that every exit
 * is either seen by the kernel side or found here.
 */
static bool exited_untraced(struct session *s, pid_t pid)
{
	return proc_gone(pid) && tracer_proc_exit_seen(&s->tracer, pid) != 1;
}

/*
 * NAMED: the user named PID with -p, so its loss is an error; a --comm
 * match or a --tree descendant that is gone is simply not traced.
 */
int attach_add_target(struct session *s, pid_t pid, pid_t ppid,
		      unsigned int depth, bool named)
{
	struct proc_model *p;
	char comm[32] = "";

	if (model_find(&s->model, pid) && depth > 0)
		return 0;
	proc_comm(pid, comm, sizeof(comm));
	if (tracer_add_proc(&s->tracer, pid, ppid, depth, comm))
		return -1;
	if (exited_untraced(s, pid)) {
		tracer_forget_proc(&s->tracer, pid);
		if (!named)
			return 0;
		ct_warn("attach: pid %d exited before tracing began", pid);
		return -1;
	}
	p = model_proc(&s->model, pid);
	p->ppid = ppid;
	p->depth = depth;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	free(p->exe);
	p->exe = proc_exe(pid);
	session_learn_proc_env(p);
	session_learn_proc_place(p);
	tracer_set_proc_tz(&s->tracer, pid, p->tz, p->tzdir);
	if (s->opts.libc)
		libc_probe_process(&s->libc, &s->tracer, p);
	if (s->opts.lang)
		lang_probe_process(&s->lang, pid);
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
		if (attach_add_target(s, t->pid[i], root, depth, false) ||
		    add_descendants(s, t->pid[i], depth + 1, t))
			return -1;
	}
	return 0;
}

static bool is_target(const struct opts *opts, pid_t pid)
{
	for (size_t i = 0; i < opts->npids; i++)
		if (opts->pids[i] == pid)
			return true;
	return false;
}

/*
 * A target whose parent is a target too (a server's master and workers,
 * all of one --comm or cgroup) is that parent's child in the report, not
 * a second "parent": its depth counts the targets above it.
 */
static unsigned int target_depth(const struct opts *opts, pid_t pid)
{
	unsigned int depth = 0;

	for (pid_t ppid = proc_ppid(pid); depth < 64 && ppid > 1 &&
	     ppid != pid && is_target(opts, ppid); ppid = proc_ppid(ppid)) {
		pid = ppid;
		depth++;
	}
	return depth;
}

/* -p without --tree: one line on the live children it leaves out. */
static void hint_children(const struct session *s, size_t named,
			  const struct tree_scan *t)
{
	size_t kids = 0, parents = 0;
	pid_t parent = 0;

	for (size_t i = 0; i < named; i++) {
		size_t mine = 0;

		for (size_t j = 0; j < t->n; j++)
			mine += t->ppid[j] == s->opts.pids[i] &&
				!is_target(&s->opts, t->pid[j]);
		if (mine) {
			kids += mine;
			parents++;
			parent = s->opts.pids[i];
		}
	}
	if (parents == 1)
		ct_warn("attach: note: pid %d has %zu live child process%s, "
			"not traced (--tree traces them too)", parent, kids,
			kids == 1 ? "" : "es");
	else if (parents)
		ct_warn("attach: note: %zu targets have %zu live child "
			"processes, not traced (--tree traces them too)",
			parents, kids);
}

static int seed_targets(struct session *s, size_t named)
{
	struct tree_scan t = {};
	unsigned int *depth = xcalloc(s->opts.npids + 1, sizeof(*depth));
	int err = 0;

	s->model.start_ns = now_ns();
	for (size_t i = 0; i < s->opts.npids; i++)
		depth[i] = target_depth(&s->opts, s->opts.pids[i]);
	for (size_t i = 0; i < s->opts.npids && !err; i++)
		err = attach_add_target(s, s->opts.pids[i],
					proc_ppid(s->opts.pids[i]), depth[i],
					i < named);
	if (!err)
		proc_for_each(note_parent, &t);
	if (!err && !s->opts.tree)
		hint_children(s, named, &t);
	for (size_t i = 0; i < s->opts.npids && !err && s->opts.tree; i++)
		err = add_descendants(s, s->opts.pids[i], depth[i] + 1, &t);
	free(depth);
	free(t.pid);
	free(t.ppid);
	return err;
}

static int prepare_attach(struct session *s, int argc, char **argv)
{
	int err = resolve_targets(&s->opts, &s->named_pids);

	if (!err)
		err = report_file_open(&s->report, s->opts.output, stderr);
	if (!err)
		err = report_file_open(&s->html, s->opts.html, NULL);
	if (err)
		return err;
	s->model.command = argv;
	s->model.ncommand = argc;
	return SESSION_GO_ON;
}

static int seed_attach(struct session *s)
{
	if (seed_targets(s, s->named_pids))
		return EXIT_TOOL_FAILURE;
	session_start_status(s);
	return 0;
}

/*
 * By name or cgroup, a new target may exec any time: wait for -d or ^C.
 * By pid, end when all are gone, even if no exit notice came.
 */
static bool attach_over(struct session *s)
{
	return !s->opts.comm && !s->opts.cgtarget && session_all_gone(s);
}

static const struct session_ops attach_ops = {
	.mode = MODE_ATTACH,
	.evicts = true,
	.prepare = prepare_attach,
	.seed = seed_attach,
	.tick = session_print_interval,
	.over = attach_over,
	.finish = session_report,
};

int cmd_attach(int argc, char **argv)
{
	return session_main(&attach_ops, argc, argv);
}
