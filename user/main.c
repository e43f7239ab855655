// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace: kernel-versus-userspace clock tracing.
 * One binary, subcommands dispatched from a table (as bpftool does).
 */
#include <stdio.h>
#include <string.h>

#include "bench.h"
#include "doctor.h"
#include "session.h"
#include "util.h"
#include "version.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "trace PROG and every process it forks" },
	{ "attach", cmd_attach, "trace running processes (-p PID, --comm NAME)" },
	{ "top", cmd_top, "every process on the machine, ranked, refreshed" },
	{ "bench", cmd_bench, "what each way of reading the time costs here" },
	{ "doctor", cmd_doctor, "can this machine (and a process) be traced" },
};

static void usage(FILE *f)
{
	fputs("Usage: clocktrace COMMAND [OPTIONS]\n\nCommands:\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-8s %s\n", commands[i].name, commands[i].help);
	fputs("\nclocktrace COMMAND --help for its options; "
	      "clocktrace --version.\n", f);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return EXIT_TOOL_FAILURE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V"))
		return print_version(stdout);
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].fn(argc - 1, argv + 1);
	warn("unknown command '%s' (see clocktrace --help)", argv[1]);
	return EXIT_TOOL_FAILURE;
}
