// SPDX-License-Identifier: GPL-2.0
/*
 * misbehave - a traced program that ends or behaves badly on purpose
 * (crashes, SIGKILL, odd exit codes, daemonising, huge argv, hostile comm,
 * over-long paths), after a known number of time-zone stats, so that a
 * tracer's handling of each case can be checked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "workload.h"

#define TZ_PATH		"/etc/localtime"
#define TZ_DIR		"/usr/share/zoneinfo/"
#define STEP_NS		100000000L	/* sleep mode: 100 ms steps */

/* Bytes a tracer must neither choke on nor let corrupt its output. */
static const char odd_comm[] = "mb\x01\x1b\xff\xfe" "comm";

struct state {
	const char *mode;
	unsigned long stats;	/* -k */
	unsigned long arg;	/* N of exit, S of sleep */
	unsigned long tz_stat;	/* stats done so far */
	unsigned long longpath_stat;
	unsigned long long start;
	int argc;
};

__attribute__((noreturn)) static void usage(void)
{
	fprintf(stderr,
		"usage: misbehave MODE [-k TZ_STATS] [ARGS...]\n"
		"  MODE: segv | kill9 | exit N | daemon | sleep S | rate S | argv | comm | longpath | waitsig | int80\n"
		"  rate S: for S seconds, TZ_STATS stats a second, evenly spaced\n"
		"  -k TZ_STATS  newfstatat syscalls on " TZ_PATH " (default 1)\n"
		"  ARGS are accepted (and counted) only in argv mode\n");
	exit(2);
}

static void do_stats(struct state *s, const char *path, unsigned long n)
{
	struct stat st;
	unsigned long i;

	for (i = 0; i < n; i++)
		syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	s->tz_stat += n;
}

static void comm_hex(char *buf, size_t size)
{
	size_t i;

	for (i = 0; odd_comm[i] && 2 * i + 2 < size; i++)
		snprintf(buf + 2 * i, 3, "%02x", (unsigned char)odd_comm[i]);
}

/* One write(2) per line, so that lines of concurrent processes never mix. */
static void report(const struct state *s, const char *role)
{
	char buf[512], hex[64] = "";
	int len;

	if (!strcmp(s->mode, "comm"))
		comm_hex(hex, sizeof(hex));
	len = snprintf(buf, sizeof(buf),
		       "WORKLOAD pid=%d ppid=%d role=%s tz_stat=%lu tz_open=0 clock_syscalls=0 libc_calls=0 elapsed_ns=%llu mode=%s longpath_stat=%lu vdso_clock_gettime=2%s%s\n",
		       getpid(), getppid(), role, s->tz_stat,
		       now_ns() - s->start, s->mode, s->longpath_stat,
		       *hex ? " comm_hex=" : "", hex);
	write_all(STDERR_FILENO, buf, len);
}

static void sleep_ns(long ns)
{
	struct timespec ts = { ns / 1000000000L, ns % 1000000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

__attribute__((noreturn)) static void do_segv(void)
{
	/*
	 * Both volatiles are needed: a visible NULL store becomes ud2 (SIGILL)
	 * at -O2, and a plain store right before abort() is dropped as dead.
	 */
	volatile int *volatile p = NULL;
	struct rlimit no_core = { 0, 0 };

	/* core_pattern may be a plain "core": do not litter the cwd. */
	setrlimit(RLIMIT_CORE, &no_core);
	signal(SIGSEGV, SIG_DFL);
	*p = 1;
	abort();
}

__attribute__((noreturn)) static void do_kill9(void)
{
	raise(SIGKILL);
	abort();
}

/* The detached grandchild: it outlives the process the tracer started. */
__attribute__((noreturn)) static void daemon_grandchild(struct state *s)
{
	int fd;

	setsid();
	/* stderr stays open so that the WORKLOAD line can be read. */
	fd = open("/dev/null", O_RDWR);
	if (fd >= 0) {
		dup2(fd, STDIN_FILENO);
		dup2(fd, STDOUT_FILENO);
		if (fd > STDERR_FILENO)
			close(fd);
	}
	s->tz_stat = 0;
	s->start = now_ns();
	sleep_ns(1000000000L);
	do_stats(s, TZ_PATH, s->stats);
	report(s, "child");
	_exit(0);
}

static int do_daemon(struct state *s)
{
	pid_t pid = fork();
	int status;

	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		if (fork() == 0)
			daemon_grandchild(s);
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	return 0;
}

/* k stats at the end of every second, so attach tests see some late ones. */
static int do_sleep(struct state *s)
{
	unsigned long sec;
	int step;

	for (sec = 0; sec < s->arg; sec++) {
		for (step = 0; step < 10; step++)
			sleep_ns(STEP_NS);
		do_stats(s, TZ_PATH, s->stats);
	}
	report(s, "parent");
	return 0;
}

/*
 * A steady rate a scraper can check: the n-th stat at start + n/k s, on
 * absolute deadlines, so a late wake-up is caught up and never drifts.
 */
static int do_rate(struct state *s)
{
	unsigned long total = s->arg * s->stats;
	struct timespec t0, next;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned long n = 0; n < total; n++) {
		unsigned long long at = t0.tv_nsec + n * 1000000000ULL / s->stats;

		next.tv_sec = t0.tv_sec + at / 1000000000ULL;
		next.tv_nsec = at % 1000000000ULL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next,
				       NULL) == EINTR)
			;
		do_stats(s, TZ_PATH, 1);
	}
	report(s, "parent");
	return 0;
}

#define WAITSIG_THREADS 4

static void *stat_thread(void *arg)
{
	struct state *s = arg;
	struct stat st;

	for (unsigned long i = 0; i < s->stats; i++)
		syscall(SYS_newfstatat, AT_FDCWD, TZ_PATH, &st, 0);
	return NULL;
}

/*
 * For attach tests: nothing until SIGUSR1 (sent once the tracer is
 * attached), then k stats in each of 4 threads, then a forked child that
 * makes k of its own.  Every counted call happens inside the window.
 */
static int do_waitsig(struct state *s)
{
	pthread_t threads[WAITSIG_THREADS];
	sigset_t set;
	int sig, status;
	pid_t pid;

	sigemptyset(&set);
	sigaddset(&set, SIGUSR1);
	sigprocmask(SIG_BLOCK, &set, NULL);
	write_all(STDOUT_FILENO, "ready\n", 6);
	sigwait(&set, &sig);
	for (int i = 0; i < WAITSIG_THREADS; i++)
		pthread_create(&threads[i], NULL, stat_thread, s);
	for (int i = 0; i < WAITSIG_THREADS; i++)
		pthread_join(threads[i], NULL);
	pid = fork();
	if (pid == 0) {
		do_stats(s, TZ_PATH, s->stats);
		report(s, "child");
		_exit(0);
	}
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	s->tz_stat = WAITSIG_THREADS * s->stats;
	report(s, "parent");
	return 0;
}

/*
 * k ia32 syscalls through int 0x80 whose number is stat's on x86_64 (ia32 4
 * is write, here to fd -1) with a tz path where x86_64 stat reads its
 * argument, then k real stats: a tracer must count k, not 2k.
 */
/*
 * Some hypervisors and kernels (ia32 emulation off or disabled at boot) fault
 * on int 0x80: try one in a child first, so the x86_64 half still runs.
 */
static bool int80_works(void)
{
#if defined(__x86_64__)
	int status;
	pid_t pid = fork();

	if (pid < 0)
		return false;
	if (pid == 0) {
		long ret;

		__asm__ volatile("int $0x80" : "=a"(ret) : "a"(20) : "memory");
		_exit(ret > 0 ? 0 : 1);		/* ia32 getpid */
	}
	return waitpid(pid, &status, 0) == pid && WIFEXITED(status) &&
	       WEXITSTATUS(status) == 0;
#else
	/* ia32 is an x86_64 matter: elsewhere only the 64-bit half runs. */
	return false;
#endif
}

static int do_int80(struct state *s)
{
	static char path[] = TZ_PATH;
	bool works = int80_works();

	fprintf(stderr, "int80=%s\n", works ? "works" : "unavailable");
#if defined(__x86_64__)
	for (unsigned long i = 0; works && i < s->stats; i++) {
		long ret;

		__asm__ volatile("int $0x80" : "=a"(ret)
				 : "a"(4), "b"(-1), "c"(path), "d"(0), "D"(path)
				 : "memory");
	}
#else
	(void)path;
#endif
	do_stats(s, TZ_PATH, s->stats);
	report(s, "parent");
	return 0;
}

static int do_comm(struct state *s)
{
	if (prctl(PR_SET_NAME, odd_comm, 0, 0, 0) < 0)
		perror("prctl PR_SET_NAME");
	do_stats(s, TZ_PATH, s->stats);
	report(s, "parent");
	return 0;
}

/* PATH_MAX-1 bytes: "/usr/share/zoneinfo/" repeated, padded with 'a'. */
static int do_longpath(struct state *s)
{
	static char path[PATH_MAX];
	const size_t dir_len = strlen(TZ_DIR);
	struct stat st;
	size_t len = 0;

	while (len + dir_len <= PATH_MAX - 1) {
		memcpy(path + len, TZ_DIR, dir_len);
		len += dir_len;
	}
	memset(path + len, 'a', PATH_MAX - 1 - len);
	path[PATH_MAX - 1] = '\0';
	/* Expected to fail (ENOENT or ENAMETOOLONG): only the attempt counts. */
	syscall(SYS_newfstatat, AT_FDCWD, path, &st, 0);
	s->longpath_stat++;
	report(s, "parent");
	return 0;
}

static bool mode_takes_arg(const char *mode)
{
	return !strcmp(mode, "exit") || !strcmp(mode, "sleep") ||
	       !strcmp(mode, "rate");
}

static bool known_mode(const char *mode)
{
	static const char *const modes[] = {
		"segv", "kill9", "exit", "daemon", "sleep", "rate", "argv", "comm",
		"waitsig", "int80",
		"longpath",
	};
	size_t i;

	for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
		if (!strcmp(mode, modes[i]))
			return true;
	return false;
}

/* -k N, -kN; returns how many words it took, 0 if argv[i] is no option. */
static int parse_k(char **argv, int i, int argc, struct state *s)
{
	const char *val;
	int used;

	if (strncmp(argv[i], "-k", 2))
		return 0;
	if (argv[i][2]) {
		val = argv[i] + 2;
		used = 1;
	} else {
		if (i + 1 >= argc)
			usage();
		val = argv[i + 1];
		used = 2;
	}
	if (!parse_ulong(val, &s->stats))
		usage();
	return used;
}

/* misbehave [-k N] MODE [ARG] [-k N] [ARGS...] (ARGS in argv mode only) */
static void parse_args(int argc, char **argv, struct state *s)
{
	int i = 1, used;

	s->stats = 1;
	while (i < argc && (used = parse_k(argv, i, argc, s)))
		i += used;
	if (i >= argc || !known_mode(argv[i]))
		usage();
	s->mode = argv[i++];
	if (mode_takes_arg(s->mode)) {
		if (i >= argc || !parse_ulong(argv[i], &s->arg))
			usage();
		if (!strcmp(s->mode, "exit") && s->arg > 255)
			usage();
		i++;
	}
	while (i < argc && (used = parse_k(argv, i, argc, s)))
		i += used;
	if (i < argc && strcmp(s->mode, "argv"))
		usage();
}

int main(int argc, char **argv)
{
	struct state s = { 0 };
	char buf[32];
	int len;

	parse_args(argc, argv, &s);
	s.argc = argc;
	s.start = now_ns();
	if (!strcmp(s.mode, "comm"))
		return do_comm(&s);
	if (!strcmp(s.mode, "waitsig"))
		return do_waitsig(&s);
	if (!strcmp(s.mode, "int80"))
		return do_int80(&s);
	if (!strcmp(s.mode, "rate"))
		return s.stats ? do_rate(&s) : 2;
	do_stats(&s, TZ_PATH, s.stats);
	if (!strcmp(s.mode, "sleep"))
		return do_sleep(&s);
	if (!strcmp(s.mode, "longpath"))
		return do_longpath(&s);
	report(&s, "parent");
	if (!strcmp(s.mode, "segv"))
		do_segv();
	if (!strcmp(s.mode, "kill9"))
		do_kill9();
	if (!strcmp(s.mode, "daemon"))
		return do_daemon(&s);
	if (!strcmp(s.mode, "argv")) {
		len = snprintf(buf, sizeof(buf), "argc=%d\n", s.argc);
		write_all(STDOUT_FILENO, buf, len);
	}
	return !strcmp(s.mode, "exit") ? (int)s.arg : 0;
}
