/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The bench table as plain data: rows measured by bench.c, and the pure
 * logic on them (median and spread, whether a call entered the kernel,
 * sorting, the verdict, text and JSON output).  Nothing here runs a
 * benchmark, so the unit tests build tables by hand.
 */
#ifndef CLOCKTRACE_BENCH_TABLE_H
#define CLOCKTRACE_BENCH_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "clocks.h"

#define BENCH_MAX_TRIALS	15
#define BENCH_NO_CLOCK		(-1)
#define BENCH_TZ_FILE		TZ_FIX_VALUE

enum bench_path { BENCH_VDSO, BENCH_SYSCALL, BENCH_LIBC };
enum bench_tz { BENCH_TZ_NONE, BENCH_TZ_UNSET, BENCH_TZ_SET };
enum bench_proc { BENCH_PARENT, BENCH_CHILD };

/* How entered_kernel was decided. */
enum bench_basis {
	BASIS_NONE,		/* unknown */
	BASIS_COUNTED,		/* syscalls counted with a perf tracepoint */
	BASIS_FORCED,		/* the row is syscall(2) itself */
	BASIS_VDSO_RULE,	/* what the vDSO serves on this clocksource */
	BASIS_GLIBC_RULE,	/* glibc's documented TZ behaviour */
};

struct bench_row {
	char name[16];		/* "clock_gettime", "time", "localtime", ... */
	int32_t clock;		/* BENCH_NO_CLOCK when the call takes none */
	enum bench_path path;
	enum bench_tz tz;
	enum bench_proc process;
	int err;		/* errno of the call; 0 when it works */
	unsigned int trials;
	double trial_ns[BENCH_MAX_TRIALS];	/* ns per call, each trial */
	double ns_per_call;	/* median of the trials */
	double ns_min, ns_max;
	uint64_t calls;		/* timed calls, all trials */
	uint64_t elapsed_ns;	/* timed, all trials */
	double syscalls_per_call;	/* < 0 when not counted */
	int entered_kernel;	/* 1, 0, or -1 unknown */
	enum bench_basis basis;
	bool timing_conflict;	/* the timing contradicts the rule */
};

struct bench_report {
	struct bench_row *rows;
	size_t n;
	char clocksource[64];
	char available[256];
	bool vdso;		/* a vDSO is mapped */
	bool glibc;
	char libc[32];
	double duration;	/* seconds each row runs at least */
	int cpu;		/* pinned CPU, -1 none */
	bool fork;
	bool counted;		/* a syscall counter was available */
};

struct bench_clock_verdict {
	int32_t clock;
	bool vdso;		/* the library row was served by the vDSO */
	const char *why;
	double libc_ns, syscall_ns;	/* NAN when not measured */
	bool conflict;
};

#define BENCH_TZ_FUNCS 4

struct bench_tz_verdict {
	const char *name;
	double unset_ns, set_ns;	/* NAN when not measured */
};

struct bench_verdict {
	struct bench_clock_verdict clocks[16];
	size_t nclocks;
	struct bench_tz_verdict tz[BENCH_TZ_FUNCS];
	size_t ntz;
	size_t child_pairs;
	double child_ratio;		/* median child/parent; NAN if none */
	double child_max_ratio;
	const struct bench_row *child_max_row;
};

struct bench_row *bench_add_row(struct bench_report *b,
				const struct bench_row *r);
double bench_median(const double *v, size_t n);
/* ns_per_call, ns_min, ns_max from the trials. */
void bench_row_summarize(struct bench_row *r);
/* entered_kernel and its basis for every row (see bench_table.c). */
void bench_decide_kernel(struct bench_report *b);
/* Most expensive first, like the seed's table; failed rows last. */
void bench_sort(struct bench_row *rows, size_t n);
void bench_verdict(const struct bench_report *b, struct bench_verdict *v);

const char *bench_path_name(enum bench_path p);
const char *bench_tz_name(enum bench_tz tz);	/* NULL for none */
const char *bench_basis_name(enum bench_basis b);	/* NULL for none */
/* "clock_gettime(CLOCK_MONOTONIC)", "localtime() TZ unset" */
const char *bench_row_label(const struct bench_row *r, char *buf,
			    size_t size);

void bench_print_text(FILE *f, const struct bench_report *b,
		      const struct bench_verdict *v);
void bench_print_json(FILE *f, const struct bench_report *b,
		      const struct bench_verdict *v);

#endif /* CLOCKTRACE_BENCH_TABLE_H */
