// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace attach: trace processes that already run, their threads and
 * every child they fork from now on (--tree: the existing ones too).
 * Who they are is user/trace/targets.c's.
 */
#include "cmds.h"
#include "util.h"

struct attach_state {
	size_t named;		/* the first targets, named by -p */
};

static int prepare_attach(struct session *s, int argc, char **argv)
{
	struct attach_state *st = session_state(s);
	struct model *m = session_model(s);
	int err = targets_resolve(session_opts(s), &st->named);

	if (!err)
		err = session_open_outputs(s, stderr);
	if (err)
		return err;
	m->command = argv;
	m->ncommand = argc;
	return SESSION_GO_ON;
}

static int seed_attach(struct session *s)
{
	struct attach_state *st = session_state(s);

	session_model(s)->start_ns = now_ns();
	if (targets_seed(session_targets(s), session_opts(s), st->named))
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
	const struct opts *opts = session_opts(s);

	return !opts->comm && !opts->cgtarget && session_all_gone(s);
}

static const struct session_ops attach_ops = {
	.mode = MODE_ATTACH,
	.evicts = true,
	.libc_per_process = true,
	.state_size = sizeof(struct attach_state),
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
