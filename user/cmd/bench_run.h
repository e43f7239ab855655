/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Running the bench: tight loops over each way of asking for the time,
 * calibrated, timed with CLOCK_MONOTONIC, their syscalls counted when
 * perf lets us, in this process or in forked children that send their
 * rows back over a pipe.
 */
#ifndef CLOCKTRACE_BENCH_RUN_H
#define CLOCKTRACE_BENCH_RUN_H

#include <stdbool.h>
#include <stdint.h>

#include "bench_table.h"

enum bench_call {
	CALL_CLOCK_GETTIME, CALL_TIME, CALL_GETTIMEOFDAY, CALL_LOCALTIME,
	CALL_LOCALTIME_R, CALL_MKTIME, CALL_TZSET,
};

struct bench_spec {
	enum bench_call call;
	int32_t clock;		/* for clock_gettime */
	bool forced;		/* through syscall(2), not the library */
};

struct bench_opts {
	double duration;	/* seconds per row, at least */
	bool fork;		/* also in a forked child */
};

/* The clock and time rows, in this process (and a child with --fork). */
int bench_run_clocks(struct bench_report *b, const struct bench_spec *s,
		     size_t n, const struct bench_opts *o);
/* The TZ rows, in a child whose environment has tz (and its child). */
int bench_run_tz(struct bench_report *b, enum bench_tz tz,
		 const struct bench_opts *o);

#endif /* CLOCKTRACE_BENCH_RUN_H */
