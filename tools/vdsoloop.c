// SPDX-License-Identifier: GPL-2.0
/*
 * vdsoloop: clock reads the vDSO serves, at a known rate, in a parent and
 * forked children, for `clocktrace --vdso` (issue 29).
 *
 *   vdsoloop [-n CLOCK_GETTIMES] [-t TIMES] [-c CHILDREN] [-r RATE] [-w SPINS]
 *
 * Every process (the parent and each of CHILDREN forked children, which
 * run at the same time) makes CLOCK_GETTIMES clock_gettime(CLOCK_MONOTONIC)
 * and TIMES time() calls, in batches paced to RATE calls a second (0: as
 * fast as it can), then SPINS iterations of arithmetic that reads no clock.
 * Pacing sleeps to deadlines taken with a raw syscall, so the only vDSO
 * calls are the counted ones.  Each process prints
 *   WORKLOAD pid=P ppid=Q role=parent|child vdso_clock_gettime=N vdso_time=M
 *            cpu_ns=C
 * (C: its CPU time, one CLOCK_PROCESS_CPUTIME_ID syscall at the end).
 * Exit 0, or 2 on bad usage.
 */
#include <stdint.h>
#include <sys/wait.h>

#include "workload.h"

#define BATCH	1000

struct plan {
	unsigned long gettimes;
	unsigned long times;
	unsigned long children;
	unsigned long rate;
	unsigned long spins;
};

static uint64_t raw_monotonic_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static uint64_t cpu_ns(void)
{
	struct timespec ts;

	syscall(SYS_clock_gettime, CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static void sleep_until(uint64_t ns)
{
	struct timespec ts = { ns / 1000000000ull, ns % 1000000000ull };

	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) ==
	       EINTR)
		;
}

/* One batch: up to BATCH calls, clock_gettime first. */
static void batch(unsigned long *gettimes, unsigned long *times)
{
	struct timespec ts;

	for (int i = 0; i < BATCH && (*gettimes || *times); i++) {
		if (*gettimes) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			(*gettimes)--;
		} else {
			(void)time(NULL);
			(*times)--;
		}
	}
}

static void calls(const struct plan *p)
{
	unsigned long g = p->gettimes, t = p->times;
	uint64_t gap = p->rate ? 1000000000ull * BATCH / p->rate : 0;
	uint64_t next = gap ? raw_monotonic_ns() : 0;

	while (g || t) {
		batch(&g, &t);
		if (gap) {
			next += gap;
			sleep_until(next);
		}
	}
}

static void spin(unsigned long n)
{
	volatile uint64_t x = 1;

	for (unsigned long i = 0; i < n; i++)
		x = x * 6364136223846793005ull + 1442695040888963407ull;
}

static void work(const struct plan *p, const char *role)
{
	char line[200];
	int len;

	calls(p);
	spin(p->spins);
	len = snprintf(line, sizeof(line),
		       "WORKLOAD pid=%d ppid=%d role=%s vdso_clock_gettime=%lu "
		       "vdso_time=%lu cpu_ns=%llu\n", getpid(), getppid(),
		       role, p->gettimes, p->times,
		       (unsigned long long)cpu_ns());
	write_all(STDOUT_FILENO, line, len);
}

static int usage(void)
{
	fputs("usage: vdsoloop [-n CLOCK_GETTIMES] [-t TIMES] [-c CHILDREN] "
	      "[-r RATE] [-w SPINS]\n", stderr);
	return 2;
}

static bool parse(int argc, char **argv, struct plan *p)
{
	int c;

	while ((c = getopt(argc, argv, "n:t:c:r:w:")) != -1) {
		unsigned long *to = c == 'n' ? &p->gettimes :
				    c == 't' ? &p->times :
				    c == 'c' ? &p->children :
				    c == 'r' ? &p->rate :
				    c == 'w' ? &p->spins : NULL;

		if (!to || !parse_ulong(optarg, to))
			return false;
	}
	return optind == argc && p->children <= 64;
}

int main(int argc, char **argv)
{
	struct plan p = { .gettimes = 1000000 };

	if (!parse(argc, argv, &p))
		return usage();
	for (unsigned long i = 0; i < p.children; i++) {
		pid_t pid = fork();

		if (pid < 0) {
			perror("vdsoloop: fork");
			return 1;
		}
		if (!pid) {
			work(&p, "child");
			return 0;
		}
	}
	work(&p, "parent");
	while (wait(NULL) > 0)
		;
	return 0;
}
