// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace run --compare: PROG as it is, then with the fix, one traced
 * run of each for the counts, then --repeat timed runs of each, alternating.
 * Timed runs keep only the process events attached (fork, exec, exit: the
 * CPU time comes from the kernel at exit); the syscall probes would add
 * their own cost to every clock and tz syscall of the variant that makes
 * the most of them, and flatter the fix.  A mode of its own: run's ops
 * give way to these once the options ask for --compare.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "cmds.h"
#include "compare.h"
#include "findings.h"
#include "privs.h"
#include "report.h"
#include "util.h"

#define COUNTED_RUNS	2	/* one of each variant, first */

struct compare_state {
	struct launch *launches;	/* every PROG, held from the start */
	size_t nlaunches;
	struct compare c;
	struct model counted[VARIANT_MAX];
};

/* The fix's TZ if it sets one, else ours: what the kernel side will see. */
static const char *variant_tz(const struct opts *opts, enum compare_variant v)
{
	if (v == VARIANT_AFTER)
		for (unsigned int i = 0; i < opts->nfix; i++)
			if (!strncmp(opts->fix[i], "TZ=", 3))
				return opts->fix[i] + 3;
	return getenv("TZ");
}

/* Every PROG is forked before privileges drop, so each runs the same. */
static int hold_all(struct session *s, struct launch *l, size_t n)
{
	const struct opts *opts = session_opts(s);

	for (size_t k = 0; k < n; k++) {
		struct launch_opts o = {
			.user = opts->user,
			.set_env = k % 2 ? (char *const *)opts->fix : NULL,
			.capture_stdout = true,
			.close_inherited = true,
		};

		if (session_hold_prog(s, &l[k], &o))
			return -1;
	}
	return 0;
}

static int one_run(struct session *s, struct launch *l, size_t k,
		   struct compare_run *r)
{
	const struct session_prog *p = session_prog(s);
	int err;

	memset(r, 0, sizeof(*r));
	r->variant = k % 2;
	r->counted = k < COUNTED_RUNS;
	if (tracer_count_syscalls(session_tracer(s), r->counted))
		return EXIT_TOOL_FAILURE;
	err = session_run_once(s, l, variant_tz(session_opts(s), r->variant));
	if (err)
		return err;
	r->status = p->status;
	r->rusage_cpu_ns = p->cpu_ns;
	r->stdout_hash = p->stdout_hash;
	r->stdout_bytes = p->stdout_bytes;
	compare_sample(session_model(s), r->role);
	return 0;
}

/* What a view of run --compare's counted model needs beside it. */
struct compare_view {
	const struct findings *fs;
	const struct report_opts *ro;
	const struct compare *c;
};

static void compare_view_text(FILE *f, const struct model *m, void *ctx)
{
	const struct compare_view *v = ctx;

	report_text(f, m, v->fs, v->ro);
	compare_text(f, v->c);
}

static void compare_view_json(FILE *f, const struct model *m, void *ctx)
{
	const struct compare_view *v = ctx;

	report_json_compare(f, m, v->fs, true, v->c);
}

static const struct session_views compare_views = {
	.text = compare_view_text,
	.json = compare_view_json,
};

/* Returns 0, or EXIT_TOOL_FAILURE when a report could not be written. */
static int write_reports(struct session *s, const struct model *m,
			 const struct compare *c)
{
	const struct opts *opts = session_opts(s);
	struct findings fs;
	struct report_opts ro = {
		.top_n = opts->top_n,
		.per_process = opts->per_process,
	};
	struct compare_view v = { .fs = &fs, .ro = &ro, .c = c };

	findings_build(m, &fs);
	session_show(s, m, &compare_views, &v, false);
	session_show_html(s, m, &fs, c);
	findings_free(&fs);
	return session_commit_report(s);
}

static int status_of(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* NAME=VALUE of each variable of the fix already in our environment. */
static void find_presets(struct compare *c)
{
	extern char **environ;

	for (size_t i = 0; i < c->nfix; i++) {
		size_t n = strchr(c->fix[i], '=') - c->fix[i] + 1;

		for (char **e = environ; *e; e++)
			if (!strncmp(*e, c->fix[i], n))
				c->preset[c->npreset++] = *e;
	}
}

/* The runs, in order; returns 0 or the status to leave with at once. */
static int compare_runs(struct session *s)
{
	struct compare_state *st = session_state(s);
	const struct opts *opts = session_opts(s);

	st->nlaunches = COUNTED_RUNS + 2 * (size_t)opts->repeat;
	st->launches = xcalloc(st->nlaunches, sizeof(*st->launches));
	st->c.repeat = opts->repeat;
	for (unsigned int i = 0; i < opts->nfix; i++)
		st->c.fix[st->c.nfix++] = opts->fix[i];
	find_presets(&st->c);
	if (hold_all(s, st->launches, st->nlaunches))
		return EXIT_TOOL_FAILURE;
	/* Its PROGs get ^C as run's; no probe is added once they run. */
	drop_privileges(&(struct privs_need){ .signals_prog = true });
	for (size_t k = 0; k < st->nlaunches; k++) {
		struct compare_run r;
		int err = one_run(s, &st->launches[k], k, &r);

		if (err)
			return err;
		if (session_abort_signal(s))
			return 128 + session_abort_signal(s);
		compare_add_run(&st->c, &r);
		if (r.counted)
			model_copy(&st->counted[r.variant], session_model(s));
		/* One ^C went to PROG: stop, and report what was measured. */
		if (session_interrupts(s))
			break;
	}
	return 0;
}

static int compare_finish(struct session *s)
{
	struct compare_state *st = session_state(s);
	int err;

	if (!st->c.nruns)
		return 0;
	compare_summarize(&st->c);
	/* PROG's status must not hide that its report was lost. */
	err = write_reports(s, &st->counted[VARIANT_BEFORE], &st->c);
	return err ? err : status_of(st->c.runs[0].status);
}

static void compare_cleanup(struct session *s)
{
	struct compare_state *st = session_state(s);

	for (size_t k = 0; k < st->nlaunches; k++)
		launch_abort(&st->launches[k]);
	free(st->launches);
	model_free(&st->counted[VARIANT_BEFORE]);
	model_free(&st->counted[VARIANT_AFTER]);
	compare_free(&st->c);
}

const struct session_ops compare_ops = {
	.mode = MODE_RUN,
	.passes_signals = true,
	.state_size = sizeof(struct compare_state),
	.run = compare_runs,
	.over = run_over,
	.finish = compare_finish,
	.cleanup = compare_cleanup,
};
