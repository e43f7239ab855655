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

struct session {
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
};

/* Parse the command line, check privileges: every tracing command's start. */
struct session *session_new(enum mode mode, int argc, char **argv, int *err);
/* Detach, close and free: safe at any point after session_new. */
void session_free(struct session *s);
int session_setup(struct session *s);
void session_teardown(struct session *s);
void session_set_proc_env(struct proc_model *p, int state, char *tz,
			  char *tzdir);
/* TZ and TZDIR from /proc/PID/environ, where readable, for the report. */
void session_learn_proc_env(struct proc_model *p);
/* Its cgroup v2 path, container id and namespace pid, where readable. */
void session_learn_proc_place(struct proc_model *p);
int session_add_timer(struct session *s, double seconds, int *fd);
int session_watch_fd(struct session *s, int fd);
bool session_any_alive(struct session *s);
/* Until PROG exits (run), the targets exit, -d, or a signal. */
void session_loop(struct session *s);
/*
 * run --compare: session_loop in two halves, as it runs PROG many times:
 * until one run is done, then once, after the last, the end phase (from
 * then on a signal ends clocktrace at once).
 */
void session_wait(struct session *s);
void session_end_phase(struct session *s);
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
/* To a file, each exposition replaces the last (a snapshot, not a log). */
void session_write_openmetrics(struct session *s, const struct model *m);
/* --listen, and the series' grouping: user/exporter.c. */
int session_start_exporter(struct session *s);
/* The maps into s->model, and the exported counters brought up to date. */
void session_collect(struct session *s);

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_top(int argc, char **argv);
/* run --compare, once the session is parsed and its output open. */
int run_compare(struct session *s);

#endif /* CLOCKTRACE_SESSION_H */
