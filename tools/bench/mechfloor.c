// SPDX-License-Identifier: GPL-2.0
/*
 * mechfloor MODE: attach the empty programs of one mode of mechfloor.bpf.c
 * (rawtp-empty, classic-tp, fentry, kprobe, lsm), print
 *   ready mode=MODE attach_ns=A
 * on stdout (flushed) and stay attached, tracing nothing in particular,
 * until SIGTERM or SIGINT; then detach, print
 *   detached mode=MODE detach_ns=D
 * and exit 0.  If the mode cannot be loaded or attached it prints
 *   unavailable mode=MODE err=ERRNO reason=TEXT
 * and exits 3, so bench.sh can say in its table why a row is missing.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <bpf/libbpf.h>
#include "mechfloor.skel.h"

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static int quiet(enum libbpf_print_level l, const char *f, va_list ap)
{
	(void)l; (void)f; (void)ap;
	return 0;
}

int main(int argc, char **argv)
{
	static const struct { const char *mode, *progs[2]; } modes[] = {
		{ "rawtp-empty", { "raw_enter", "raw_exit" } },
		{ "classic-tp", { "classic_enter", "classic_exit" } },
		{ "fentry", { "fentry_clock", "fexit_clock" } },
		{ "kprobe", { "kprobe_clock", NULL } },
		{ "lsm", { "lsm_file_open", NULL } },
	};
	struct mechfloor_bpf *skel;
	struct bpf_program *p;
	unsigned long long t0, t1;
	const char *what = "open";
	unsigned m, j;
	sigset_t set;
	int sig, err;

	for (m = 0; argc == 2 && m < sizeof(modes) / sizeof(modes[0]); m++)
		if (!strcmp(argv[1], modes[m].mode))
			break;
	if (argc != 2 || m == sizeof(modes) / sizeof(modes[0])) {
		fprintf(stderr, "usage: mechfloor rawtp-empty|classic-tp|fentry|kprobe|lsm\n");
		return 2;
	}
	/* Block the signals before attaching: one sent while attaching is
	 * taken by sigwait below, never lost or fatal. */
	sigemptyset(&set);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGINT);
	sigprocmask(SIG_BLOCK, &set, NULL);
	libbpf_set_print(quiet);

	t0 = now_ns();
	skel = mechfloor_bpf__open();
	err = skel ? 0 : -errno;
	if (!err) {
		bpf_object__for_each_program(p, skel->obj) {
			int want = 0;

			for (j = 0; j < 2; j++)
				if (modes[m].progs[j] &&
				    !strcmp(bpf_program__name(p), modes[m].progs[j]))
					want = 1;
			bpf_program__set_autoload(p, want);
		}
		what = "load";
		err = mechfloor_bpf__load(skel);
		if (!err) {
			what = "attach";
			err = mechfloor_bpf__attach(skel);
		}
	}
	if (err) {
		err = err < 0 ? -err : err;
		printf("unavailable mode=%s err=%s reason=%s failed: %s\n",
		       modes[m].mode, strerrorname_np(err) ?: "?", what,
		       strerror(err));
		mechfloor_bpf__destroy(skel);
		return 3;
	}
	t1 = now_ns();
	printf("ready mode=%s attach_ns=%llu\n", modes[m].mode, t1 - t0);
	fflush(stdout);

	while (sigwait(&set, &sig))
		;
	t0 = now_ns();
	mechfloor_bpf__destroy(skel);
	t1 = now_ns();
	printf("detached mode=%s detach_ns=%llu\n", modes[m].mode, t1 - t0);
	return 0;
}
