// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: cli_parse for each mode with a fuzzed argv.  The first byte
 * picks the mode, the rest is split into arguments at NUL bytes.  Checks
 * what the rest of clocktrace relies on: the status is 0, -1 (--help) or
 * 125, and on success the settled options are within the documented bounds.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "util.h"

#define MAX_ARGS 64

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	(void)argc;
	(void)argv;
	/* ct_warn() and --help print: keep the fuzzer's output readable. */
	stdout = fopen("/dev/null", "w");
	stderr = fopen("/dev/null", "w");
	return 0;
}

static void check_opts(const struct opts *opts, int argc, char **argv)
{
	if (opts->max_procs < 1 || opts->max_procs > (1u << 22))
		abort();
	if (opts->ringbuf_kb < 4 || opts->ringbuf_kb > (1u << 20) ||
	    (opts->ringbuf_kb & (opts->ringbuf_kb - 1)))
		abort();
	if (opts->duration < 0 || opts->interval < 0)
		abort();
	if (opts->comm && (!*opts->comm || strlen(opts->comm) > 15))
		abort();
	for (size_t i = 0; i < opts->npids; i++)
		if (opts->pids[i] < 1)
			abort();
	switch (opts->mode) {
	case MODE_RUN:
		/* PROG and its arguments are a tail of argv, never empty. */
		if (opts->prog_argc < 1 || opts->prog_argc >= argc ||
		    opts->prog_argv != argv + (argc - opts->prog_argc))
			abort();
		break;
	case MODE_ATTACH:
		/* Targets: pids, a comm, a cgroup or a unit (one of the two). */
		if (!opts->npids && !opts->comm && !opts->cgroup && !opts->unit)
			abort();
		if (opts->cgroup && opts->unit)
			abort();
		break;
	case MODE_TOP:
		break;
	case MODE_BENCH:
		/* At most 60 s a row; only the clocks a program can name. */
		if (opts->duration <= 0 || opts->duration > 60 ||
		    (opts->clock_mask & ~0x8ffu) || opts->cpu < -1)
			abort();
		break;
	case MODE_DOCTOR:
		if (opts->npids > 1)
			abort();
		break;
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const char *const modes[] = {
		"run", "attach", "top", "bench", "doctor"
	};
	char *argv[MAX_ARGS + 2], *buf;
	struct opts opts;
	enum mode mode;
	int argc = 1, err;

	if (size < 1)
		return 0;
	mode = (enum mode)(data[0] % ARRAY_SIZE(modes));
	/* Each argument its own allocation: ASan sees any overread. */
	argv[0] = strdup(modes[mode]);
	buf = malloc(size);
	memcpy(buf, data + 1, size - 1);
	buf[size - 1] = '\0';
	for (size_t i = 0; i < size - 1 && argc < MAX_ARGS;) {
		size_t n = strlen(buf + i);

		argv[argc++] = strndup(buf + i, n);
		i += n + 1;
	}
	argv[argc] = NULL;
	free(buf);

	err = cli_parse(mode, argc, argv, &opts);
	if (err != 0 && err != -1 && err != EXIT_TOOL_FAILURE)
		abort();
	if (!err)
		check_opts(&opts, argc, argv);
	free(opts.pids);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return 0;
}
