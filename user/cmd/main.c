// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace: kernel-versus-userspace clock tracing.
 * One binary, subcommands dispatched from a table (as bpftool does).
 */
#include <errno.h>
#include <fcntl.h>
#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bench.h"
#include "doctor.h"
#include "reader.h"
#include "report_file.h"
#include "cmds.h"
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

/*
 * Started with stdin, stdout or stderr closed, the next file we open would
 * take that number: the -o report would then receive our messages (fd 2)
 * or PROG's output.  /dev/null fills each gap first (PROG inherits it).
 * Our own stdout or stderr is then a stream that fails every write: a
 * report sent there reached nowhere, and that is status 125.
 */
static void fill_standard_fds(void)
{
	for (int fd = 0; fd <= 2; fd++) {
		FILE *lost;
		int null;

		if (fcntl(fd, F_GETFD) >= 0 || errno != EBADF)
			continue;
		null = open("/dev/null", O_RDWR);
		if (null < 0)
			exit(EXIT_TOOL_FAILURE);
		/* open() took the lowest free number, which is fd. */
		if (null != fd)
			exit(EXIT_TOOL_FAILURE);
		if (fd == 0)
			continue;
		lost = report_file_closed_std(fd);
		if (!lost)
			exit(EXIT_TOOL_FAILURE);
		if (fd == 1)
			stdout = lost;
		else
			stderr = lost;
	}
}

/*
 * What a command printed on stdout without a report file (doctor, the
 * help, --version) is its report too: the final flush decides.
 */
static int finish(int status)
{
	return report_file_finish_std(stdout) ?: status;
}

static int dispatch(int argc, char **argv)
{
	char safe[128];

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
	ct_warn("unknown command '%s' (see clocktrace --help)",
	     escape_arg(safe, sizeof(safe), argv[1]));
	return EXIT_TOOL_FAILURE;
}

int main(int argc, char **argv)
{
	/*
	 * glibc raises its mmap threshold to the size of the largest mapped
	 * block freed: after the kernel's 5.5 MB BTF, blocks up to that
	 * size would come from the heap, and the process table, grown one
	 * process at a time, would be copied out of the heap at 5.5 MB and
	 * leave its old copy there (2,000 processes: 15.1 -> 13.4 MiB peak).  A
	 * fixed threshold keeps large blocks mapped, grown by mremap().
	 */
	mallopt(M_MMAP_THRESHOLD, 128 * 1024);
	/* The file reader: its own main, no stream of ours to finish. */
	if (argc == 2 && !strcmp(argv[1], READER_ARGV1))
		reader_worker_main();
	fill_standard_fds();
	return finish(dispatch(argc, argv));
}
