// SPDX-License-Identifier: GPL-2.0
/* clocktrace run: start PROG held, trace its whole tree, report when it exits. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "privs.h"
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

static int seed_run(struct session *s)
{
	struct proc_model *root;
	char *tz = getenv("TZ"), *tzdir = getenv("TZDIR");
	int err;

	if (tracer_add_proc(&s->tracer, s->launch.pid, getpid(), 0, NULL))
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

int cmd_run(int argc, char **argv)
{
	int err;
	struct session *s = session_new(MODE_RUN, argc, argv, &err);

	if (!err)
		err = report_file_open(&s->report, s->opts.output, stderr);
	if (!err)
		err = report_file_open(&s->html, s->opts.html, NULL);
	if (err)
		goto out;
	warn_root_prog(&s->opts);
	s->model.command = s->opts.prog_argv;
	s->model.ncommand = s->opts.prog_argc;
	if (s->opts.compare) {
		err = run_compare(s);
		goto out;
	}
	err = EXIT_TOOL_FAILURE;
	if (session_setup(s))
		goto out;
	if (launch_prepare(&s->launch, s->opts.prog_argv, s->opts.user,
			   &s->old_mask))
		goto out;
	err = seed_run(s);
	if (err)
		goto out;
	drop_privileges(s->opts.libc);
	if (s->opts.interval > 0)
		session_add_timer(s, s->opts.interval, &s->timerfd);
	model_copy(&s->prev, &s->model);
	session_loop(s);
	if (!s->abort_signal) {
		session_finish_model(s);
		session_write_report(s);
		/* PROG's status must not hide that its report was lost. */
		if (session_commit_report(s)) {
			err = EXIT_TOOL_FAILURE;
			goto out;
		}
	}
	err = run_status(s);
out:
	session_free(s);
	return err < 0 ? 0 : err;
}
