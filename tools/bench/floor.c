// SPDX-License-Identifier: GPL-2.0
/*
 * floor [-o FILE] -- CMD [ARGS...]: run CMD and its descendants under the
 * minimal counter of floor.bpf.c, then print per process and kind
 *   tgid=T kind=K count=C
 * and a last line "events=TOTAL".  The child waits on a pipe until the
 * programs are attached, so nothing it does is missed.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include "floor.skel.h"

struct fkey { __u32 tgid, kind; };
struct fval { __u64 count; __u64 hist[40]; };

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)f; (void)ap;
	return l == LIBBPF_WARN ? 0 : 0;
}

int main(int argc, char **argv)
{
	const char *out = NULL;
	struct floor_bpf *skel;
	int pfd[2], status, i = 1, fd;
	unsigned long long total = 0;
	struct fkey k, *prev = NULL;
	struct fval v;
	__u32 one = 1;
	pid_t pid;
	char c;
	FILE *f;

	if (i + 1 < argc && !strcmp(argv[i], "-o")) {
		out = argv[i + 1];
		i += 2;
	}
	if (i < argc && !strcmp(argv[i], "--"))
		i++;
	if (i >= argc) {
		fprintf(stderr, "usage: floor [-o FILE] -- CMD [ARGS...]\n");
		return 2;
	}
	libbpf_set_print(quiet);
	if (pipe(pfd))
		return 125;
	pid = fork();
	if (pid == 0) {
		close(pfd[1]);
		if (read(pfd[0], &c, 1) != 1)
			_exit(125);
		close(pfd[0]);
		execvp(argv[i], argv + i);
		_exit(127);
	}
	close(pfd[0]);
	signal(SIGINT, SIG_IGN);
	skel = floor_bpf__open_and_load();
	if (!skel || bpf_map__update_elem(skel->maps.pids, &pid, sizeof(pid),
					  &one, sizeof(one), BPF_ANY) ||
	    floor_bpf__attach(skel)) {
		fprintf(stderr, "floor: cannot load or attach: %s\n",
			strerror(errno));
		kill(pid, SIGKILL);
		return 125;
	}
	if (write(pfd[1], "x", 1) != 1)
		return 125;
	close(pfd[1]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	floor_bpf__detach(skel);
	f = out ? fopen(out, "w") : stdout;
	if (!f)
		f = stdout;
	fd = bpf_map__fd(skel->maps.counts);
	while (!bpf_map_get_next_key(fd, prev, &k)) {
		if (!bpf_map_lookup_elem(fd, &k, &v)) {
			fprintf(f, "tgid=%u kind=%u count=%llu\n", k.tgid,
				k.kind, (unsigned long long)v.count);
			total += v.count;
		}
		prev = &k;
	}
	fprintf(f, "events=%llu\n", total);
	if (f != stdout)
		fclose(f);
	floor_bpf__destroy(skel);
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}
