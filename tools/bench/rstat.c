// SPDX-License-Identifier: GPL-2.0
/*
 * rstat FILE CMD [ARGS...]: run CMD, then append to FILE one line
 *   wall_ns user_us sys_us maxrss_kb status
 * from wait4(2): CPU of CMD and every descendant it waited for, and the
 * peak RSS of the largest of them.  SIGINT/SIGTERM are passed on to CMD
 * (so a system-wide tracer can be stopped through rstat).
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile pid_t child;

static void pass_on(int sig)
{
	if (child > 0)
		kill(child, sig);
}

int main(int argc, char **argv)
{
	struct timespec a, b;
	struct rusage ru;
	int status;
	FILE *f;

	if (argc < 3) {
		fprintf(stderr, "usage: rstat FILE CMD [ARGS...]\n");
		return 2;
	}
	signal(SIGINT, pass_on);
	signal(SIGTERM, pass_on);
	clock_gettime(CLOCK_MONOTONIC, &a);
	child = fork();
	if (child < 0)
		return 125;
	if (child == 0) {
		signal(SIGINT, SIG_DFL);
		signal(SIGTERM, SIG_DFL);
		execvp(argv[2], argv + 2);
		perror(argv[2]);
		_exit(127);
	}
	while (wait4(child, &status, 0, &ru) < 0)
		;
	clock_gettime(CLOCK_MONOTONIC, &b);
	f = fopen(argv[1], "a");
	if (!f)
		return 125;
	fprintf(f, "%lld %ld %ld %ld %d\n",
		(long long)(b.tv_sec - a.tv_sec) * 1000000000LL +
			(b.tv_nsec - a.tv_nsec),
		ru.ru_utime.tv_sec * 1000000L + ru.ru_utime.tv_usec,
		ru.ru_stime.tv_sec * 1000000L + ru.ru_stime.tv_usec,
		ru.ru_maxrss,
		WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status));
	fclose(f);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
