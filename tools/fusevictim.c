// SPDX-License-Identifier: GPL-2.0
/*
 * fusevictim - a traced program whose files sit on a FUSE mount that does
 * not answer the tracer (tools/fusestall.c, issue 23).
 *
 *   TZ=UTC fusevictim [-l LIB] [-m FILE]... [-n N] [-k K] [-s CLOCK:COUNT]...
 *
 * Loads LIB with dlopen() (libfusestall.so under any name) and maps each
 * FILE executable (a libruby-x.so or python3.11 for --lang), as a program
 * would, then says "ready" on stdout and waits for SIGUSR1.  Then: N
 * localtime() calls made inside LIB, K newfstatat() of /etc/localtime and
 * the -s forced clock syscalls, one WORKLOAD line on stderr with its counts,
 * "done" on stdout, and it waits for SIGTERM with everything still mapped:
 * the tracer sees these files until its end.
 *
 * TZ must be set: localtime() then reads the zone once, at start, and
 * makes no syscall afterwards, so that tz_stat is exactly K.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "workload.h"

#define MAX_MAPPED	8
#define TZ_PATH		"/etc/localtime"

struct options {
	const char *lib;
	const char *mapped[MAX_MAPPED];
	int nmapped;
	unsigned long localtimes;
	unsigned long stats;
	struct clock_spec clocks[MAX_CLOCK_SPECS];
	int nr_clocks;
};

typedef unsigned long (*localtime_fn)(unsigned long n);

__attribute__((noreturn)) static void usage(void)
{
	fputs("usage: TZ=... fusevictim [-l LIB] [-m FILE]... [-n LOCALTIMES] "
	      "[-k TZ_STATS] [-s CLOCK:COUNT]...\n"
	      "  -l LIB    dlopen() it; the -n localtime() calls run inside it\n"
	      "  -m FILE   map it executable (repeatable, up to 8)\n", stderr);
	exit(2);
}

static void parse_args(int argc, char **argv, struct options *o)
{
	int c;

	while ((c = getopt(argc, argv, "l:m:n:k:s:")) != -1) {
		switch (c) {
		case 'l':
			o->lib = optarg;
			break;
		case 'm':
			if (o->nmapped == MAX_MAPPED)
				usage();
			o->mapped[o->nmapped++] = optarg;
			break;
		case 'n':
			if (!parse_ulong(optarg, &o->localtimes))
				usage();
			break;
		case 'k':
			if (!parse_ulong(optarg, &o->stats))
				usage();
			break;
		case 's':
			if (!add_clock_spec(optarg, o->clocks, &o->nr_clocks))
				usage();
			break;
		default:
			usage();
		}
	}
	if (optind != argc || (o->localtimes && !o->lib))
		usage();
}

static localtime_fn load_lib(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	localtime_fn fn;

	if (!h) {
		fprintf(stderr, "fusevictim: %s\n", dlerror());
		exit(1);
	}
	fn = (localtime_fn)dlsym(h, "fusestall_localtime");
	if (!fn) {
		fprintf(stderr, "fusevictim: %s: no fusestall_localtime\n", path);
		exit(1);
	}
	return fn;
}

static void map_exec(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || !st.st_size ||
	    mmap(NULL, st.st_size, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0) ==
	    MAP_FAILED) {
		fprintf(stderr, "fusevictim: %s: %s\n", path,
			fd < 0 ? strerror(errno) : "cannot map it");
		exit(1);
	}
	close(fd);
}

static void wait_for(int sig)
{
	sigset_t set;
	int got;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	do {
		if (sigwait(&set, &got))
			exit(1);
		if (got == SIGTERM)
			exit(0);
	} while (got != sig);
}

static void do_stats(unsigned long n)
{
	struct stat st;

	for (unsigned long i = 0; i < n; i++)
		syscall(SYS_newfstatat, AT_FDCWD, TZ_PATH, &st, 0);
}

static void report(const struct options *o, unsigned long localtimes,
		   unsigned long clock_syscalls, unsigned long long ns)
{
	char buf[1024];
	int len;

	len = snprintf(buf, sizeof(buf),
		       "WORKLOAD pid=%d ppid=%d role=parent tz_stat=%lu tz_open=0 clock_syscalls=%lu libc_calls=%lu elapsed_ns=%llu mode=fusevictim localtime_calls=%lu vdso_clock_gettime=2",
		       getpid(), getppid(), o->stats, clock_syscalls,
		       localtimes, ns, localtimes);
	len += format_clock_specs(buf + len, sizeof(buf) - len - 1, o->clocks,
				  o->nr_clocks);
	if ((size_t)len > sizeof(buf) - 2)
		len = sizeof(buf) - 2;
	buf[len++] = '\n';
	write_all(STDERR_FILENO, buf, len);
}

int main(int argc, char **argv)
{
	struct options o = { 0 };
	unsigned long localtimes = 0, clock_syscalls;
	unsigned long long start;
	localtime_fn fn = NULL;
	sigset_t set;
	const char *tz = getenv("TZ");

	parse_args(argc, argv, &o);
	if (!tz || !*tz) {
		fputs("fusevictim: TZ must be set (see the top of "
		      "tools/fusevictim.c)\n", stderr);
		return 2;
	}
	tzset();
	if (o.lib)
		fn = load_lib(o.lib);
	for (int i = 0; i < o.nmapped; i++)
		map_exec(o.mapped[i]);
	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_BLOCK, &set, NULL);
	write_all(STDOUT_FILENO, "ready\n", 6);
	wait_for(SIGUSR1);
	start = now_ns();
	if (fn)
		localtimes = fn(o.localtimes);
	do_stats(o.stats);
	clock_syscalls = run_clock_specs(o.clocks, o.nr_clocks);
	report(&o, localtimes, clock_syscalls, now_ns() - start);
	write_all(STDOUT_FILENO, "done\n", 5);
	wait_for(SIGTERM);
	return 0;
}
