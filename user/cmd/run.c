// SPDX-License-Identifier: GPL-2.0
/* clocktrace run: start PROG held, trace its whole tree, report when it exits. */
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>

#include "cmds.h"
#include "procfs.h"
#include "util.h"

static int run_status(const struct session *s)
{
	const struct session_prog *p = session_prog(s);

	if (!p->exited)
		return 0;
	if (WIFSIGNALED(p->status))
		return 128 + WTERMSIG(p->status);
	return WEXITSTATUS(p->status);
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
	const struct opts *opts = session_opts(s);

	for (size_t i = 0; i < opts->npids; i++)
		if (targets_add(session_targets(s), opts->pids[i],
				proc_ppid(opts->pids[i]), 0, false))
			return -1;
	return 0;
}

static int seed_run(struct session *s)
{
	const struct opts *opts = session_opts(s);
	struct launch_opts o = { .user = opts->user };
	struct launch l;

	/* Forked once our signals are blocked: PROG gets the mask we had. */
	if (session_hold_prog(s, &l, &o))
		return EXIT_TOOL_FAILURE;
	if (seed_cgroup(s)) {
		launch_abort(&l);
		return EXIT_TOOL_FAILURE;
	}
	return session_start_prog(s, &l, getenv("TZ"), getenv("TZDIR"));
}

static int prepare_run(struct session *s, int argc, char **argv)
{
	struct opts *opts = session_opts(s);
	struct model *m = session_model(s);
	int err;

	(void)argc;
	(void)argv;
	err = targets_resolve_cgroup(opts);
	if (!err)
		err = session_open_outputs(s, stderr);
	if (err)
		return err;
	warn_root_prog(opts);
	m->command = opts->prog_argv;
	m->ncommand = opts->prog_argc;
	/* Runs PROG many times: a mode of its own. */
	if (opts->compare)
		session_switch_ops(s, &compare_ops);
	return SESSION_GO_ON;
}

bool run_over(struct session *s)
{
	return session_prog(s)->exited &&
	       (!session_opts(s)->follow || session_all_gone(s));
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
