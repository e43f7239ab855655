// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "clocks.h"
#include "httpd.h"
#include "util.h"
#include "vdso_est.h"

#define M_RUN		(1u << MODE_RUN)
#define M_ATTACH	(1u << MODE_ATTACH)
#define M_TOP		(1u << MODE_TOP)
#define M_BENCH		(1u << MODE_BENCH)
#define M_DOCTOR	(1u << MODE_DOCTOR)
#define M_TRACE		(M_RUN | M_ATTACH)
#define M_ALL		(M_RUN | M_ATTACH | M_TOP)

#define MAX_SECONDS	1e7
#define BENCH_MAX_SECONDS	60.0
#define PID_MAX		4194304		/* the kernel's PID_MAX_LIMIT */

enum {
	OPT_TOP = 256, OPT_PER_PROCESS, OPT_LIBC, OPT_LANG, OPT_FOLLOW, OPT_MAX_PROCS,
	OPT_RINGBUF_KB, OPT_COMM, OPT_TREE, OPT_FORMAT, OPT_HTML, OPT_COMPARE,
	OPT_FIX, OPT_REPEAT, OPT_LISTEN, OPT_METRICS_BY, OPT_CGROUP, OPT_UNIT,
	OPT_BY, OPT_CPU, OPT_ATTACH, OPT_VDSO, OPT_VDSO_RATE, OPT_STACKS,
	OPT_LANG_DEPTH,
};

/*
 * One row per option and the modes that take it.  An option that means
 * something else in another mode (bench -d, doctor -p) has a row of its
 * own with the same getopt entry; parse_one() tells them apart by mode.
 */
struct option_doc {
	struct option opt;
	unsigned int modes;
	const char *arg;
	const char *help;
};

static const struct option_doc docs[] = {
	{ { "output", required_argument, NULL, 'o' }, M_ALL | M_BENCH, "FILE",
	  "write the report to FILE (not followed if a symlink)" },
	{ { "html", required_argument, NULL, OPT_HTML }, M_TRACE, "FILE",
	  "also write the report as one self-contained HTML page" },
	{ { "compare", no_argument, NULL, OPT_COMPARE }, M_RUN, NULL,
	  "run PROG as it is and with the fix, alternately, and compare" },
	{ { "fix", required_argument, NULL, OPT_FIX }, M_RUN, "NAME=VALUE",
	  "--compare: a variable the fix sets, repeatable (TZ=:/etc/localtime)" },
	{ { "repeat", required_argument, NULL, OPT_REPEAT }, M_RUN, "N",
	  "--compare: timed runs of each variant (default 3, at most 20)" },
	{ { "json", no_argument, NULL, 'j' }, M_ALL | M_BENCH | M_DOCTOR, NULL,
	  "the report as JSON (top: one JSON object per line)" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, M_ALL, "FMT",
	  "text, json, openmetrics or folded (stacks for flame graphs)" },
	{ { "pid", required_argument, NULL, 'p' }, M_ATTACH, "PID[,PID...]",
	  "trace these processes" },
	{ { "pid", required_argument, NULL, 'p' }, M_DOCTOR, "PID",
	  "also check this process" },
	{ { "comm", required_argument, NULL, OPT_COMM }, M_ATTACH, "NAME",
	  "trace every process named NAME, now or after an exec "
	  "(waits for the first)" },
	{ { "cgroup", required_argument, NULL, OPT_CGROUP }, M_ALL, "PATH",
	  "trace every process in this cgroup v2 and below it, now or "
	  "after a fork or exec there (run: and PROG's tree, until PROG "
	  "ends; top: only those)" },
	{ { "unit", required_argument, NULL, OPT_UNIT }, M_ALL, "NAME",
	  "the same for a systemd unit (system.slice/NAME)" },
	{ { "tree", no_argument, NULL, OPT_TREE }, M_ATTACH, NULL,
	  "also trace the targets' existing descendants" },
	{ { "duration", required_argument, NULL, 'd' }, M_ATTACH | M_TOP, "SECONDS",
	  "stop after SECONDS" },
	{ { "duration", required_argument, NULL, 'd' }, M_BENCH, "SECONDS",
	  "each row runs at least SECONDS (default 0.2, at most 60)" },
	{ { "clock", required_argument, NULL, 'c' }, M_BENCH, "LIST",
	  "only these clocks: realtime, monotonic, monotonic_raw, "
	  "realtime_coarse, monotonic_coarse, boottime, tai, "
	  "process_cputime_id, thread_cputime_id" },
	{ { "fork", no_argument, NULL, 'f' }, M_BENCH, NULL,
	  "also run every row in a forked child and compare (doubles the "
	  "run time)" },
	{ { "cpu", required_argument, NULL, OPT_CPU }, M_BENCH, "N",
	  "pin to CPU N" },
	{ { "interval", required_argument, NULL, 'i' }, M_ALL, "SECONDS",
	  "report every SECONDS (top: refresh period, default 1)" },
	{ { "timestamp", no_argument, NULL, 'T' }, M_ALL, NULL,
	  "print a timestamp with each interval report" },
	{ { "count", required_argument, NULL, 'n' }, M_TOP, "COUNT",
	  "stop after COUNT refreshes" },
	{ { "top", required_argument, NULL, OPT_TOP }, M_ALL, "N",
	  "show the N most active processes (top: rows, default 20)" },
	{ { "by", required_argument, NULL, OPT_BY }, M_TOP,
	  "process|container|cgroup", "a row per process (default), or "
	  "summed per container or per cgroup" },
	{ { "per-process", no_argument, NULL, OPT_PER_PROCESS }, M_TRACE, NULL,
	  "latency histograms per process too" },
	{ { "libc", no_argument, NULL, OPT_LIBC }, M_ALL, NULL,
	  "probe the C library's time functions and tie kernel events to them" },
	{ { "lang", optional_argument, NULL, OPT_LANG }, M_TRACE, "usdt",
	  "tie kernel events to Ruby and Python script lines (Ruby 3.1, "
	  "Python 3.11-3.13: frames read at each event, nothing between; "
	  "other versions, or all with =usdt: USDT probes that slow the "
	  "interpreters many times)" },
	{ { "lang-depth", required_argument, NULL, OPT_LANG_DEPTH }, M_TRACE, "N",
	  "--lang: the innermost N script frames of each event, 1 to 16 "
	  "(default 8): its line and the calls that led there" },
	{ { "stacks", no_argument, NULL, OPT_STACKS }, M_ALL, NULL,
	  "tie each kernel event to its whole user stack, unwound from a "
	  "copy of the stack top (no uprobe; a sample past a rate per "
	  "process, weighted by the exact counts)" },
	{ { "vdso", no_argument, NULL, OPT_VDSO }, M_ALL, NULL,
	  "estimate the clock reads the vDSO serves (never in the kernel) "
	  "by sampling CPU time, with 95% intervals" },
	{ { "vdso-rate", required_argument, NULL, OPT_VDSO_RATE }, M_ALL, "HZ",
	  "--vdso: samples per second of CPU time, 1 to 20000 (default 299)" },
	{ { "user", required_argument, NULL, 'u' }, M_RUN, "USER",
	  "run PROG as USER (uid, gid, groups, HOME)" },
	{ { "follow", no_argument, NULL, OPT_FOLLOW }, M_RUN, NULL,
	  "wait for every descendant of PROG, not just PROG" },
	{ { "listen", required_argument, NULL, OPT_LISTEN }, M_ATTACH | M_TOP,
	  "[ADDR:]PORT", "serve GET /metrics (OpenMetrics) on ADDR:PORT "
	  "(default address 127.0.0.1)" },
	{ { "metrics-by", required_argument, NULL, OPT_METRICS_BY }, M_ALL,
	  "comm|cgroup|pid|container|pod", "OpenMetrics series per comm "
	  "(default), per cgroup v2 path, per process, per container or per "
	  "Kubernetes pod" },
	{ { "max-procs", required_argument, NULL, OPT_MAX_PROCS }, M_ALL, "N",
	  "processes traced at once (run: exited ones too; default 16384)" },
	{ { "ringbuf-kb", required_argument, NULL, OPT_RINGBUF_KB }, M_ALL, "KB",
	  "ring buffer for process events, power of 2 (default 1024)" },
	{ { "attach", required_argument, NULL, OPT_ATTACH }, M_ALL, "MODE",
	  "where syscalls are seen: auto (default: fentry if the kernel "
	  "allows it), tracepoint or fentry" },
	{ { "verbose", no_argument, NULL, 'v' }, M_ALL, NULL,
	  "say more, including libbpf's messages" },
	{ { "help", no_argument, NULL, 'h' }, M_ALL | M_BENCH | M_DOCTOR, NULL,
	  "this help" },
};

static const char *const synopsis[] = {
	[MODE_RUN] = "run [OPTIONS] [--] PROG [ARGS...]",
	[MODE_ATTACH] = ("attach [OPTIONS] -p PID[,PID...] | --comm NAME | "
			 "--cgroup PATH | --unit NAME"),
	[MODE_TOP] = "top [OPTIONS]",
	[MODE_BENCH] = "bench [OPTIONS]",
	[MODE_DOCTOR] = "doctor [-p PID] [--json]",
};

/* What the command does, for those whose name does not say it all. */
static const char *const description[] = {
	[MODE_BENCH] = (
	"What each way of asking for the time costs on this machine: "
	"clock_gettime\nwith every clock through the C library (vDSO where it "
	"serves) and through\nsyscall(2), time() and gettimeofday() both ways, "
	"and localtime(),\nlocaltime_r(), mktime() and tzset() in a child with "
	"TZ unset and with\nTZ=" TZ_FIX_VALUE ".  Median ns per call over 5 or "
	"more trials after a\nwarm-up.  No root needed; as root the syscalls "
	"each call makes are counted.\n"),
	[MODE_DOCTOR] = (
	"Can this machine be traced, and how; with -p, what PID's TZ and C "
	"library\nmean for its time calls.  Run as root for the full check.\n"),
};

static const char *const exit_status[] = {
	[MODE_RUN] = ("PROG's status (128+N if killed by signal N);\n126 PROG "
		      "not executable, 127 PROG not found, 125 clocktrace failed."),
	[MODE_ATTACH] = "0, or 125 when clocktrace failed.",
	[MODE_TOP] = "0, or 125 when clocktrace failed.",
	[MODE_BENCH] = "0, or 125 when clocktrace failed.",
	[MODE_DOCTOR] = "0 tracing can work, 1 it cannot, 125 bad usage or pid.",
};

const char *mode_name(enum mode mode)
{
	static const char *const names[] = {
		[MODE_RUN] = "run", [MODE_ATTACH] = "attach", [MODE_TOP] = "top",
		[MODE_BENCH] = "bench", [MODE_DOCTOR] = "doctor",
	};

	return names[mode];
}

/* The help text after its 31-column option name, wrapped at 80 columns. */
static void print_help_text(FILE *f, const char *left, const char *help)
{
	const int indent = 31, width = 80 - 31;

	fprintf(f, "  %-28s ", left);
	while ((int)strlen(help) > width) {
		int cut = width;

		while (cut > 0 && help[cut] != ' ')
			cut--;
		if (!cut)
			break;
		fprintf(f, "%.*s\n%*s", cut, help, indent, "");
		help += cut + 1;
	}
	fprintf(f, "%s\n", help);
}

void cli_usage(FILE *f, enum mode mode)
{
	fprintf(f, "Usage: clocktrace %s\n\n", synopsis[mode]);
	if (description[mode])
		fprintf(f, "%s\n", description[mode]);
	fputs("Options:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		const struct option_doc *d = &docs[i];
		char left[64];

		if (!(d->modes & (1u << mode)))
			continue;
		if (d->opt.val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->opt.val,
				 d->opt.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		else if (d->opt.has_arg == optional_argument)
			snprintf(left, sizeof(left), "    --%s[=%s]", d->opt.name,
				 d->arg);
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		print_help_text(f, left, d->help);
	}
	fprintf(f, "\nExit status: %s\n", exit_status[mode]);
}

/*
 * PID[,PID...]: every item a plain number; an empty item (",1", "1,,2",
 * "1,") is a typo, not something to skip.
 */
int parse_pid_list(const char *s, pid_t **pids, size_t *n)
{
	const char *item = s;

	for (;;) {
		size_t len = strcspn(item, ",");
		char buf[16];
		uint64_t v;

		if (!len || len >= sizeof(buf))
			return -1;
		memcpy(buf, item, len);
		buf[len] = '\0';
		if (parse_u64(buf, 1, PID_MAX, &v))
			return -1;
		*pids = xrealloc(*pids, *n + 1, sizeof(**pids));
		(*pids)[(*n)++] = v;
		if (!item[len])
			return 0;
		item += len + 1;
	}
}

static void opts_defaults(struct opts *opts, enum mode mode)
{
	memset(opts, 0, sizeof(*opts));
	opts->mode = mode;
	opts->max_procs = 16384;
	opts->ringbuf_kb = 1024;
	opts->vdso_hz = VDSO_RATE_DEFAULT;
	opts->lang_depth = LANG_DEPTH_DEFAULT;
	opts->repeat = 3;
	opts->cpu = -1;
	if (mode == MODE_TOP) {
		opts->interval = 1;
		opts->top_n = 20;
	}
	if (mode == MODE_BENCH)
		opts->duration = 0.2;
}

static int bad(enum mode mode, const char *what, const char *arg)
{
	char safe[128] = "";

	/* The argument is echoed back: a newline in it must not split the line. */
	if (arg)
		escape_bytes(safe, sizeof(safe), arg, strlen(arg));
	ct_warn("%s: %s%s%s%s (see clocktrace %s --help)", mode_name(mode), what,
	     arg ? " '" : "", safe, arg ? "'" : "", mode_name(mode));
	return EXIT_TOOL_FAILURE;
}

/* Why SECONDS was refused, in the words of parse_seconds()'s error. */
static const char *seconds_problem(int err, double max)
{
	switch (err) {
	case -ERANGE:
		return max < MAX_SECONDS ? "number of seconds too large (at most 60)" :
		       "number of seconds too large (at most 10000000)";
	case -EDOM:
		return "number of seconds too small (at least 0.000001)";
	}
	return "not a plain positive number of seconds (like 5 or 0.5)";
}

static int option_error(const char *cmd, int c, char **argv)
{
	/* A long option's optopt is its val (or 0): name it from argv. */
	char o[3] = { '-', (char)optopt, 0 }, safe[128];
	const char *name = optopt > 0 && optopt < 256 ? o : argv[optind - 1];

	escape_bytes(safe, sizeof(safe), name, strlen(name));
	ct_warn("%s: %s '%s' (see clocktrace %s --help)", cmd,
	     c == ':' ? "option needs a value" : "unknown option", safe, cmd);
	return EXIT_TOOL_FAILURE;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/* A name, or a uid that has a passwd entry (as launch.c resolves it). */
static bool user_exists(const char *user)
{
	uint64_t uid;

	if (getpwnam(user))
		return true;
	return !parse_u64(user, 0, UINT32_MAX - 1, &uid) && getpwuid(uid);
}

/* NAME=VALUE with NAME a portable environment variable name. */
static int parse_fix(struct opts *opts, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!n || n > 64 || isdigit((unsigned char)arg[0]) ||
	    strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_") != n)
		return bad(opts->mode, "a fix is NAME=VALUE", arg);
	if (opts->nfix >= ARRAY_SIZE(opts->fix))
		return bad(opts->mode, "too many --fix", arg);
	opts->fix[opts->nfix++] = arg;
	return 0;
}

static int enable_clock(struct opts *opts, const char *name, const char *list)
{
	int32_t clk;

	if (!*name)
		return bad(opts->mode, "empty item in the clock list", list);
	if (clock_from_name(name, &clk) || !clock_is_standard(clk))
		return bad(opts->mode, "unknown clock", name);
	opts->clock_mask |= 1u << clk;
	return 0;
}

/* NAME[,NAME...]: an empty list or an empty item is a typo, refused. */
static int parse_clocks(struct opts *opts, const char *list)
{
	char *copy = xstrdup(list), *item = copy;
	int err;

	opts->clock_mask = 0;
	for (;;) {
		char *comma = strchr(item, ',');

		if (comma)
			*comma = '\0';
		err = enable_clock(opts, item, list);
		if (err || !comma)
			break;
		item = comma + 1;
	}
	free(copy);
	return err;
}

static int parse_duration(struct opts *opts, const char *arg)
{
	double max = opts->mode == MODE_BENCH ? BENCH_MAX_SECONDS : MAX_SECONDS;
	int err = parse_seconds(arg, max, &opts->duration);

	return err ? bad(opts->mode, seconds_problem(err, max), arg) : 0;
}

static const char *const by_names[] = {
	[METRICS_BY_COMM] = "comm",
	[METRICS_BY_PID] = "pid",
	[METRICS_BY_CGROUP] = "cgroup",
	[METRICS_BY_CONTAINER] = "container",
	[METRICS_BY_POD] = "pod",
};

/* --metrics-by's words: "comm", "pid", ... -> by; -1: no such grouping. */
static int metrics_by_parse(const char *name, enum metrics_by *by)
{
	for (size_t i = 0; i < ARRAY_SIZE(by_names); i++) {
		if (!strcmp(name, by_names[i])) {
			*by = (enum metrics_by)i;
			return 0;
		}
	}
	return -1;
}

static int parse_one(struct opts *opts, int c, const char *arg)
{
	enum mode mode = opts->mode;
	struct sockaddr_storage sa;
	socklen_t salen;
	uint64_t v;
	int err;

	switch (c) {
	case 'o':
		opts->output = arg;
		return 0;
	case 'j':
		opts->format = FORMAT_JSON;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			opts->format = FORMAT_TEXT;
		else if (!strcmp(arg, "json"))
			opts->format = FORMAT_JSON;
		else if (!strcmp(arg, "openmetrics"))
			opts->format = FORMAT_OPENMETRICS;
		else if (!strcmp(arg, "folded") && mode != MODE_TOP)
			opts->format = FORMAT_FOLDED;
		else
			return bad(mode, "unknown format", arg);
		return 0;
	case 'p':
		if (parse_pid_list(arg, &opts->pids, &opts->npids))
			return bad(mode, "not a pid list", arg);
		return 0;
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			return bad(mode, "a comm is 1 to 15 bytes", arg);
		opts->comm = arg;
		return 0;
	case OPT_CGROUP:
		if (!*arg)
			return bad(mode, "an empty cgroup path", arg);
		opts->cgroup = arg;
		return 0;
	case OPT_UNIT:
		if (!*arg || strchr(arg, '/'))
			return bad(mode, "a unit name has no '/'", arg);
		opts->unit = arg;
		return 0;
	case OPT_TREE:
		opts->tree = true;
		return 0;
	case 'd':
		return parse_duration(opts, arg);
	case 'i':
		err = parse_seconds(arg, MAX_SECONDS, &opts->interval);
		if (err)
			return bad(mode, seconds_problem(err, MAX_SECONDS), arg);
		if (opts->interval < 0.01)
			return bad(mode, "interval must be at least 0.01 s", arg);
		return 0;
	case 'T':
		opts->timestamps = true;
		return 0;
	case 'n':
		if (parse_u64(arg, 1, 1u << 30, &v))
			return bad(mode, "not a positive count", arg);
		opts->iterations = v;
		return 0;
	case OPT_TOP:
		if (parse_u64(arg, 1, 1u << 30, &v))
			return bad(mode, "not a positive count", arg);
		opts->top_n = v;
		return 0;
	case OPT_BY:
		if (!strcmp(arg, "process"))
			opts->top_by = TOP_BY_PROCESS;
		else if (!strcmp(arg, "container"))
			opts->top_by = TOP_BY_CONTAINER;
		else if (!strcmp(arg, "cgroup"))
			opts->top_by = TOP_BY_CGROUP;
		else
			return bad(mode, "--by is process, container or cgroup", arg);
		return 0;
	case OPT_PER_PROCESS:
		opts->per_process = true;
		return 0;
	case OPT_ATTACH:
		if (attach_mode_parse(arg, &opts->attach))
			return bad(mode, "--attach is auto, tracepoint or fentry",
				   arg);
		return 0;
	case OPT_LIBC:
		opts->libc = true;
		return 0;
	case OPT_LANG:
		if (arg && strcmp(arg, "usdt"))
			return bad(mode, "--lang takes no value or =usdt", arg);
		opts->lang = true;
		opts->lang_usdt = arg != NULL;
		return 0;
	case OPT_LANG_DEPTH:
		if (parse_u64(arg, 1, LANG_DEPTH_MAX, &v))
			return bad(mode, "--lang-depth must be 1 to 16", arg);
		opts->lang_depth = v;
		opts->lang_depth_set = true;
		return 0;
	case OPT_STACKS:
		opts->stacks = true;
		return 0;
	case OPT_VDSO:
		opts->vdso = true;
		return 0;
	case OPT_VDSO_RATE:
		if (parse_u64(arg, 1, VDSO_RATE_MAX, &v))
			return bad(mode, "vdso-rate must be 1 to 20000", arg);
		opts->vdso_hz = v;
		return 0;
	case 'u':
		/* Before anything is loaded: a typo must not attach probes. */
		if (!user_exists(arg))
			return bad(mode, "no such user", arg);
		opts->user = arg;
		return 0;
	case OPT_FOLLOW:
		opts->follow = true;
		return 0;
	case OPT_LISTEN:
		if (http_parse_addr(arg, &sa, &salen))
			return bad(mode, "not [ADDR:]PORT with a numeric ADDR", arg);
		opts->listen = arg;
		return 0;
	case OPT_METRICS_BY:
		if (metrics_by_parse(arg, &opts->metrics_by))
			return bad(mode, "metrics-by is comm, cgroup, pid, "
				   "container or pod", arg);
		return 0;
	case OPT_MAX_PROCS:
		if (parse_u64(arg, 1, 1u << 22, &v))
			return bad(mode, "max-procs must be 1 to 4194304", arg);
		opts->max_procs = v;
		return 0;
	case OPT_RINGBUF_KB:
		if (parse_u64(arg, 4, 1u << 20, &v) || !is_pow2(v))
			return bad(mode, "ringbuf-kb must be a power of 2, 4 to 1048576", arg);
		opts->ringbuf_kb = v;
		return 0;
	case 'v':
		opts->verbose = true;
		return 0;
	case OPT_HTML:
		opts->html = arg;
		return 0;
	case OPT_COMPARE:
		opts->compare = true;
		return 0;
	case OPT_FIX:
		return parse_fix(opts, arg);
	case OPT_REPEAT:
		if (parse_u64(arg, 1, 20, &v))
			return bad(mode, "repeat must be 1 to 20", arg);
		opts->repeat = v;
		opts->repeat_set = true;
		return 0;
	case 'c':
		return parse_clocks(opts, arg);
	case 'f':
		opts->fork = true;
		return 0;
	case OPT_CPU:
		if (parse_u64(arg, 0, CPU_SETSIZE - 1, &v))
			return bad(mode, "not a cpu number", arg);
		opts->cpu = v;
		return 0;
	}
	return bad(mode, "unknown option", NULL);
}

static void build_options(enum mode mode, struct option *longopts, char *short_opts)
{
	size_t n = 0, s = 0;

	/* '+': stop at PROG, its options are its own.  ':': we report. */
	short_opts[s++] = '+';
	short_opts[s++] = ':';
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		if (!(docs[i].modes & (1u << mode)))
			continue;
		longopts[n++] = docs[i].opt;
		if (docs[i].opt.val < 256) {
			short_opts[s++] = docs[i].opt.val;
			if (docs[i].opt.has_arg)
				short_opts[s++] = ':';
		}
	}
	memset(&longopts[n], 0, sizeof(longopts[n]));
	short_opts[s] = '\0';
}

static int check_compare(struct opts *opts)
{
	if (!opts->compare) {
		if (opts->nfix || opts->repeat_set)
			return bad(opts->mode, "--fix and --repeat need --compare", NULL);
		return 0;
	}
	/* Uprobes and interval reports would be timed with PROG. */
	if (opts->libc || opts->lang)
		return bad(opts->mode, "--compare times PROG: it cannot take --libc or --lang", NULL);
	if (opts->stacks)
		return bad(opts->mode, "--compare cannot take --stacks", NULL);
	if (opts->interval > 0)
		return bad(opts->mode, "--compare cannot take -i", NULL);
	if (opts->cgroup || opts->unit)
		return bad(opts->mode, "--compare times PROG alone: it cannot "
			   "take --cgroup or --unit", NULL);
	if (opts->format == FORMAT_OPENMETRICS || opts->format == FORMAT_FOLDED)
		return bad(opts->mode, "--compare reports text, json or html", NULL);
	if (!opts->nfix)
		opts->fix[opts->nfix++] = "TZ=:/etc/localtime";
	opts->follow = true;
	return 0;
}

static int check_mode(struct opts *opts, int argc, char **argv)
{
	if (opts->cgroup && opts->unit)
		return bad(opts->mode, "--cgroup or --unit, not both", NULL);
	/* A flame graph is of a whole run: there is no interval form. */
	if (opts->format == FORMAT_FOLDED && opts->interval > 0)
		return bad(opts->mode, "--format folded takes no -i", NULL);
	if (opts->lang_depth_set && !opts->lang)
		return bad(opts->mode, "--lang-depth needs --lang", NULL);
	switch (opts->mode) {
	case MODE_RUN:
		if (optind >= argc)
			return bad(opts->mode, "missing PROG", NULL);
		if (check_compare(opts))
			return EXIT_TOOL_FAILURE;
		opts->prog_argv = argv + optind;
		opts->prog_argc = argc - optind;
		return 0;
	case MODE_ATTACH:
		if (optind < argc)
			return bad(opts->mode, "unexpected argument", argv[optind]);
		if (!opts->npids && !opts->comm && !opts->cgroup && !opts->unit)
			return bad(opts->mode, "name targets with -p PID, --comm NAME, "
				   "--cgroup PATH or --unit NAME", NULL);
		return 0;
	case MODE_DOCTOR:
		if (opts->npids > 1)
			return bad(opts->mode, "one pid only", NULL);
		/* fall through */
	case MODE_TOP:
	case MODE_BENCH:
		if (optind < argc)
			return bad(opts->mode, "unexpected argument", argv[optind]);
		return 0;
	}
	return 0;
}

int cli_parse(enum mode mode, int argc, char **argv, struct opts *opts)
{
	struct option longopts[ARRAY_SIZE(docs) + 1];
	char short_opts[2 * ARRAY_SIZE(docs) + 3];
	int c, err;

	opts_defaults(opts, mode);
	build_options(mode, longopts, short_opts);
	/* 0, not 1: glibc then also forgets a half-scanned "-abc" group. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, longopts, NULL)) != -1) {
		if (c == 'h') {
			cli_usage(stdout, mode);
			return -1;
		}
		if (c == '?' || c == ':')
			return option_error(mode_name(mode), c, argv);
		err = parse_one(opts, c, optarg);
		if (err)
			return err;
	}
	return check_mode(opts, argc, argv);
}
