// SPDX-License-Identifier: GPL-2.0
/*
 * hostile - a traced program that attacks its tracer, not by ending
 * badly (that is misbehave) but through what the tracer reads from it:
 *
 *   fifo-exe N       N localtime() calls, then its own executable is
 *                    renamed and a FIFO put at its path: a tracer that
 *                    opens that path at the end to name call sites blocks.
 *   stat N PATH...   N newfstatat() of each PATH (hostile bytes welcome).
 *   flip N PATH ALT  N newfstatat() of a buffer that another thread keeps
 *                    flipping between PATH and ALT (same length): the path
 *                    a tracer reads is not always the one the kernel used.
 *   localtime N      N localtime() calls from one function, caller().
 *   dlmopen LIB N    a second C library, LIB, loaded with dlmopen() into a
 *                    namespace of its own; after a second, N localtime()
 *                    calls through it (a tracer must probe that file too).
 *
 * Each prints one WORKLOAD line on stderr with its own counts, the oracle.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <sys/stat.h>
#include <sys/types.h>

#include "workload.h"

__attribute__((noreturn)) static void usage(void)
{
	fputs("usage: hostile fifo-exe N | stat N PATH... | flip N PATH ALT | "
	      "localtime N | dlmopen LIB N\n", stderr);
	exit(2);
}

static unsigned long count_arg(const char *s)
{
	unsigned long n;

	if (!parse_ulong(s, &n))
		usage();
	return n;
}

/* A function of its own, so that call sites have a name to show. */
__attribute__((noinline)) void caller(unsigned long n)
{
	time_t t = 0;

	for (unsigned long i = 0; i < n; i++) {
		t += 60;
		if (!localtime(&t))
			return;
	}
}

static int do_fifo_exe(unsigned long n)
{
	char exe[4096], moved[4200];
	ssize_t len = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (len <= 0)
		return 1;
	exe[len] = '\0';
	caller(n);
	snprintf(moved, sizeof(moved), "%s.moved", exe);
	if (rename(exe, moved) || mkfifo(exe, 0666)) {
		perror("hostile: fifo-exe");
		return 1;
	}
	fprintf(stderr, "WORKLOAD pid=%d localtime=%lu fifo=%s\n", getpid(),
		n, exe);
	return 0;
}

static int do_stat(unsigned long n, int npaths, char **paths)
{
	unsigned long ok = 0, failed = 0;
	struct stat st;

	for (int p = 0; p < npaths; p++)
		for (unsigned long i = 0; i < n; i++) {
			if (syscall(SYS_newfstatat, AT_FDCWD, paths[p], &st, 0))
				failed++;
			else
				ok++;
		}
	fprintf(stderr, "WORKLOAD pid=%d tz_stat=%lu ok=%lu failed=%lu\n",
		getpid(), ok + failed, ok, failed);
	return 0;
}

struct flip {
	char *buf;		/* what the stats pass to the kernel */
	const char *a, *b;
	size_t len;
	atomic_bool stop;
};

static void *flipper(void *arg)
{
	struct flip *f = arg;
	bool to_b = true;

	while (!atomic_load_explicit(&f->stop, memory_order_relaxed)) {
		memcpy(f->buf, to_b ? f->b : f->a, f->len);
		to_b = !to_b;
	}
	return NULL;
}

/* Two CPUs, one per thread: the flips land while the kernel copies. */
static void pin_to(pthread_t th, int cpu)
{
	cpu_set_t set;

	if (sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(th, sizeof(set), &set);
}

static int do_flip(unsigned long n, const char *a, const char *b)
{
	struct flip f = { .a = a, .b = b, .len = strlen(a) };
	unsigned long ok = 0, failed = 0;
	pthread_t th;
	struct stat st;

	if (strlen(b) != f.len)
		usage();
	f.buf = calloc(1, f.len + 1);
	memcpy(f.buf, a, f.len);
	if (pthread_create(&th, NULL, flipper, &f))
		return 1;
	pin_to(th, 1);
	pin_to(pthread_self(), 0);
	for (unsigned long i = 0; i < n; i++) {
		if (syscall(SYS_newfstatat, AT_FDCWD, f.buf, &st, 0))
			failed++;
		else
			ok++;
	}
	atomic_store(&f.stop, true);
	pthread_join(th, NULL);
	fprintf(stderr, "WORKLOAD pid=%d tz_stat=%lu ok=%lu failed=%lu\n",
		getpid(), n, ok, failed);
	return 0;
}

static int do_dlmopen(const char *lib, unsigned long n)
{
	struct tm *(*lt)(const time_t *);
	void *h = dlmopen(LM_ID_NEWLM, lib, RTLD_NOW);
	struct timespec pause = { 1, 0 };
	time_t t = 0;

	if (!h) {
		fprintf(stderr, "hostile: dlmopen: %s\n", dlerror());
		return 1;
	}
	lt = (struct tm *(*)(const time_t *))dlsym(h, "localtime");
	if (!lt)
		return 1;
	/* Time for a tracer to see the new mapping. */
	nanosleep(&pause, NULL);
	for (unsigned long i = 0; i < n; i++) {
		t += 60;
		lt(&t);
	}
	fprintf(stderr, "WORKLOAD pid=%d libc_calls=%lu localtime_calls=%lu\n",
		getpid(), n, n);
	return 0;
}

int main(int argc, char **argv)
{
	if (argc < 3)
		usage();
	if (!strcmp(argv[1], "fifo-exe") && argc == 3)
		return do_fifo_exe(count_arg(argv[2]));
	if (!strcmp(argv[1], "stat") && argc >= 4)
		return do_stat(count_arg(argv[2]), argc - 3, argv + 3);
	if (!strcmp(argv[1], "flip") && argc == 5)
		return do_flip(count_arg(argv[2]), argv[3], argv[4]);
	if (!strcmp(argv[1], "dlmopen") && argc == 4)
		return do_dlmopen(argv[2], count_arg(argv[3]));
	if (!strcmp(argv[1], "localtime") && argc == 3) {
		caller(count_arg(argv[2]));
		return 0;
	}
	usage();
}
