// SPDX-License-Identifier: GPL-2.0
/*
 * mapmany: a process tree that maps many files, for the tracer's scans of
 * /proc/PID/maps.  The parent makes -f small files in -d DIR and maps
 * each one, forks -k children (which inherit the mappings), prints
 * "ready", and waits for SIGUSR1; then every process calls localtime()
 * -n times (TZ unset: one stat of /etc/localtime each), prints its own
 * counts and idles until -s seconds have passed since the signal.
 *
 *	mapmany -d DIR [-f 30000] [-k 8] [-n 100] [-s 8]
 */
#include <fcntl.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "workload.h"

static volatile sig_atomic_t go;

static void on_usr1(int sig)
{
	(void)sig;
	go = 1;
}

static void map_files(const char *dir, unsigned long n)
{
	char path[PATH_MAX], page[4096] = "mapmany";

	for (unsigned long i = 0; i < n; i++) {
		int fd;

		snprintf(path, sizeof(path), "%s/m%06lu", dir, i);
		fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0644);
		if (fd < 0 || write(fd, page, sizeof(page)) != sizeof(page) ||
		    mmap(NULL, sizeof(page), PROT_READ, MAP_PRIVATE, fd, 0) ==
		    MAP_FAILED) {
			perror(path);
			exit(1);
		}
		close(fd);
	}
}

/* SIGUSR1 is blocked but here: none can come between test and wait. */
static void wait_go(void)
{
	sigset_t none;

	sigemptyset(&none);
	while (!go)
		sigsuspend(&none);
}

static void work(unsigned long calls, unsigned long seconds)
{
	unsigned long long end;
	char line[128];
	time_t t = 0;
	int len;

	wait_go();
	end = now_ns() + seconds * 1000000000ULL;
	for (unsigned long i = 0; i < calls; i++)
		if (!localtime(&t))
			exit(1);
	len = snprintf(line, sizeof(line), "WORKLOAD pid=%d localtime_calls=%lu\n",
		       getpid(), calls);
	write_all(2, line, len);
	while (now_ns() < end)
		usleep(50000);
}

int main(int argc, char **argv)
{
	unsigned long files = 30000, kids = 8, calls = 100, seconds = 8;
	const char *dir = NULL;
	pid_t pids[64];
	int opt;

	while ((opt = getopt(argc, argv, "d:f:k:n:s:")) != -1) {
		unsigned long *v = opt == 'f' ? &files : opt == 'k' ? &kids :
				   opt == 'n' ? &calls : opt == 's' ? &seconds :
				   NULL;

		if (opt == 'd')
			dir = optarg;
		else if (!v || !parse_ulong(optarg, v))
			goto usage;
	}
	if (!dir || kids > 64)
		goto usage;
	sigset_t usr1;

	sigemptyset(&usr1);
	sigaddset(&usr1, SIGUSR1);
	sigprocmask(SIG_BLOCK, &usr1, NULL);
	signal(SIGUSR1, on_usr1);
	map_files(dir, files);
	for (unsigned long i = 0; i < kids; i++) {
		pids[i] = fork();
		if (pids[i] < 0)
			exit(1);
		if (!pids[i]) {
			work(calls, seconds);
			return 0;
		}
	}
	printf("ready\n");
	fflush(stdout);
	wait_go();
	for (unsigned long i = 0; i < kids; i++)
		kill(pids[i], SIGUSR1);
	work(calls, seconds);
	for (unsigned long i = 0; i < kids; i++)
		waitpid(pids[i], NULL, 0);
	return 0;
usage:
	fprintf(stderr, "usage: mapmany -d DIR [-f FILES] [-k CHILDREN] "
		"[-n CALLS] [-s SECONDS]\n");
	return 2;
}
