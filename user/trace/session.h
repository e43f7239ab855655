/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A tracing session: what run, attach, top and run --compare share.  The
 * session itself is private to session.c; a mode brings its session_ops
 * and, in session_state(), its own state.
 */
#ifndef CLOCKTRACE_SESSION_H
#define CLOCKTRACE_SESSION_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "cli.h"
#include "launch.h"
#include "model.h"
#include "targets.h"
#include "tracer.h"

struct session;

/*
 * What differs between the modes.  session_main() drives the rest, the
 * same for all: parse, prepare, load and attach, seed, drop privileges,
 * loop (signals, timer, ring buffer, --listen, -d), report, detach.
 */
struct session_ops {
	enum mode mode;
	bool trace_all;		/* every process of the machine (top) */
	bool passes_signals;	/* a signal goes to PROG, whose exit ends us (run) */
	bool evicts;		/* exited processes may leave the maps (attach) */
	bool libc_per_process;	/* --libc probes only the targets (attach) */
	size_t state_size;	/* session_state(): zeroed, freed with the session */
	/*
	 * Before anything is loaded: name the targets, open the outputs.
	 * SESSION_GO_ON, or the exit status when the session is decided
	 * already (an error).
	 */
	int (*prepare)(struct session *s, int argc, char **argv);
	/* Loaded and attached: the first targets; 0 or the exit status. */
	int (*seed)(struct session *s);
	/*
	 * Instead of seed and the loop: a mode that runs PROG many times
	 * (session_run_once); 0 or the exit status.
	 */
	int (*run)(struct session *s);
	/* The -i timer fired: true when the session is over. */
	bool (*tick)(struct session *s);
	/* After each wake-up: true when the session is over; NULL: never. */
	bool (*over)(struct session *s);
	/* The loop is over and no second signal aborted: the exit status. */
	int (*finish)(struct session *s);
	/* The mode's state released; NULL when there is nothing to free. */
	void (*cleanup)(struct session *s);
};

#define SESSION_GO_ON	(-1)

/* A whole session of one mode: the exit status. */
int session_main(const struct session_ops *ops, int argc, char **argv);
/* In prepare: another mode's ops from now on (run --compare). */
void session_switch_ops(struct session *s, const struct session_ops *ops);

struct opts *session_opts(struct session *s);
struct model *session_model(struct session *s);
struct tracer *session_tracer(struct session *s);
struct targets *session_targets(struct session *s);
void *session_state(struct session *s);

/* -o (or dflt) and --html, opened before anything is loaded. */
int session_open_outputs(struct session *s, FILE *dflt);

/* PROG, as the session runs it. */
struct session_prog {
	bool exited;
	int status;		/* wait(2)'s */
	uint64_t cpu_ns;	/* PROG and the descendants it waited for */
	uint64_t stdout_hash;	/* launch_opts.capture_stdout: what it wrote */
	uint64_t stdout_bytes;
};

/* PROG forked and held, with the signal mask we had. */
int session_hold_prog(struct session *s, struct launch *l,
		      const struct launch_opts *o);
/*
 * PROG (held in l, which the session takes) entered as the root target
 * with TZ and TZDIR as given, then released: 0, or the exit status.
 */
int session_start_prog(struct session *s, struct launch *l, const char *tz,
		       const char *tzdir);
const struct session_prog *session_prog(const struct session *s);
/*
 * run --compare: one whole traced run of a held PROG in a fresh model,
 * the loop until it ends, the model finished: 0, or the exit status.
 */
int session_run_once(struct session *s, struct launch *l, const char *tz);
/* A second signal: the session must end now, with 128 + its number. */
int session_abort_signal(const struct session *s);
unsigned int session_interrupts(const struct session *s);

/*
 * No traced process left; asked again only after an exit notice, or a
 * second after the last time (reading every map is the costly part).
 */
bool session_all_gone(struct session *s);
/* The -i report of run and attach (their tick). */
bool session_print_interval(struct session *s);
/* The status line: only when stderr is a terminal the report won't use. */
void session_start_status(struct session *s);

/* A model's view in each --format; NULL: the text one. */
struct session_views {
	void (*text)(FILE *f, const struct model *m, void *ctx);
	void (*json)(FILE *f, const struct model *m, void *ctx);
	void (*folded)(FILE *f, const struct model *m, void *ctx);
};
/*
 * m shown in the format asked (OpenMetrics: the exporter's snapshot);
 * PUBLISH: made visible at once (an interval), not only at the end.
 */
void session_show(struct session *s, const struct model *m,
		  const struct session_views *v, void *ctx, bool publish);
/* --html's page: with c, run --compare's; else with -i's timeline. */
struct compare;
struct findings;
void session_show_html(struct session *s, const struct model *m,
		       const struct findings *fs, const struct compare *c);
/*
 * The report written, checked and in place: 0, or EXIT_TOOL_FAILURE after
 * one line (a write failed: the status must not say success).
 */
int session_commit_report(struct session *s);
/* The end of run and attach: finish the model, write and commit the report. */
int session_report(struct session *s);

#endif /* CLOCKTRACE_SESSION_H */
