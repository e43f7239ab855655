// SPDX-License-Identifier: GPL-2.0
/* clocktrace run: start PROG held, trace its whole tree, report when it exits. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "procfs.h"
#include "session.h"
#include "util.h"

static int run_status(const struct session *s)
{
	if (s->abort_signal)
		return 128 + s->abort_signal;
	if (!s->prog_exited)
		return 0;
	if (WIFSIGNALED(s->prog_status))
		return 128 + WTERMSIG(s->prog_status);
	return WEXITSTATUS(s->prog_status);
}

static void warn_root_prog(const struct opts *opts)
{
	const char *sudo_user = getenv("SUDO_USER");

	if (opts->user || !sudo_user || geteuid() != 0)
		return;
	ct_warn("note: PROG runs as root; use -u %s to run it as yourself",
	     sudo_user);
}

/* --cgroup/--unit: the processes already in it are targets from now. */
static int seed_cgroup(struct session *s)
{
	for (size_t i = 0; i < s->opts.npids; i++)
		if (attach_add_target(s, s->opts.pids[i],
				      proc_ppid(s->opts.pids[i]), 0, false))
			return -1;
	return 0;
}

static int seed_run(struct session *s)
{
	struct proc_model *root;
	char *tz = getenv("TZ"), *tzdir = getenv("TZDIR");
	int err;

	/* Forked once our signals are blocked: PROG gets the mask we had. */
	if (launch_prepare(&s->launch, s->opts.prog_argv, s->opts.user,
			   &s->old_mask))
		return EXIT_TOOL_FAILURE;
	if (seed_cgroup(s) ||
	    tracer_add_proc(&s->tracer, s->launch.pid, getpid(), 0, NULL))
		return EXIT_TOOL_FAILURE;
	/* PROG inherits our environment; the kernel reads it again at exec. */
	root = model_proc(&s->model, s->launch.pid);
	session_set_proc_env(root, tz ? ENV_SET : ENV_UNSET, tz ? xstrdup(tz) : NULL,
		     tzdir ? xstrdup(tzdir) : NULL);
	if (session_watch_fd(s, s->launch.pidfd))
		return EXIT_TOOL_FAILURE;
	if (s->opts.libc)
		libc_probe_prog(&s->libc, s->opts.prog_argv[0]);
	s->model.start_ns = now_ns();
	err = launch_release(&s->launch, s->opts.prog_argv[0]);
	if (err)
		s->launch.pid = 0;
	return err;
}

static int prepare_run(struct session *s, int argc, char **argv)
{
	int err;

	(void)argc;
	(void)argv;
	err = attach_resolve_cgroup(&s->opts);
	if (!err)
		err = report_file_open(&s->report, s->opts.output, stderr);
	if (!err)
		err = report_file_open(&s->html, s->opts.html, NULL);
	if (err)
		return err;
	warn_root_prog(&s->opts);
	s->model.command = s->opts.prog_argv;
	s->model.ncommand = s->opts.prog_argc;
	/* Runs PROG many times, a session of its own each. */
	if (s->opts.compare) {
		err = run_compare(s);
		return err < 0 ? 0 : err;
	}
	return SESSION_GO_ON;
}

/* PROG has exited and, with --follow, every descendant too. */
static bool run_over(struct session *s)
{
	return s->prog_exited && (!s->opts.follow || session_all_gone(s));
}

static int finish_run(struct session *s)
{
	/* PROG's status must not hide that its report was lost. */
	if (session_report(s))
		return EXIT_TOOL_FAILURE;
	return run_status(s);
}

static const struct session_ops run_ops = {
	.mode = MODE_RUN,
	.passes_signals = true,
	.prepare = prepare_run,
	.seed = seed_run,
	.tick = session_print_interval,
	.over = run_over,
	.finish = finish_run,
};

int cmd_run(int argc, char **argv)
{
	return session_main(&run_ops, argc, argv);
}
