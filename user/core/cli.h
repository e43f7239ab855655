/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The command line of every subcommand: one option table, one parser, one
 * help printer, parsed into settled options (struct opts).
 */
#ifndef CLOCKTRACE_CLI_H
#define CLOCKTRACE_CLI_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#include "attach_mode.h"
#include "metrics.h"

struct cgroup_target;

enum mode { MODE_RUN, MODE_ATTACH, MODE_TOP, MODE_BENCH, MODE_DOCTOR };
enum top_by { TOP_BY_PROCESS, TOP_BY_CONTAINER, TOP_BY_CGROUP };
enum format { FORMAT_TEXT, FORMAT_JSON, FORMAT_OPENMETRICS, FORMAT_FOLDED };

struct opts {
	enum mode mode;
	char **prog_argv;		/* run: PROG and its arguments */
	int prog_argc;
	pid_t *pids;			/* attach -p; doctor -p (one) */
	size_t npids;
	const char *comm;		/* attach --comm */
	const char *cgroup;		/* --cgroup PATH */
	const char *unit;		/* --unit NAME */
	struct cgroup_target *cgtarget;	/* either, resolved; else NULL */
	bool tree;
	double duration;		/* -d, 0 = until Ctrl-C or PROG exits;
					 * bench: seconds per row */
	double interval;		/* -i, 0 = a report at the end only */
	bool timestamps;		/* -T */
	unsigned int iterations;	/* top -n, 0 = forever */
	enum top_by top_by;		/* top --by */
	enum format format;
	const char *output;		/* -o, NULL = stderr (stdout for top) */
	unsigned int top_n;		/* --top N processes in the text report */
	bool per_process;
	bool libc;
	bool lang;			/* --lang: interpreters' script frames */
	bool lang_usdt;			/* --lang=usdt: by their USDT probes */
	unsigned int lang_depth;	/* --lang-depth: script frames per event */
	bool lang_depth_set;
	bool vdso;			/* --vdso: sample for vDSO reads */
	bool stacks;			/* --stacks: whole user stacks of the events */
	unsigned int vdso_hz;		/* --vdso-rate */
	bool follow;			/* run: wait for every descendant */
	const char *user;		/* run -u */
	const char *listen;		/* --listen ADDR:PORT: serve /metrics */
	enum metrics_by metrics_by;	/* --metrics-by */
	unsigned int max_procs;
	unsigned int ringbuf_kb;
	bool verbose;
	enum attach_mode attach;	/* --attach auto|tracepoint|fentry */
	const char *html;		/* --html FILE: the report as a web page */
	bool compare;			/* run --compare */
	const char *fix[8];		/* --fix NAME=VALUE, COMPARE_FIX_MAX */
	unsigned int nfix;
	unsigned int repeat;		/* --repeat N, default 3 */
	bool repeat_set;
	uint32_t clock_mask;		/* bench --clock: bit per clock id, 0 = all */
	int cpu;			/* bench --cpu N, -1 = not pinned */
	bool fork;			/* bench --fork */
};

/*
 * argv[0] is the subcommand.  Returns 0 when the session should go on,
 * -1 after --help (exit 0), or 125 after one line on stderr.
 */
int cli_parse(enum mode mode, int argc, char **argv, struct opts *opts);
void cli_usage(FILE *f, enum mode mode);
const char *mode_name(enum mode mode);
int parse_pid_list(const char *s, pid_t **pids, size_t *n);

#endif /* CLOCKTRACE_CLI_H */
