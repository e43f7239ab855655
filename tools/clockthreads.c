// SPDX-License-Identifier: GPL-2.0
/*
 * clockthreads - many threads of one process making raw clock syscalls at
 * the same time, to check that a tracer counts every thread of a thread
 * group (and loses nothing when they all hit the kernel at once).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define MAX_THREADS	4096UL

struct options {
	unsigned long threads;
	unsigned long calls;
	clockid_t clock;
	bool gettime;		/* clock_gettime(clock) */
	bool gettimeofday;	/* -g */
	bool getres;		/* -r: clock_getres(clock) */
};

struct worker {
	pthread_t thread;
	const struct options *o;
	pthread_barrier_t *barrier;
	unsigned long done;	/* syscalls this thread made */
};

__attribute__((noreturn)) static void usage(void)
{
	fprintf(stderr,
		"usage: clockthreads [-t THREADS] [-n CALLS] [-c CLOCK] [-g] [-r]\n"
		"  -t THREADS  threads (default 16)\n"
		"  -n CALLS    syscalls per thread and kind (default 100000)\n"
		"  -c CLOCK    clock for clock_gettime/clock_getres (default CLOCK_MONOTONIC)\n"
		"  -g          gettimeofday syscalls instead of clock_gettime\n"
		"  -r          clock_getres syscalls instead of clock_gettime\n"
		"              (-g -r together: CALLS of each per thread)\n");
	exit(2);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	int c;

	o->threads = 16;
	o->calls = 100000;
	o->clock = CLOCK_MONOTONIC;
	while ((c = getopt(argc, argv, "t:n:c:gr")) != -1) {
		switch (c) {
		case 't':
			if (!parse_ulong(optarg, &o->threads) ||
			    !o->threads || o->threads > MAX_THREADS)
				usage();
			break;
		case 'n':
			if (!parse_ulong(optarg, &o->calls))
				usage();
			break;
		case 'c':
			if (!parse_clock(optarg, &o->clock))
				usage();
			break;
		case 'g':
			o->gettimeofday = true;
			break;
		case 'r':
			o->getres = true;
			break;
		default:
			usage();
		}
	}
	if (optind != argc)
		usage();
	o->gettime = !o->gettimeofday && !o->getres;
}

/* Raw syscalls, so that the vDSO cannot absorb them. */
static void *worker_main(void *arg)
{
	struct worker *w = arg;
	const struct options *o = w->o;
	struct timespec ts;
	struct timeval tv;
	unsigned long i;

	pthread_barrier_wait(w->barrier);
	if (o->gettime) {
		for (i = 0; i < o->calls; i++)
			syscall(SYS_clock_gettime, o->clock, &ts);
		w->done += o->calls;
	}
	if (o->gettimeofday) {
		for (i = 0; i < o->calls; i++)
			syscall(SYS_gettimeofday, &tv, NULL);
		w->done += o->calls;
	}
	if (o->getres) {
		for (i = 0; i < o->calls; i++)
			syscall(SYS_clock_getres, o->clock, &ts);
		w->done += o->calls;
	}
	return NULL;
}

/* One write(2) per line, so that lines of concurrent processes never mix. */
static void report(const struct options *o, unsigned long total,
		   unsigned long long elapsed)
{
	unsigned long per_kind = o->threads * o->calls;
	char buf[512];
	int len;

	len = snprintf(buf, sizeof(buf),
		       "WORKLOAD pid=%d ppid=%d role=thread-group tz_stat=0 tz_open=0 clock_syscalls=%lu libc_calls=0 elapsed_ns=%llu threads=%lu calls=%lu clock_id=%d clock_gettime=%lu gettimeofday=%lu clock_getres=%lu vdso_clock_gettime=2\n",
		       getpid(), getppid(), total, elapsed, o->threads, o->calls,
		       o->clock, o->gettime ? per_kind : 0,
		       o->gettimeofday ? per_kind : 0,
		       o->getres ? per_kind : 0);
	write_all(STDERR_FILENO, buf, len);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	pthread_barrier_t barrier;
	unsigned long long start;
	unsigned long i, total = 0;
	struct worker *w;
	int err;

	parse_args(argc, argv, &o);
	w = calloc(o.threads, sizeof(*w));
	if (!w) {
		perror("calloc");
		return 1;
	}
	/* The main thread joins the barrier so that it can time the run. */
	pthread_barrier_init(&barrier, NULL, o.threads + 1);
	for (i = 0; i < o.threads; i++) {
		w[i].o = &o;
		w[i].barrier = &barrier;
		err = pthread_create(&w[i].thread, NULL, worker_main, &w[i]);
		if (err) {
			fprintf(stderr, "pthread_create: %s\n", strerror(err));
			/* The barrier would never open: give up loudly. */
			exit(1);
		}
	}
	start = now_ns();
	pthread_barrier_wait(&barrier);
	for (i = 0; i < o.threads; i++) {
		pthread_join(w[i].thread, NULL);
		total += w[i].done;
	}
	report(&o, total, now_ns() - start);
	free(w);
	return 0;
}
