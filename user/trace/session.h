/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_SESSION_H
#define CLOCKTRACE_SESSION_H

#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "httpd.h"
#include "launch.h"
#include "lang_probe.h"
#include "libc_probe.h"
#include "metrics.h"
#include "model.h"
#include "report_file.h"
#include "timeline.h"
#include "tracer.h"

struct session;

/*
 * What differs between run, attach and top.  session_main() drives the
 * rest, the same for all: parse, prepare, load and attach, seed, drop
 * privileges, loop (signals, timer, ring buffer, --listen, -d), report,
 * detach.
 */
struct session_ops {
	enum mode mode;
	bool trace_all;		/* every process of the machine (top) */
	bool passes_signals;	/* a signal goes to PROG, whose exit ends us (run) */
	bool evicts;		/* exited processes may leave the maps (attach) */
	/*
	 * Before anything is loaded: name the targets, open the outputs.
	 * SESSION_GO_ON, or the exit status when the session is decided
	 * already (an error; run --compare, which runs sessions of its own).
	 */
	int (*prepare)(struct session *s, int argc, char **argv);
	/* Loaded and attached: the first targets; 0 or the exit status. */
	int (*seed)(struct session *s);
	/* The -i timer fired: true when the session is over. */
	bool (*tick)(struct session *s);
	/* After each wake-up: true when the session is over; NULL: never. */
	bool (*over)(struct session *s);
	/* The loop is over and no second signal aborted: the exit status. */
	int (*finish)(struct session *s);
};

#define SESSION_GO_ON	(-1)

/* A whole session of one mode: the exit status. */
int session_main(const struct session_ops *ops, int argc, char **argv);

struct session {
	const struct session_ops *ops;
	struct opts opts;
	struct tracer tracer;
	struct libc_probe libc;
	struct lang_probe lang;
	struct launch launch;
	struct model model;
	struct model prev;		/* at the last interval report */
	struct report_file report;	/* -o, or stderr (top: stdout) */
	struct report_file html;	/* --html FILE; no stream without */
	struct timeline timeline;	/* -i with --html */
	sigset_t old_mask;
	int epfd;
	int sigfd;
	int timerfd;
	int stopfd;
	int interrupts;
	int abort_signal;		/* second ^C: leave now, no report */
	bool prog_exited;
	int prog_status;
	uint64_t prog_rusage_cpu_ns;	/* PROG and the descendants it waited for */
	uint64_t exits_seen;
	uint64_t exits_checked;		/* exits_seen at the last liveness check */
	uint64_t alive_checked_ns;
	uint64_t exits_evicted;		/* exits_seen at the last eviction */
	struct metrics metrics;		/* what OpenMetrics expositions show */
	struct http_server http;	/* --listen */
	int capture_fd;			/* run --compare: PROG's stdout */
	uint64_t capture_hash;
	uint64_t capture_bytes;
	bool status;			/* a live status line on stderr */
	uint64_t status_ns;
	size_t named_pids;		/* attach: the first ones named by -p */
	uint64_t top_last_ns;		/* top: the last refresh */
	unsigned int top_refreshes;	/* top: refreshes so far (-n) */
};

/* Load and attach, signals and the loop's descriptors (run --compare). */
int session_setup(struct session *s);
void session_set_proc_env(struct proc_model *p, int state, char *tz,
			  char *tzdir);
/* TZ and TZDIR from /proc/PID/environ, where readable, for the report. */
void session_learn_proc_env(struct proc_model *p);
/* Its cgroup v2 path, container id and namespace pid, where readable. */
void session_learn_proc_place(struct proc_model *p);
int session_add_timer(struct session *s, double seconds, int *fd);
int session_watch_fd(struct session *s, int fd);
bool session_any_alive(struct session *s);
/*
 * No traced process left; asked again only after an exit notice, or a
 * second after the last time (reading every map is the costly part).
 */
bool session_all_gone(struct session *s);
/* The -i report of run and attach (their tick). */
bool session_print_interval(struct session *s);
/*
 * run --compare: session_main's loop in two halves, as it runs PROG many times:
 * until one run is done, then once, after the last, the end phase (from
 * then on a signal ends clocktrace at once).
 */
void session_wait(struct session *s);
void session_end_phase(struct session *s);
/* The maps, the processes' images and PROG's exit into s->model. */
void session_finish_model(struct session *s);
/* Reads what PROG wrote so far into the hash; closes the pipe at EOF. */
void session_drain_capture(struct session *s);
/* The status line: only when stderr is a terminal the report won't use. */
void session_start_status(struct session *s);
void session_stop_status(struct session *s);
void session_write_report(struct session *s);
/*
 * The report written, checked and in place: 0, or EXIT_TOOL_FAILURE after
 * one line (a write failed: the status must not say success).
 */
int session_commit_report(struct session *s);
/* The end of run and attach: finish the model, write and commit the report. */
int session_report(struct session *s);
/* To a file, each exposition replaces the last (a snapshot, not a log). */
void session_write_openmetrics(struct session *s, const struct model *m);
/* --listen, and the series' grouping: user/trace/exporter.c. */
int session_start_exporter(struct session *s);
/* The maps into s->model, and the exported counters brought up to date. */
void session_collect(struct session *s);

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_top(int argc, char **argv);
/* run --compare, once the session is parsed and its output open. */
int run_compare(struct session *s);
/*
 * user/cmd/attach.c, also for run and top: --cgroup/--unit resolved into
 * opts->cgtarget, the processes in it now appended to opts->pids (not for
 * top); and one process made a target, as attach does.
 */
int attach_resolve_cgroup(struct opts *opts);
int attach_add_target(struct session *s, pid_t pid, pid_t ppid,
		      unsigned int depth, bool named);

#endif /* CLOCKTRACE_SESSION_H */
