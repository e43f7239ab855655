// SPDX-License-Identifier: GPL-2.0
/*
 * forktree - a process tree in which every process makes an exact, known
 * number of time-zone file syscalls and clock syscalls, all raw syscall(2)
 * calls so that neither libc nor the vDSO can add or absorb any.
 *
 * Every process prints one WORKLOAD line; summing them gives what a tracer
 * that follows forks must count.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_PROCESSES	100000UL

struct options {
	unsigned long depth;	/* levels still to create below this process */
	unsigned long width;
	unsigned long stats;
	unsigned long opens;
	struct clock_spec clocks[MAX_CLOCK_SPECS];
	int nr_clocks;
	const char *path;
	bool concurrent;
	bool reexec;
	unsigned long level;	/* 0 for the root; internal -L */
	int sync_rd;		/* the start pipe of -C; internal -S */
	int sync_wr;
	char *argv0;
};

__attribute__((noreturn)) static void usage(void)
{
	fprintf(stderr,
		"usage: forktree [-D DEPTH] [-W WIDTH] [-k TZ_STATS] [-o TZ_OPENS]\n"
		"                [-s CLOCK:COUNT]... [-P PATH] [-C] [-e]\n"
		"  -D DEPTH        levels below the root (default 2; 0 = root only)\n"
		"  -W WIDTH        children of every non-leaf process (default 2)\n"
		"  -k TZ_STATS     newfstatat syscalls on PATH per process (default 1)\n"
		"  -o TZ_OPENS     openat syscalls on PATH per process (default 0)\n"
		"  -s CLOCK:COUNT  COUNT clock_gettime syscalls per process (repeatable)\n"
		"  -P PATH         path to stat/open (default /etc/localtime)\n"
		"  -C              all processes exist before any does its work\n"
		"  -e              children re-exec /proc/self/exe\n");
	exit(2);
}

static bool parse_sync(const char *s, struct options *o)
{
	return sscanf(s, "%d,%d", &o->sync_rd, &o->sync_wr) == 2 &&
	       o->sync_rd >= 0 && o->sync_wr >= 0;
}

/* 1 + W + W^2 + ... + W^D, refusing trees that would swamp the machine. */
static bool tree_size_ok(unsigned long depth, unsigned long width)
{
	unsigned long total = 1, level = 1, d;

	for (d = 0; d < depth; d++) {
		level *= width;
		total += level;
		if (level > MAX_PROCESSES || total > MAX_PROCESSES)
			return false;
	}
	return true;
}

static void parse_opt(int c, struct options *o)
{
	switch (c) {
	case 'D':
		if (!parse_ulong(optarg, &o->depth))
			usage();
		break;
	case 'W':
		if (!parse_ulong(optarg, &o->width))
			usage();
		break;
	case 'k':
		if (!parse_ulong(optarg, &o->stats))
			usage();
		break;
	case 'o':
		if (!parse_ulong(optarg, &o->opens))
			usage();
		break;
	case 's':
		if (!add_clock_spec(optarg, o->clocks, &o->nr_clocks))
			usage();
		break;
	case 'P':
		o->path = optarg;
		break;
	case 'C':
		o->concurrent = true;
		break;
	case 'e':
		o->reexec = true;
		break;
	case 'L':
		if (!parse_ulong(optarg, &o->level))
			usage();
		break;
	case 'S':
		if (!parse_sync(optarg, o))
			usage();
		break;
	default:
		usage();
	}
}

static void parse_args(int argc, char **argv, struct options *o)
{
	int c;

	o->depth = 2;
	o->width = 2;
	o->stats = 1;
	o->path = "/etc/localtime";
	o->sync_rd = -1;
	o->sync_wr = -1;
	o->argv0 = argc > 0 ? argv[0] : "forktree";
	/* -L and -S are internal: how a re-executed child learns its place. */
	while ((c = getopt(argc, argv, "D:W:k:o:s:P:CeL:S:")) != -1)
		parse_opt(c, o);
	if (optind != argc || !tree_size_ok(o->depth, o->width))
		usage();
}

static unsigned long do_stats(const char *path, unsigned long n)
{
	struct stat st;
	unsigned long i;

	for (i = 0; i < n; i++)
		syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	return n;
}

static unsigned long do_opens(const char *path, unsigned long n)
{
	unsigned long i;
	long fd;

	for (i = 0; i < n; i++) {
		fd = syscall(SYS_openat, AT_FDCWD, path, O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			close(fd);
	}
	return n;
}

/* One write(2) per line, so that lines of concurrent processes never mix. */
static void report(const struct options *o, unsigned long stats,
		   unsigned long opens, unsigned long clocks,
		   unsigned long long elapsed)
{
	char buf[2048];
	int len;

	len = snprintf(buf, sizeof(buf),
		       "WORKLOAD pid=%d ppid=%d role=%s tz_stat=%lu tz_open=%lu clock_syscalls=%lu libc_calls=0 elapsed_ns=%llu level=%lu exec=%d vdso_clock_gettime=2",
		       getpid(), getppid(), o->level ? "child" : "parent",
		       stats, opens, clocks, elapsed, o->level,
		       o->reexec && o->level);
	if ((size_t)len < sizeof(buf) - 1)
		len += format_clock_specs(buf + len, sizeof(buf) - 1 - len,
					  o->clocks, o->nr_clocks);
	if ((size_t)len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	write_all(STDERR_FILENO, buf, len);
}

static void do_work(const struct options *o)
{
	unsigned long long start = now_ns();
	unsigned long stats, opens, clocks;

	stats = do_stats(o->path, o->stats);
	opens = do_opens(o->path, o->opens);
	clocks = run_clock_specs(o->clocks, o->nr_clocks);
	report(o, stats, opens, clocks, now_ns() - start);
}

/* The start barrier of -C: EOF once every process has closed the write end. */
static void wait_start(struct options *o)
{
	char c;

	close(o->sync_wr);
	while (read(o->sync_rd, &c, 1) < 0 && errno == EINTR)
		;
	close(o->sync_rd);
}

static char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0) {
		perror("vasprintf");
		exit(1);
	}
	va_end(ap);
	return s;
}

/* The command line of a re-executed child: one level deeper. */
static char **child_argv(const struct options *o)
{
	char **av = calloc(24 + 2 * MAX_CLOCK_SPECS, sizeof(*av));
	int n = 0, s;

	if (!av) {
		perror("calloc");
		exit(1);
	}
	av[n++] = o->argv0;
	av[n++] = xasprintf("-D%lu", o->depth - 1);
	av[n++] = xasprintf("-W%lu", o->width);
	av[n++] = xasprintf("-k%lu", o->stats);
	av[n++] = xasprintf("-o%lu", o->opens);
	av[n++] = xasprintf("-L%lu", o->level + 1);
	av[n++] = "-P";
	av[n++] = (char *)o->path;
	for (s = 0; s < o->nr_clocks; s++) {
		av[n++] = "-s";
		av[n++] = (char *)o->clocks[s].text;
	}
	if (o->concurrent) {
		av[n++] = "-C";
		av[n++] = xasprintf("-S%d,%d", o->sync_rd, o->sync_wr);
	}
	av[n++] = "-e";
	av[n] = NULL;
	return av;
}

static int run_node(struct options *o);

static pid_t spawn_child(struct options *o, char **exec_argv)
{
	pid_t pid = fork();

	if (pid)
		return pid;
	if (exec_argv) {
		execv("/proc/self/exe", exec_argv);
		perror("execv /proc/self/exe");
		_exit(127);
	}
	o->level++;
	o->depth--;
	_exit(run_node(o));
}

static int wait_children(const pid_t *pids, unsigned long n)
{
	unsigned long i;
	int status, ret = 0;

	for (i = 0; i < n; i++) {
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

static int run_node(struct options *o)
{
	unsigned long n = o->depth ? o->width : 0, forked = 0;
	char **exec_argv = NULL;
	pid_t *pids = NULL;
	int ret = 0;

	if (!o->concurrent)
		do_work(o);
	if (n) {
		pids = calloc(n, sizeof(*pids));
		if (!pids) {
			perror("calloc");
			n = 0;
			ret = 1;
		}
		if (o->reexec)
			exec_argv = child_argv(o);
	}
	for (; forked < n; forked++) {
		pids[forked] = spawn_child(o, exec_argv);
		if (pids[forked] < 0) {
			perror("fork");
			ret = 1;
			break;
		}
	}
	if (o->concurrent) {
		wait_start(o);
		do_work(o);
	}
	if (wait_children(pids, forked))
		ret = 1;
	free(pids);
	return ret;
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	int fds[2];

	parse_args(argc, argv, &o);
	/* One pipe for the whole tree, so -W 2000 -C needs two descriptors. */
	if (o.concurrent && o.sync_rd < 0) {
		if (pipe(fds) < 0) {
			perror("pipe");
			return 1;
		}
		o.sync_rd = fds[0];
		o.sync_wr = fds[1];
	}
	return run_node(&o);
}
