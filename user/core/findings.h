/* SPDX-License-Identifier: GPL-2.0 */
/* What is wrong, decided from the model: each rule is one small function. */
#ifndef CLOCKTRACE_FINDINGS_H
#define CLOCKTRACE_FINDINGS_H

#include "model.h"

/* A file re-read this often by one process is "many times". */
#define TZ_REPEAT_MIN		10
/* vDSO-capable clocks entering the kernel this often are worth a word. */
#define CLOCK_SYSCALL_MIN	100
/* CPU-time clock syscalls: at least this many, at this rate per second. */
#define CPU_CLOCK_MIN		1000
#define CPU_CLOCK_RATE_MIN	1000.0
/*
 * --vdso: a process whose CPU time is, at the least (the interval's low
 * bound), this share in vDSO clock reads, on at least VDSO_HOT_SAMPLES
 * samples of it (10 ms at the default rate), is in a hot clock loop.
 */
#define VDSO_HOT_SHARE		0.10
#define VDSO_HOT_SAMPLES	10

/*
 * Severity from what a finding costs (its syscalls' kernel time): critical
 * from SEVERITY_CRITICAL_CPU percent of one CPU, with at least
 * SEVERITY_CRITICAL_NS in all (a blip in a short run is not); warning from
 * SEVERITY_WARNING_CPU percent, or SEVERITY_WARNING_NS in all (a slow
 * leak over a long run); info below.
 */
#define SEVERITY_CRITICAL_CPU	10.0
#define SEVERITY_CRITICAL_NS	(100 * 1000000ULL)
#define SEVERITY_WARNING_CPU	1.0
#define SEVERITY_WARNING_NS	(1000 * 1000000ULL)

/* What the flagged syscalls cost, from their measured kernel time. */
struct finding_cost {
	bool known;
	uint64_t kernel_ns;	/* in the flagged syscalls */
	double per_second_ns;	/* of the run's duration */
	double cpu_percent;	/* of one CPU */
	uint64_t saving_ns;	/* removed by the fix, at the least; 0: unknown */
};

struct finding {
	const char *id;
	const char *severity;	/* "info", "warning" or "critical" */
	/*
	 * The finding whose cost this one explains (its cost is not counted
	 * twice: cost.known is false), or NULL.
	 */
	const char *see;
	pid_t *pids;
	size_t npids;
	char *message;
	char *fix;
	/*
	 * Time-zone findings: the runtime that made the calls ("c", "ruby",
	 * "python"; NULL unknown) and the fix in its own code.
	 */
	const char *runtime;
	const char *runtime_fix;
	struct finding_cost cost;
};

struct findings {
	struct finding *v;
	size_t n;
};

void findings_build(const struct model *m, struct findings *out);
void findings_free(struct findings *f);

#endif /* CLOCKTRACE_FINDINGS_H */
