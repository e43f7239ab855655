// SPDX-License-Identifier: GPL-2.0
/*
 * A syscall-heavy program that nobody traces: bench.sh times it with and
 * without a tracer running elsewhere on the machine, to see what the
 * tracer's raw tracepoints cost processes it does not trace.
 *
 *   sysloop getppid|clock|stat N [ROUNDS]
 *
 * With ROUNDS, N calls are timed ROUNDS times, one line each (flushed), so
 * that a tracer can be attached to the busy process between rounds.
 * getppid: a syscall clocktrace does not count (the switch says no);
 * clock:   clock_gettime(CLOCK_PROCESS_CPUTIME_ID), counted kind;
 * stat:    newfstatat("/tmp"), a path syscall on a non-tz path.
 * Prints "mode=M calls=N cpu_ns=C wall_ns=W ns_per_call=X" (CPU time).
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned long long ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* N calls, timed: one line, flushed at once for a reader that waits. */
static void time_round(int mode, const char *name, long n)
{
	unsigned long long c0, w0, c1, w1;
	struct timespec ts;
	struct stat st;
	long i;

	w0 = ns(CLOCK_MONOTONIC);
	c0 = ns(CLOCK_PROCESS_CPUTIME_ID);
	for (i = 0; i < n; i++) {
		switch (mode) {
		case 0:
			syscall(SYS_getppid);
			break;
		case 1:
			syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts);
			break;
		default:
			syscall(SYS_newfstatat, AT_FDCWD, "/tmp", &st, 0);
			break;
		}
	}
	c1 = ns(CLOCK_PROCESS_CPUTIME_ID);
	w1 = ns(CLOCK_MONOTONIC);
	printf("mode=%s calls=%ld cpu_ns=%llu wall_ns=%llu ns_per_call=%.2f\n",
	       name, n, c1 - c0, w1 - w0, (double)(c1 - c0) / n);
	fflush(stdout);
}

int main(int argc, char **argv)
{
	long n, rounds = 1;
	int mode;

	if (argc == 4)
		rounds = atol(argv[3]);
	if (argc < 3 || argc > 4 || (n = atol(argv[2])) <= 0 || rounds <= 0) {
		fprintf(stderr, "usage: sysloop getppid|clock|stat N [ROUNDS]\n");
		return 2;
	}
	if (!strcmp(argv[1], "getppid"))
		mode = 0;
	else if (!strcmp(argv[1], "clock"))
		mode = 1;
	else if (!strcmp(argv[1], "stat"))
		mode = 2;
	else {
		fprintf(stderr, "sysloop: unknown mode %s\n", argv[1]);
		return 2;
	}
	while (rounds-- > 0)
		time_round(mode, argv[1], n);
	return 0;
}
