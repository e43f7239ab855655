// SPDX-License-Identifier: GPL-2.0
/*
 * tzloop - the seed reproducer (tzset + time + localtime in a loop, in a
 * parent and its forked children), made configurable.
 *
 * What glibc does underneath (the stat of /etc/localtime) is not known in
 * advance, so tz_stat and tz_open are reported as -1 ("not self-counted");
 * strace is the oracle for those.  The forced clock syscalls (-s) and the
 * libc calls are counted exactly.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"


enum mode {
	MODE_SEED,
	MODE_LOCALTIME,
	MODE_LOCALTIME_R,
	MODE_MKTIME,
	MODE_TZSET,
	MODE_CTIME,
	MODE_STRFTIME,
	MODE_GMTIME,
	MODE_CLOCK,
	MODE_NONE,
	MODE_INLINE,
};

static const char *const mode_names[] = {
	[MODE_SEED]		= "seed",
	[MODE_LOCALTIME]	= "localtime",
	[MODE_LOCALTIME_R]	= "localtime_r",
	[MODE_MKTIME]		= "mktime",
	[MODE_TZSET]		= "tzset",
	[MODE_CTIME]		= "ctime",
	[MODE_STRFTIME]		= "strftime",
	[MODE_GMTIME]		= "gmtime",
	[MODE_CLOCK]		= "clock",
	[MODE_NONE]		= "none",
	[MODE_INLINE]		= "inline",
};

struct options {
	unsigned long iterations;
	unsigned long children;
	enum mode mode;
	bool parent_idle;
	bool quiet;		/* -q: no WORKLOAD line (the demo) */
	unsigned long linger_ms;	/* -w: alive that long after the work */
	struct clock_spec clocks[MAX_CLOCK_SPECS];
	int nr_clocks;
};

/* Direct calls this process made; nested calls inside libc are not seen. */
struct counts {
	unsigned long tzset;
	unsigned long time;
	unsigned long localtime;
	unsigned long localtime_r;
	unsigned long libc;	/* calls of the mode's own function */
	unsigned long clock_syscalls;
	unsigned long iterations;
	unsigned long vdso_clock_gettime;	/* the two elapsed_ns readings */
	unsigned long long elapsed_ns;
};

/*
 * A fixed instant: the non-seed modes must not call time(), so that the
 * only libc time functions they call are the ones the mode names.
 */
#define FIXED_EPOCH	1700000000

static const char *prog = "tzloop";

__attribute__((noreturn)) static void usage(void)
{
	fprintf(stderr,
		"usage: %s [-n ITER] [-c CHILDREN] [-m MODE] [-s CLOCK:COUNT]... [-p] [-q] [-w MS]\n"
		"  -n ITER         iterations per process (default 10000)\n"
		"  -c CHILDREN     forked children (default 1, 0 = parent only)\n"
		"  -m MODE         seed|localtime|localtime_r|mktime|tzset|ctime|\n"
		"                  strftime|gmtime|clock|none|inline (default seed);\n"
		"                  clock: clock_gettime(CLOCK_MONOTONIC) through\n"
		"                  the C library (the vDSO); inline: localtime()\n"
		"                  from a function always inlined\n"
		"  -s CLOCK:COUNT  COUNT forced clock_gettime syscalls per process;\n"
		"                  CLOCK is CLOCK_MONOTONIC, monotonic, 1, ... (repeatable)\n"
		"  -p              parent does no loop, only forks the children\n"
		"  -q              no WORKLOAD line on stderr\n"
		"  -w MS           each process stays MS ms after its work (its\n"
		"                  maps readable), making no clock or tz call\n",
		prog);
	exit(2);
}

static bool parse_mode(const char *s, enum mode *mode)
{
	size_t i;

	for (i = 0; i < sizeof(mode_names) / sizeof(mode_names[0]); i++) {
		if (!strcmp(s, mode_names[i])) {
			*mode = (enum mode)i;
			return true;
		}
	}
	return false;
}

static void parse_args(int argc, char **argv, struct options *o)
{
	int c;

	o->iterations = 10000;
	o->children = 1;
	o->mode = MODE_SEED;
	while ((c = getopt(argc, argv, "n:c:m:s:pqw:")) != -1) {
		switch (c) {
		case 'n':
			if (!parse_ulong(optarg, &o->iterations))
				usage();
			break;
		case 'c':
			if (!parse_ulong(optarg, &o->children) || o->children > 100000)
				usage();
			break;
		case 'm':
			if (!parse_mode(optarg, &o->mode))
				usage();
			break;
		case 's':
			if (!add_clock_spec(optarg, o->clocks, &o->nr_clocks))
				usage();
			break;
		case 'q':
			o->quiet = true;
			break;
		case 'p':
			o->parent_idle = true;
			break;
		case 'w':
			if (!parse_ulong(optarg, &o->linger_ms) ||
			    o->linger_ms > 60000)
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
}

static void run_seed(unsigned long n, struct counts *cnt)
{
	unsigned long i;
	time_t t;

	for (i = 0; i < n; i++) {
		tzset();
		t = time(NULL);
		localtime(&t);
	}
	cnt->tzset += n;
	cnt->time += n;
	cnt->localtime += n;
	cnt->libc += n;
}

static void run_mktime(unsigned long n, struct counts *cnt)
{
	/* Built by hand so that no other libc time function is called. */
	const struct tm base = {
		.tm_year = 123, .tm_mon = 10, .tm_mday = 14,
		.tm_hour = 22, .tm_min = 13, .tm_sec = 20, .tm_isdst = -1,
	};
	struct tm tm;
	unsigned long i;

	for (i = 0; i < n; i++) {
		tm = base;
		mktime(&tm);
	}
	cnt->libc += n;
}

static void run_strftime(unsigned long n, struct counts *cnt)
{
	const time_t t = FIXED_EPOCH;
	char buf[64];
	struct tm tm;
	unsigned long i;

	localtime_r(&t, &tm);
	cnt->localtime_r++;
	for (i = 0; i < n; i++)
		strftime(buf, sizeof(buf), "%Z", &tm);
	cnt->libc += n;
}

/* Inlined whatever the flags: a frame only the DWARF knows of (--stacks). */
static inline __attribute__((always_inline)) void local_now(const time_t *t)
{
	localtime(t);
}

/* Never inlined nor cloned: the function local_now is inlined into. */
__attribute__((noinline, noclone)) static void
run_inline(unsigned long n, struct counts *cnt)
{
	const time_t t = FIXED_EPOCH;
	unsigned long i;

	for (i = 0; i < n; i++)
		local_now(&t);
	cnt->localtime += n;
	cnt->libc += n;
}

static void run_simple(enum mode mode, unsigned long n, struct counts *cnt)
{
	const time_t t = FIXED_EPOCH;
	struct timespec ts;
	struct tm tm;
	unsigned long i;

	for (i = 0; i < n; i++) {
		switch (mode) {
		case MODE_LOCALTIME:
			localtime(&t);
			break;
		case MODE_LOCALTIME_R:
			localtime_r(&t, &tm);
			break;
		case MODE_TZSET:
			tzset();
			break;
		case MODE_CTIME:
			ctime(&t);
			break;
		case MODE_GMTIME:
			gmtime(&t);
			break;
		case MODE_CLOCK:
			clock_gettime(CLOCK_MONOTONIC, &ts);
			break;
		default:
			return;
		}
	}
	if (mode == MODE_LOCALTIME)
		cnt->localtime += n;
	else if (mode == MODE_LOCALTIME_R)
		cnt->localtime_r += n;
	else if (mode == MODE_TZSET)
		cnt->tzset += n;
	else if (mode == MODE_CLOCK)
		cnt->vdso_clock_gettime += n;
	cnt->libc += n;
}

static void run_loop(const struct options *o, struct counts *cnt)
{
	switch (o->mode) {
	case MODE_SEED:
		run_seed(o->iterations, cnt);
		break;
	case MODE_MKTIME:
		run_mktime(o->iterations, cnt);
		break;
	case MODE_STRFTIME:
		run_strftime(o->iterations, cnt);
		break;
	case MODE_INLINE:
		run_inline(o->iterations, cnt);
		break;
	case MODE_NONE:
		break;
	default:
		run_simple(o->mode, o->iterations, cnt);
	}
}

/* One write(2) per line, so that lines of concurrent processes never mix. */
static void report(const struct options *o, const char *role,
		   const struct counts *cnt)
{
	char buf[2048];
	int len;

	if (o->quiet)
		return;
	len = snprintf(buf, sizeof(buf),
		       "WORKLOAD pid=%d ppid=%d role=%s tz_stat=-1 tz_open=-1 clock_syscalls=%lu libc_calls=%lu elapsed_ns=%llu mode=%s iterations=%lu tzset_calls=%lu time_calls=%lu localtime_calls=%lu localtime_r_calls=%lu vdso_clock_gettime=%lu",
		       getpid(), getppid(), role, cnt->clock_syscalls,
		       cnt->libc, cnt->elapsed_ns, mode_names[o->mode],
		       cnt->iterations, cnt->tzset, cnt->time,
		       cnt->localtime, cnt->localtime_r, cnt->vdso_clock_gettime);
	len += format_clock_specs(buf + len, sizeof(buf) - len - 1, o->clocks,
				  o->nr_clocks);
	if ((size_t)len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	write_all(STDERR_FILENO, buf, len);
}

static void human_line(const char *who, unsigned long long ns)
{
	char buf[64];
	int len;

	len = snprintf(buf, sizeof(buf), "%6s %8llu usec\n", who, ns / 1000);
	write_all(STDOUT_FILENO, buf, len);
}

/* nanosleep: no clock syscall clocktrace counts (glibc's is clock_nanosleep). */
static void linger(const struct options *o)
{
	struct timespec ts = {
		.tv_sec = o->linger_ms / 1000,
		.tv_nsec = (long)(o->linger_ms % 1000) * 1000000L,
	};

	while (o->linger_ms && nanosleep(&ts, &ts) && errno == EINTR)
		;
}

static void do_work(const struct options *o, const char *role,
		    struct counts *cnt)
{
	unsigned long long start = now_ns();

	run_loop(o, cnt);
	cnt->clock_syscalls += run_clock_specs(o->clocks, o->nr_clocks);
	cnt->elapsed_ns = now_ns() - start;
	cnt->vdso_clock_gettime += 2;
	cnt->iterations = o->iterations;
	report(o, role, cnt);
	human_line(strcmp(role, "parent") ? "child " : "parent",
		   cnt->elapsed_ns);
	linger(o);
}

static pid_t spawn_child(const struct options *o)
{
	struct counts cnt = { 0 };
	pid_t pid = fork();

	if (pid)
		return pid;
	do_work(o, "child", &cnt);
	_exit(0);
}

static int wait_children(const pid_t *pids, unsigned long n)
{
	unsigned long i;
	int status, ret = 0;

	for (i = 0; i < n; i++) {
		if (pids[i] <= 0)
			continue;
		while (waitpid(pids[i], &status, 0) < 0) {
			if (errno != EINTR) {
				perror("waitpid");
				return 1;
			}
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			ret = 1;
	}
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	struct counts cnt = { 0 };
	unsigned long i;
	pid_t *pids;
	int ret = 0;

	if (argc > 0)
		prog = argv[0];
	parse_args(argc, argv, &o);
	pids = calloc(o.children ? o.children : 1, sizeof(*pids));
	if (!pids) {
		perror("calloc");
		return 1;
	}

	/* As in the seed: the zone is loaded once before the children exist. */
	tzset();
	cnt.tzset = 1;

	for (i = 0; i < o.children; i++) {
		pids[i] = spawn_child(&o);
		if (pids[i] < 0) {
			perror("fork");
			ret = 1;
		}
	}
	if (!o.parent_idle) {
		do_work(&o, "parent", &cnt);
	} else {
		/* Only the tzset above: a line, so every process is accounted. */
		report(&o, "parent", &cnt);
	}
	if (wait_children(pids, o.children))
		ret = 1;
	free(pids);
	return ret;
}
