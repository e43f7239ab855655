// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace run --compare: PROG as it is, then with the fix, one traced
 * run of each for the counts, then --repeat timed runs of each, alternating.
 * Timed runs keep only the process events attached (fork, exec, exit: the
 * CPU time comes from the kernel at exit); the syscall probes would add
 * their own cost to every clock and tz syscall of the variant that makes
 * the most of them, and flatter the fix.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/wait.h>

#include "compare.h"
#include "findings.h"
#include "privs.h"
#include "report.h"
#include "report_html.h"
#include "session.h"
#include "util.h"

#define COUNTED_RUNS	2	/* one of each variant, first */

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
static int prepare_all(struct session *s, struct launch *l, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		struct launch_opts o = {
			.user = s->opts.user,
			.set_env = k % 2 ? (char *const *)s->opts.fix : NULL,
			.capture_stdout = true,
			.close_inherited = true,
		};

		if (launch_prepare_opts(&l[k], s->opts.prog_argv, &o,
					&s->old_mask))
			return -1;
	}
	return 0;
}

static void reset_model(struct session *s)
{
	struct model m = {
		.mode = s->model.mode,
		.command = s->model.command,
		.ncommand = s->model.ncommand,
	};

	memcpy(m.clocksource, s->model.clocksource, sizeof(m.clocksource));
	model_free(&s->model);
	s->model = m;
	s->prog_exited = false;
	s->prog_status = 0;
	s->prog_rusage_cpu_ns = 0;
	s->exits_seen = 0;
	s->exits_checked = 0;
	s->alive_checked_ns = 0;
}

static int start_variant(struct session *s, struct launch *l,
			 enum compare_variant v)
{
	const char *tz = variant_tz(&s->opts, v), *tzdir = getenv("TZDIR");
	struct proc_model *root;

	s->launch = *l;
	memset(l, 0, sizeof(*l));
	s->capture_fd = s->launch.out_fd;
	s->launch.out_fd = -1;
	s->capture_hash = COMPARE_HASH_INIT;
	s->capture_bytes = 0;
	fcntl(s->capture_fd, F_SETFL, O_NONBLOCK);
	if (tracer_add_proc(&s->tracer, s->launch.pid, getpid(), 0, NULL) ||
	    session_watch_fd(s, s->launch.pidfd) ||
	    session_watch_fd(s, s->capture_fd))
		return EXIT_TOOL_FAILURE;
	root = model_proc(&s->model, s->launch.pid);
	session_set_proc_env(root, tz ? ENV_SET : ENV_UNSET,
			     tz ? xstrdup(tz) : NULL,
			     tzdir ? xstrdup(tzdir) : NULL);
	s->model.start_ns = now_ns();
	return launch_release(&s->launch, s->opts.prog_argv[0]);
}

static void end_variant(struct session *s)
{
	if (s->capture_fd >= 0) {
		session_drain_capture(s);
		if (s->capture_fd >= 0) {
			/* A descendant still holds the pipe: what it wrote so far. */
			close(s->capture_fd);
			s->capture_fd = -1;
		}
	}
	launch_abort(&s->launch);
}

static int one_run(struct session *s, struct launch *l, size_t k,
		   struct compare_run *r)
{
	int err;

	memset(r, 0, sizeof(*r));
	r->variant = k % 2;
	r->counted = k < COUNTED_RUNS;
	reset_model(s);
	tracer_reset(&s->tracer);
	if (tracer_count_syscalls(&s->tracer, r->counted))
		return EXIT_TOOL_FAILURE;
	err = start_variant(s, l, r->variant);
	if (!err)
		session_wait(s);
	if (!err && !s->abort_signal)
		session_finish_model(s);
	end_variant(s);
	if (err)
		return err;
	r->status = s->prog_status;
	r->rusage_cpu_ns = s->prog_rusage_cpu_ns;
	r->stdout_hash = s->capture_hash;
	r->stdout_bytes = s->capture_bytes;
	compare_sample(&s->model, r->role);
	return 0;
}

/* Returns 0, or EXIT_TOOL_FAILURE when a report could not be written. */
static int write_reports(struct session *s, const struct model *m,
			 const struct compare *c)
{
	struct findings fs;
	struct report_opts ro = {
		.top_n = s->opts.top_n,
		.per_process = s->opts.per_process,
	};
	FILE *f = report_file_stream(&s->report);
	FILE *html = report_file_stream(&s->html);

	findings_build(m, &fs);
	if (f && s->opts.format == FORMAT_JSON) {
		report_json_compare(f, m, &fs, true, c);
	} else if (f) {
		report_text(f, m, &fs, &ro);
		compare_text(f, c);
	}
	if (html)
		report_html(html, m, &fs, c, NULL);
	findings_free(&fs);
	return session_commit_report(s);
}

static int status_of(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

/* The runs, in order; returns 0 or the status to leave with at once. */
static int run_all(struct session *s, struct launch *l, size_t n,
		   struct compare *c, struct model *counted)
{
	for (size_t k = 0; k < n; k++) {
		struct compare_run r;
		int err = one_run(s, &l[k], k, &r);

		if (err)
			return err;
		if (s->abort_signal)
			return 128 + s->abort_signal;
		compare_add_run(c, &r);
		if (r.counted)
			model_copy(&counted[r.variant], &s->model);
		/* One ^C went to PROG: stop, and report what was measured. */
		if (s->interrupts)
			break;
	}
	return 0;
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

int run_compare(struct session *s)
{
	size_t n = COUNTED_RUNS + 2 * (size_t)s->opts.repeat;
	struct launch *l = xcalloc(n, sizeof(*l));
	struct model counted[VARIANT_MAX] = {};
	struct compare c = { .repeat = s->opts.repeat };
	int err = EXIT_TOOL_FAILURE;

	for (unsigned int i = 0; i < s->opts.nfix; i++)
		c.fix[c.nfix++] = s->opts.fix[i];
	find_presets(&c);
	if (session_setup(s) || prepare_all(s, l, n))
		goto out;
	drop_privileges(false);
	err = run_all(s, l, n, &c, counted);
	session_end_phase(s);
	if (err || !c.nruns)
		goto out;
	compare_summarize(&c);
	/* PROG's status must not hide that its report was lost. */
	err = write_reports(s, &counted[VARIANT_BEFORE], &c);
	if (!err)
		err = status_of(c.runs[0].status);
out:
	for (size_t k = 0; k < n; k++)
		launch_abort(&l[k]);
	free(l);
	model_free(&counted[VARIANT_BEFORE]);
	model_free(&counted[VARIANT_AFTER]);
	compare_free(&c);
	return err;
}
