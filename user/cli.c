// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "httpd.h"
#include "util.h"

#define M_RUN		(1u << MODE_RUN)
#define M_ATTACH	(1u << MODE_ATTACH)
#define M_TOP		(1u << MODE_TOP)
#define M_TRACE		(M_RUN | M_ATTACH)
#define M_ALL		(M_RUN | M_ATTACH | M_TOP)

#define MAX_SECONDS	1e7
#define PID_MAX		4194304		/* the kernel's PID_MAX_LIMIT */

enum {
	OPT_TOP = 256, OPT_PER_PROCESS, OPT_LIBC, OPT_LANG, OPT_FOLLOW, OPT_MAX_PROCS,
	OPT_RINGBUF_KB, OPT_COMM, OPT_TREE, OPT_FORMAT, OPT_HTML, OPT_COMPARE,
	OPT_FIX, OPT_REPEAT, OPT_LISTEN, OPT_METRICS_BY, OPT_CGROUP, OPT_UNIT,
};

struct option_doc {
	struct option opt;
	unsigned int modes;
	const char *arg;
	const char *help;
};

static const struct option_doc docs[] = {
	{ { "output", required_argument, NULL, 'o' }, M_ALL, "FILE",
	  "write the report to FILE (not followed if a symlink)" },
	{ { "html", required_argument, NULL, OPT_HTML }, M_TRACE, "FILE",
	  "also write the report as one self-contained HTML page" },
	{ { "compare", no_argument, NULL, OPT_COMPARE }, M_RUN, NULL,
	  "run PROG as it is and with the fix, alternately, and compare" },
	{ { "fix", required_argument, NULL, OPT_FIX }, M_RUN, "NAME=VALUE",
	  "--compare: a variable the fix sets, repeatable (TZ=:/etc/localtime)" },
	{ { "repeat", required_argument, NULL, OPT_REPEAT }, M_RUN, "N",
	  "--compare: timed runs of each variant (default 3, at most 20)" },
	{ { "json", no_argument, NULL, 'j' }, M_ALL, NULL,
	  "the report as JSON (top: one JSON object per line)" },
	{ { "format", required_argument, NULL, OPT_FORMAT }, M_ALL, "FMT",
	  "text, json, openmetrics or folded (stacks for flame graphs)" },
	{ { "pid", required_argument, NULL, 'p' }, M_ATTACH, "PID[,PID...]",
	  "trace these processes" },
	{ { "comm", required_argument, NULL, OPT_COMM }, M_ATTACH, "NAME",
	  "trace every process named NAME, now or after an exec "
	  "(waits for the first)" },
	{ { "cgroup", required_argument, NULL, OPT_CGROUP }, M_ATTACH, "PATH",
	  "trace every process in this cgroup v2 and below it, now or "
	  "after a fork or exec there" },
	{ { "unit", required_argument, NULL, OPT_UNIT }, M_ATTACH, "NAME",
	  "the same for a systemd unit (system.slice/NAME)" },
	{ { "tree", no_argument, NULL, OPT_TREE }, M_ATTACH, NULL,
	  "also trace the targets' existing descendants" },
	{ { "duration", required_argument, NULL, 'd' }, M_ATTACH | M_TOP, "SECONDS",
	  "stop after SECONDS" },
	{ { "interval", required_argument, NULL, 'i' }, M_ALL, "SECONDS",
	  "report every SECONDS (top: refresh period, default 1)" },
	{ { "timestamp", no_argument, NULL, 'T' }, M_ALL, NULL,
	  "print a timestamp with each interval report" },
	{ { "count", required_argument, NULL, 'n' }, M_TOP, "COUNT",
	  "stop after COUNT refreshes" },
	{ { "top", required_argument, NULL, OPT_TOP }, M_ALL, "N",
	  "show the N most active processes (top: rows, default 20)" },
	{ { "per-process", no_argument, NULL, OPT_PER_PROCESS }, M_TRACE, NULL,
	  "latency histograms per process too" },
	{ { "libc", no_argument, NULL, OPT_LIBC }, M_ALL, NULL,
	  "probe the C library's time functions and tie kernel events to them" },
	{ { "lang", no_argument, NULL, OPT_LANG }, M_TRACE, NULL,
	  "tie kernel events to Ruby and Python script lines (Python 3.11: "
	  "frames read at each event; Ruby, other Pythons: USDT probes that "
	  "slow the interpreters many times)" },
	{ { "user", required_argument, NULL, 'u' }, M_RUN, "USER",
	  "run PROG as USER (uid, gid, groups, HOME)" },
	{ { "follow", no_argument, NULL, OPT_FOLLOW }, M_RUN, NULL,
	  "wait for every descendant of PROG, not just PROG" },
	{ { "listen", required_argument, NULL, OPT_LISTEN }, M_ATTACH | M_TOP,
	  "[ADDR:]PORT", "serve GET /metrics (OpenMetrics) on ADDR:PORT "
	  "(default address 127.0.0.1)" },
	{ { "metrics-by", required_argument, NULL, OPT_METRICS_BY }, M_ALL,
	  "comm|pid", "OpenMetrics series per comm (default) or per process" },
	{ { "max-procs", required_argument, NULL, OPT_MAX_PROCS }, M_ALL, "N",
	  "processes traced at once (run: exited ones too; default 16384)" },
	{ { "ringbuf-kb", required_argument, NULL, OPT_RINGBUF_KB }, M_ALL, "KB",
	  "ring buffer for process events, power of 2 (default 1024)" },
	{ { "verbose", no_argument, NULL, 'v' }, M_ALL, NULL,
	  "say more, including libbpf's messages" },
	{ { "help", no_argument, NULL, 'h' }, M_ALL, NULL, "this help" },
};

static const char *const synopsis[] = {
	[MODE_RUN] = "run [OPTIONS] [--] PROG [ARGS...]",
	[MODE_ATTACH] = ("attach [OPTIONS] -p PID[,PID...] | --comm NAME | "
			 "--cgroup PATH | --unit NAME"),
	[MODE_TOP] = "top [OPTIONS]",
};

const char *mode_name(enum mode mode)
{
	static const char *const names[] = { "run", "attach", "top" };

	return names[mode];
}

void cli_usage(FILE *f, enum mode mode)
{
	fprintf(f, "Usage: clocktrace %s\n\nOptions:\n", synopsis[mode]);
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		const struct option_doc *d = &docs[i];
		char left[64];

		if (!(d->modes & (1u << mode)))
			continue;
		if (d->opt.val < 256)
			snprintf(left, sizeof(left), "-%c, --%s%s%s", d->opt.val,
				 d->opt.name, d->arg ? " " : "",
				 d->arg ? d->arg : "");
		else
			snprintf(left, sizeof(left), "    --%s%s%s", d->opt.name,
				 d->arg ? " " : "", d->arg ? d->arg : "");
		fprintf(f, "  %-28s %s\n", left, d->help);
	}
	if (mode == MODE_RUN)
		fputs("\nExit status: PROG's status (128+N if killed by signal "
		      "N);\n126 PROG not executable, 127 PROG not found, "
		      "125 clocktrace failed.\n", f);
	else
		fputs("\nExit status: 0, or 125 when clocktrace failed.\n", f);
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

static void env_defaults(struct env *env, enum mode mode)
{
	memset(env, 0, sizeof(*env));
	env->mode = mode;
	env->max_procs = 16384;
	env->ringbuf_kb = 1024;
	env->repeat = 3;
	if (mode == MODE_TOP) {
		env->interval = 1;
		env->top_n = 20;
	}
}

static int bad(enum mode mode, const char *what, const char *arg)
{
	char safe[128] = "";

	/* The argument is echoed back: a newline in it must not split the line. */
	if (arg)
		escape_bytes(safe, sizeof(safe), arg, strlen(arg));
	warn("%s: %s%s%s%s (see clocktrace %s --help)", mode_name(mode), what,
	     arg ? " '" : "", safe, arg ? "'" : "", mode_name(mode));
	return EXIT_TOOL_FAILURE;
}

/* Why SECONDS was refused, in the words of parse_seconds()'s error. */
static const char *seconds_problem(int err)
{
	switch (err) {
	case -ERANGE:
		return "number of seconds too large (at most 10000000)";
	case -EDOM:
		return "number of seconds too small (at least 0.000001)";
	}
	return "not a plain positive number of seconds (like 5 or 0.5)";
}

int cli_option_error(const char *cmd, int c, char **argv)
{
	/* A long option's optopt is its val (or 0): name it from argv. */
	char o[3] = { '-', (char)optopt, 0 }, safe[128];
	const char *name = optopt > 0 && optopt < 256 ? o : argv[optind - 1];

	escape_bytes(safe, sizeof(safe), name, strlen(name));
	warn("%s: %s '%s' (see clocktrace %s --help)", cmd,
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
static int parse_fix(struct env *env, const char *arg)
{
	const char *eq = strchr(arg, '=');
	size_t n = eq ? (size_t)(eq - arg) : 0;

	if (!n || n > 64 || isdigit((unsigned char)arg[0]) ||
	    strspn(arg, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz"
		   "0123456789_") != n)
		return bad(env->mode, "a fix is NAME=VALUE", arg);
	if (env->nfix >= ARRAY_SIZE(env->fix))
		return bad(env->mode, "too many --fix", arg);
	env->fix[env->nfix++] = arg;
	return 0;
}

static int parse_one(struct env *env, int c, const char *arg)
{
	enum mode mode = env->mode;
	struct sockaddr_storage sa;
	socklen_t salen;
	uint64_t v;
	int err;

	switch (c) {
	case 'o':
		env->output = arg;
		return 0;
	case 'j':
		env->format = FORMAT_JSON;
		return 0;
	case OPT_FORMAT:
		if (!strcmp(arg, "text"))
			env->format = FORMAT_TEXT;
		else if (!strcmp(arg, "json"))
			env->format = FORMAT_JSON;
		else if (!strcmp(arg, "openmetrics"))
			env->format = FORMAT_OPENMETRICS;
		else if (!strcmp(arg, "folded") && mode != MODE_TOP)
			env->format = FORMAT_FOLDED;
		else
			return bad(mode, "unknown format", arg);
		return 0;
	case 'p':
		if (parse_pid_list(arg, &env->pids, &env->npids))
			return bad(mode, "not a pid list", arg);
		return 0;
	case OPT_COMM:
		if (!*arg || strlen(arg) > 15)
			return bad(mode, "a comm is 1 to 15 bytes", arg);
		env->comm = arg;
		return 0;
	case OPT_CGROUP:
		if (!*arg)
			return bad(mode, "an empty cgroup path", arg);
		env->cgroup = arg;
		return 0;
	case OPT_UNIT:
		if (!*arg || strchr(arg, '/'))
			return bad(mode, "a unit name has no '/'", arg);
		env->unit = arg;
		return 0;
	case OPT_TREE:
		env->tree = true;
		return 0;
	case 'd':
		err = parse_seconds(arg, MAX_SECONDS, &env->duration);
		if (err)
			return bad(mode, seconds_problem(err), arg);
		return 0;
	case 'i':
		err = parse_seconds(arg, MAX_SECONDS, &env->interval);
		if (err)
			return bad(mode, seconds_problem(err), arg);
		if (env->interval < 0.01)
			return bad(mode, "interval must be at least 0.01 s", arg);
		return 0;
	case 'T':
		env->timestamps = true;
		return 0;
	case 'n':
		if (parse_u64(arg, 1, 1u << 30, &v))
			return bad(mode, "not a positive count", arg);
		env->iterations = v;
		return 0;
	case OPT_TOP:
		if (parse_u64(arg, 1, 1u << 30, &v))
			return bad(mode, "not a positive count", arg);
		env->top_n = v;
		return 0;
	case OPT_PER_PROCESS:
		env->per_process = true;
		return 0;
	case OPT_LIBC:
		env->libc = true;
		return 0;
	case OPT_LANG:
		env->lang = true;
		return 0;
	case 'u':
		/* Before anything is loaded: a typo must not attach probes. */
		if (!user_exists(arg))
			return bad(mode, "no such user", arg);
		env->user = arg;
		return 0;
	case OPT_FOLLOW:
		env->follow = true;
		return 0;
	case OPT_LISTEN:
		if (http_parse_addr(arg, &sa, &salen))
			return bad(mode, "not [ADDR:]PORT with a numeric ADDR", arg);
		env->listen = arg;
		return 0;
	case OPT_METRICS_BY:
		if (strcmp(arg, "comm") && strcmp(arg, "pid"))
			return bad(mode, "metrics-by is comm or pid", arg);
		env->metrics_by_pid = !strcmp(arg, "pid");
		return 0;
	case OPT_MAX_PROCS:
		if (parse_u64(arg, 1, 1u << 22, &v))
			return bad(mode, "max-procs must be 1 to 4194304", arg);
		env->max_procs = v;
		return 0;
	case OPT_RINGBUF_KB:
		if (parse_u64(arg, 4, 1u << 20, &v) || !is_pow2(v))
			return bad(mode, "ringbuf-kb must be a power of 2, 4 to 1048576", arg);
		env->ringbuf_kb = v;
		return 0;
	case 'v':
		env->verbose = true;
		return 0;
	case OPT_HTML:
		env->html = arg;
		return 0;
	case OPT_COMPARE:
		env->compare = true;
		return 0;
	case OPT_FIX:
		return parse_fix(env, arg);
	case OPT_REPEAT:
		if (parse_u64(arg, 1, 20, &v))
			return bad(mode, "repeat must be 1 to 20", arg);
		env->repeat = v;
		env->repeat_set = true;
		return 0;
	}
	return bad(mode, "unknown option", NULL);
}

static void build_options(enum mode mode, struct option *opts, char *short_opts)
{
	size_t n = 0, s = 0;

	/* '+': stop at PROG, its options are its own.  ':': we report. */
	short_opts[s++] = '+';
	short_opts[s++] = ':';
	for (size_t i = 0; i < ARRAY_SIZE(docs); i++) {
		if (!(docs[i].modes & (1u << mode)))
			continue;
		opts[n++] = docs[i].opt;
		if (docs[i].opt.val < 256) {
			short_opts[s++] = docs[i].opt.val;
			if (docs[i].opt.has_arg)
				short_opts[s++] = ':';
		}
	}
	memset(&opts[n], 0, sizeof(opts[n]));
	short_opts[s] = '\0';
}

static int check_compare(struct env *env)
{
	if (!env->compare) {
		if (env->nfix || env->repeat_set)
			return bad(env->mode, "--fix and --repeat need --compare", NULL);
		return 0;
	}
	/* Uprobes and interval reports would be timed with PROG. */
	if (env->libc || env->lang)
		return bad(env->mode, "--compare times PROG: it cannot take --libc or --lang", NULL);
	if (env->interval > 0)
		return bad(env->mode, "--compare cannot take -i", NULL);
	if (env->format == FORMAT_OPENMETRICS || env->format == FORMAT_FOLDED)
		return bad(env->mode, "--compare reports text, json or html", NULL);
	if (!env->nfix)
		env->fix[env->nfix++] = "TZ=:/etc/localtime";
	env->follow = true;
	return 0;
}

static int check_mode(struct env *env, int argc, char **argv)
{
	/* A flame graph is of a whole run: there is no interval form. */
	if (env->format == FORMAT_FOLDED && env->interval > 0)
		return bad(env->mode, "--format folded takes no -i", NULL);
	switch (env->mode) {
	case MODE_RUN:
		if (optind >= argc)
			return bad(env->mode, "missing PROG", NULL);
		if (check_compare(env))
			return EXIT_TOOL_FAILURE;
		env->prog_argv = argv + optind;
		env->prog_argc = argc - optind;
		return 0;
	case MODE_ATTACH:
		if (optind < argc)
			return bad(env->mode, "unexpected argument", argv[optind]);
		if (!env->npids && !env->comm && !env->cgroup && !env->unit)
			return bad(env->mode, "name targets with -p PID, --comm NAME, "
				   "--cgroup PATH or --unit NAME", NULL);
		if (env->cgroup && env->unit)
			return bad(env->mode, "--cgroup or --unit, not both", NULL);
		return 0;
	case MODE_TOP:
		if (optind < argc)
			return bad(env->mode, "unexpected argument", argv[optind]);
		return 0;
	}
	return 0;
}

int cli_parse(enum mode mode, int argc, char **argv, struct env *env)
{
	struct option opts[ARRAY_SIZE(docs) + 1];
	char short_opts[2 * ARRAY_SIZE(docs) + 3];
	int c, err;

	env_defaults(env, mode);
	build_options(mode, opts, short_opts);
	/* 0, not 1: glibc then also forgets a half-scanned "-abc" group. */
	optind = 0;
	opterr = 0;
	while ((c = getopt_long(argc, argv, short_opts, opts, NULL)) != -1) {
		if (c == 'h') {
			cli_usage(stdout, mode);
			return -1;
		}
		if (c == '?' || c == ':')
			return cli_option_error(mode_name(mode), c, argv);
		err = parse_one(env, c, optarg);
		if (err)
			return err;
	}
	return check_mode(env, argc, argv);
}
