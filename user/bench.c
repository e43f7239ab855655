// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace bench: what each way of asking for the time costs here.
 * The life of the command: parse, open the output, pin, measure (here and
 * in forked children), decide, sort, print.  No root needed.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#ifdef __GLIBC__
#include <gnu/libc-version.h>
#endif

#include "cli.h"
#include "bench.h"
#include "bench_run.h"
#include "bench_table.h"
#include "clocks.h"
#include "report_file.h"
#include "util.h"

#define DEFAULT_DURATION	0.2
#define MAX_DURATION		60.0

/* Every clock id a program can name, in the order of the table's rows. */
static const int32_t bench_clocks[] = { 0, 1, 4, 5, 6, 7, 11, 2, 3 };

struct bench_args {
	struct bench_opts opts;
	bool clock_on[ARRAY_SIZE(bench_clocks)];
	int cpu;
	bool json;
	const char *output;
};

static void usage(FILE *f)
{
	fprintf(f,
"Usage: clocktrace bench [--clock LIST] [--duration SECONDS] [--fork]\n"
"                        [--cpu N] [--json] [-o FILE]\n\n"
"What each way of asking for the time costs on this machine: clock_gettime\n"
"with every clock through the C library (vDSO where it serves) and through\n"
"syscall(2), time() and gettimeofday() both ways, and localtime(),\n"
"localtime_r(), mktime() and tzset() in a child with TZ unset and with\n"
"TZ=" BENCH_TZ_FILE ".  Median ns per call over 5 or more trials after a\n"
"warm-up.  No root needed; as root the syscalls each call makes are counted.\n\n"
"  -c, --clock LIST      only these clocks (e.g. monotonic,realtime_coarse)\n"
"  -d, --duration SECS   each row runs at least SECS (default %.1f)\n"
"  -f, --fork            also run every row in a forked child and compare\n"
"                        (the first seed's experiment; off by default, as it\n"
"                        doubles the run time)\n"
"      --cpu N           pin to CPU N\n"
"  -j, --json            the table as JSON\n"
"  -o, --output FILE     write to FILE (not followed if a symlink)\n"
"  -h, --help            this help\n", DEFAULT_DURATION);
}

static int bad_arg(const char *what, const char *arg)
{
	char safe[128];

	ct_warn("bench: %s '%s'", what, escape_arg(safe, sizeof(safe), arg));
	return EXIT_TOOL_FAILURE;
}

static int enable_clock(const char *name, struct bench_args *a)
{
	size_t i = ARRAY_SIZE(bench_clocks);
	int32_t clk;

	if (!clock_from_name(name, &clk))
		for (i = 0; i < ARRAY_SIZE(bench_clocks); i++)
			if (bench_clocks[i] == clk)
				break;
	if (i == ARRAY_SIZE(bench_clocks)) {
		char safe[128];

		ct_warn("bench: unknown clock '%s' (realtime, monotonic, "
		     "monotonic_raw, realtime_coarse, monotonic_coarse, "
		     "boottime, tai, process_cputime_id, thread_cputime_id)",
		     escape_arg(safe, sizeof(safe), name));
		return EXIT_TOOL_FAILURE;
	}
	a->clock_on[i] = true;
	return 0;
}

/* NAME[,NAME...]: an empty list or an empty item is a typo, refused. */
static int parse_clocks(const char *list, struct bench_args *a)
{
	char *copy = xstrdup(list), *item = copy;
	int ret = 0;

	memset(a->clock_on, 0, sizeof(a->clock_on));
	for (;;) {
		char *comma = strchr(item, ',');

		if (comma)
			*comma = '\0';
		ret = *item ? enable_clock(item, a) :
		      bad_arg("empty item in the clock list", list);
		if (ret || !comma)
			break;
		item = comma + 1;
	}
	free(copy);
	return ret;
}

static int parse_one(int ch, const char *arg, struct bench_args *a)
{
	uint64_t v;

	switch (ch) {
	case 'c':
		return parse_clocks(arg, a);
	case 'd':
		if (parse_seconds(arg, MAX_DURATION, &a->opts.duration))
			return bad_arg("bad duration (plain seconds, at most 60)",
				       arg);
		return 0;
	case 'f':
		a->opts.fork = true;
		return 0;
	case 'C':
		if (parse_u64(arg, 0, CPU_SETSIZE - 1, &v))
			return bad_arg("bad cpu", arg);
		a->cpu = v;
		return 0;
	case 'j':
		a->json = true;
		return 0;
	case 'o':
		a->output = arg;
		return 0;
	case 'h':
		usage(stdout);
		return -1;
	}
	return EXIT_TOOL_FAILURE;
}

static int parse_args(int argc, char **argv, struct bench_args *a)
{
	static const struct option opts[] = {
		{ "clock", required_argument, NULL, 'c' },
		{ "duration", required_argument, NULL, 'd' },
		{ "fork", no_argument, NULL, 'f' },
		{ "cpu", required_argument, NULL, 'C' },
		{ "json", no_argument, NULL, 'j' },
		{ "output", required_argument, NULL, 'o' },
		{ "help", no_argument, NULL, 'h' },
		{}
	};
	int ch, err;

	a->opts.duration = DEFAULT_DURATION;
	a->cpu = -1;
	for (size_t i = 0; i < ARRAY_SIZE(bench_clocks); i++)
		a->clock_on[i] = true;
	opterr = 0;
	while ((ch = getopt_long(argc, argv, ":c:d:fjo:h", opts, NULL)) != -1) {
		if (ch == '?' || ch == ':')
			return cli_option_error("bench", ch, argv);
		err = parse_one(ch, optarg, a);
		if (err)
			return err;
	}
	if (optind < argc)
		return bad_arg("unexpected argument", argv[optind]);
	return 0;
}

static int pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return 0;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set)) {
		ct_warn("bench: cannot pin to cpu %d: %s", cpu, strerror(errno));
		return EXIT_TOOL_FAILURE;
	}
	return 0;
}

static void describe_machine(struct bench_report *b)
{
	if (read_clocksource(b->clocksource, sizeof(b->clocksource),
			     "current_clocksource"))
		b->clocksource[0] = '\0';
	if (read_clocksource(b->available, sizeof(b->available),
			     "available_clocksource"))
		b->available[0] = '\0';
	b->vdso = vdso_mapped();
#ifdef __GLIBC__
	b->glibc = true;
	snprintf(b->libc, sizeof(b->libc), "glibc %s", gnu_get_libc_version());
#else
	snprintf(b->libc, sizeof(b->libc), "not glibc");
#endif
}

/* Each chosen clock both ways, then time() and gettimeofday() both ways. */
static size_t clock_specs(const struct bench_args *a, struct bench_spec *s)
{
	static const enum bench_call wall[] = { CALL_TIME, CALL_GETTIMEOFDAY };
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(bench_clocks); i++) {
		if (!a->clock_on[i])
			continue;
		s[n++] = (struct bench_spec){ CALL_CLOCK_GETTIME,
					      bench_clocks[i], false };
		s[n++] = (struct bench_spec){ CALL_CLOCK_GETTIME,
					      bench_clocks[i], true };
	}
	for (size_t i = 0; i < ARRAY_SIZE(wall); i++) {
		s[n++] = (struct bench_spec){ wall[i], 0, false };
#ifndef SYS_time
		/* arm64 has no time syscall: nothing to force. */
		if (wall[i] == CALL_TIME)
			continue;
#endif
		s[n++] = (struct bench_spec){ wall[i], 0, true };
	}
	return n;
}

static int measure_all(const struct bench_args *a, struct bench_report *b)
{
	struct bench_spec specs[2 * ARRAY_SIZE(bench_clocks) + 4];
	size_t n = clock_specs(a, specs);

	if (bench_run_clocks(b, specs, n, &a->opts) ||
	    bench_run_tz(b, BENCH_TZ_UNSET, &a->opts) ||
	    bench_run_tz(b, BENCH_TZ_SET, &a->opts)) {
		ct_warn("bench: a child measuring rows failed");
		return EXIT_TOOL_FAILURE;
	}
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_report b = {};
	struct bench_verdict v;
	struct bench_args a = {};
	struct report_file out;
	int err;

	err = parse_args(argc, argv, &a);
	if (err)
		return err < 0 ? 0 : err;
	err = report_file_open(&out, a.output, stdout) ?: pin(a.cpu);
	if (err) {
		report_file_discard(&out);
		return err;
	}
	describe_machine(&b);
	b.duration = a.opts.duration;
	b.cpu = a.cpu;
	b.fork = a.opts.fork;
	err = measure_all(&a, &b);
	if (!err) {
		bench_decide_kernel(&b);
		bench_sort(b.rows, b.n);
		bench_verdict(&b, &v);
		if (a.json)
			bench_print_json(out.f, &b, &v);
		else
			bench_print_text(out.f, &b, &v);
		err = report_file_commit(&out);
	}
	report_file_discard(&out);
	free(b.rows);
	return err;
}
