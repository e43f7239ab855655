// SPDX-License-Identifier: GPL-2.0
/*
 * The session's targets: who is traced, and what /proc and the kernel's
 * notices tell of each (targets.h).  Shared by run, attach and top.
 */
#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>

#include "cgroup.h"
#include "clocktrace.h"
#include "container.h"
#include "container_names.h"
#include "procfs.h"
#include "targets.h"
#include "util.h"

void targets_set_env(struct proc_model *p, int state, char *tz,
			  char *tzdir)
{
	free(p->tz);
	free(p->tzdir);
	p->tz_state = state;
	p->tz = tz;
	p->tzdir = tzdir;
}

void targets_learn_env(struct proc_model *p)
{
	char *tz = NULL, *tzdir = NULL;
	int found = proc_getenv(p->pid, "TZ", &tz);

	if (found < 0)
		return;
	proc_getenv(p->pid, "TZDIR", &tzdir);
	targets_set_env(p, found ? ENV_SET : ENV_UNSET, tz, tzdir);
}

static void learn_cgroup(struct proc_model *p, uint64_t id);

void targets_learn_place(struct proc_model *p)
{
	pid_t nspid = proc_nspid(p->pid);

	learn_cgroup(p, 0);
	if (nspid >= 0)
		p->nspid = nspid;
}

/* What getenv() gives, as the kernel side read it: NULL when unset. */
static char *env_value(__u8 state, const char *val, __u16 len)
{
	char *v;

	if (state != ENV_SEEN_SET)
		return NULL;
	if (len >= ENV_VALUE_LEN)
		len = ENV_VALUE_LEN - 1;
	v = xcalloc(1, len + 1);
	memcpy(v, val, len);
	return v;
}

/*
 * TZ and TZDIR from the exec notice; /proc/PID/environ only when the
 * kernel side could not read them (too long, too many entries).
 */
static void learn_exec_env(struct proc_model *p, const struct exec_env *x)
{
	if (x->tz_state == ENV_SEEN_UNREAD || x->tzdir_state == ENV_SEEN_UNREAD) {
		targets_learn_env(p);
		return;
	}
	targets_set_env(p, x->tz_state == ENV_SEEN_SET ? ENV_SET : ENV_UNSET,
			     env_value(x->tz_state, x->tz, x->tz_len),
			     env_value(x->tzdir_state, x->tzdir, x->tzdir_len));
}

/*
 * A container id only from a cgroup a runtime made: the same name in a
 * cgroup delegated to a user is kept apart, never credited.
 */
static void learn_container(struct proc_model *p)
{
	char id[sizeof(p->container)];
	enum container_claim c = container_of_cgroup(p->cgroup, id);

	p->container[0] = p->container_unverified[0] = '\0';
	p->names = NULL;
	if (c == CONTAINER_VERIFIED) {
		memcpy(p->container, id, sizeof(id));
		/* Once per container: its runtime's files are read at its first sight. */
		p->names = container_names_of(id);
	}
	else if (c == CONTAINER_UNVERIFIED)
		memcpy(p->container_unverified, id, sizeof(id));
}

/*
 * From /proc while the process lives, else from the id its notice carried:
 * a move after the exec is seen only while the process lives.
 */
static void learn_cgroup(struct proc_model *p, uint64_t id)
{
	char path[64], *buf, *cg;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", p->pid);
	buf = read_file(path, 1 << 16, &len);
	cg = buf ? cgroup_v2_path(buf, len) : NULL;
	free(buf);
	if (!cg && id)
		cg = cgroup_path_of_id(id);
	if (!cg)
		return;
	free(p->cgroup);
	p->cgroup = cg;
	learn_container(p);
}

static void inherit_env(struct proc_model *child, const struct proc_model *parent)
{
	targets_set_env(child, parent->tz_state,
		     parent->tz ? xstrdup(parent->tz) : NULL,
		     parent->tzdir ? xstrdup(parent->tzdir) : NULL);
}

/*
 * The live link is best; once the process is gone, the path exec was given,
 * unless it was relative or /proc/self/exe: then the parent's image if it
 * is the same file name, else the file name alone.
 */
static char *exe_of_event(const struct model *m, const struct exec_event *x)
{
	char path[EXE_LEN + 1], name[sizeof(x->exe_name) + 1];
	const struct event *e = &x->base;
	const struct proc_model *parent;
	char *exe = proc_exe(e->pid);

	if (exe)
		return exe;
	snprintf(path, sizeof(path), "%.*s", EXE_LEN, x->exe);
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(x->exe_name),
		 x->exe_name);
	if (path[0] == '/' && strncmp(path, "/proc/", 6))
		return xstrdup(path);
	parent = model_find(m, e->ppid);
	if (parent && parent->exe && !strcmp(path_base_name(parent->exe), name))
		return xstrdup(parent->exe);
	return xstrdup(name[0] ? name : path);
}


void targets_learn_fork(struct model *m, struct proc_model *p,
			const struct event *e)
{
	const struct proc_model *parent = model_find(m, e->ppid);

	p->ppid = e->ppid;
	p->running_since_ns = e->ts_ns;
	if (!parent)
		return;
	if (p->tz_state == ENV_UNKNOWN)
		inherit_env(p, parent);
	if (!p->cgroup && parent->cgroup) {
		p->cgroup = xstrdup(parent->cgroup);
		memcpy(p->container, parent->container, sizeof(p->container));
		memcpy(p->container_unverified, parent->container_unverified,
		       sizeof(p->container_unverified));
		p->names = parent->names;
	}
	if (!p->exe && parent->exe)
		p->exe = xstrdup(parent->exe);
}

void targets_learn_exec(struct model *m, struct proc_model *p,
			const struct exec_event *x)
{
	p->running_since_ns = x->base.ts_ns;
	free(p->exe);
	p->exe = exe_of_event(m, x);
	learn_exec_env(p, &x->env);
	learn_cgroup(p, x->base.cgroup_id);
}

struct target_scan {
	struct opts *opts;
	pid_t *pids;
	size_t n;
};

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
int targets_resolve_cgroup(struct opts *opts)
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
int targets_resolve(struct opts *opts, size_t *named)
{
	struct target_scan ts = { .opts = opts };

	for (size_t i = 0; i < opts->npids; i++) {
		pid_t tgid = proc_tgid(opts->pids[i]);

		if (tgid <= 0 || !proc_exists(tgid)) {
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
	return targets_resolve_cgroup(opts);
}

/*
 * A target can exit between the scan of /proc and its entry in the process
 * map; the kernel side then never sees it exit, and the report would call
 * it running forever.  Asked after the entry is made, so that every exit
 * is either seen by the kernel side or found here.
 */
static bool exited_untraced(struct targets *t, pid_t pid)
{
	return proc_gone(pid) && tracer_proc_exit_seen(t->tracer, pid) != 1;
}

int targets_add(struct targets *t, pid_t pid, pid_t ppid, unsigned int depth,
		bool named)
{
	struct proc_model *p;
	char comm[32] = "";

	if (model_find(t->model, pid) && depth > 0)
		return 0;
	proc_comm(pid, comm, sizeof(comm));
	if (tracer_add_proc(t->tracer, pid, ppid, depth, comm))
		return -1;
	if (exited_untraced(t, pid)) {
		tracer_forget_proc(t->tracer, pid);
		if (!named)
			return 0;
		ct_warn("attach: pid %d exited before tracing began", pid);
		return -1;
	}
	p = model_proc(t->model, pid);
	p->ppid = ppid;
	p->depth = depth;
	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	free(p->exe);
	p->exe = proc_exe(pid);
	targets_learn_env(p);
	targets_learn_place(p);
	tracer_set_proc_tz(t->tracer, pid, p->tz, p->tzdir);
	if (t->libc)
		libc_probe_process(t->libc, t->tracer, p);
	if (t->lang)
		lang_probe_process(t->lang, pid);
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
static int add_descendants(struct targets *t, pid_t root, unsigned int depth,
			   const struct tree_scan *tree)
{
	if (depth > 64)
		return 0;
	for (size_t i = 0; i < tree->n; i++) {
		if (tree->ppid[i] != root || tree->pid[i] == getpid())
			continue;
		if (targets_add(t, tree->pid[i], root, depth, false) ||
		    add_descendants(t, tree->pid[i], depth + 1, tree))
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
static void hint_children(const struct opts *opts, size_t named,
			  const struct tree_scan *t)
{
	size_t kids = 0, parents = 0;
	pid_t parent = 0;

	for (size_t i = 0; i < named; i++) {
		size_t mine = 0;

		for (size_t j = 0; j < t->n; j++)
			mine += t->ppid[j] == opts->pids[i] &&
				!is_target(opts, t->pid[j]);
		if (mine) {
			kids += mine;
			parents++;
			parent = opts->pids[i];
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

int targets_seed(struct targets *t, const struct opts *opts, size_t named)
{
	struct tree_scan tree = {};
	unsigned int *depth = xcalloc(opts->npids + 1, sizeof(*depth));
	int err = 0;

	for (size_t i = 0; i < opts->npids; i++)
		depth[i] = target_depth(opts, opts->pids[i]);
	for (size_t i = 0; i < opts->npids && !err; i++)
		err = targets_add(t, opts->pids[i], proc_ppid(opts->pids[i]),
				  depth[i], i < named);
	if (!err && (named || opts->tree))
		proc_for_each(note_parent, &tree);
	if (!err && named && !opts->tree)
		hint_children(opts, named, &tree);
	for (size_t i = 0; i < opts->npids && !err && opts->tree; i++)
		err = add_descendants(t, opts->pids[i], depth[i] + 1, &tree);
	free(depth);
	free(tree.pid);
	free(tree.ppid);
	return err;
}

