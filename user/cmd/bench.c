// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace bench: what each way of asking for the time costs here.
 * The life of the command: parse (cli.c), open the output, pin, measure
 * (here and in forked children), decide, sort, print.  No root needed.
 */
#include <errno.h>
#include <fcntl.h>
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

/* Every clock id a program can name, in the order of the table's rows. */
static const int32_t bench_clocks[] = { 0, 1, 4, 5, 6, 7, 11, 2, 3 };

static bool clock_chosen(const struct opts *o, int32_t clk)
{
	return !o->clock_mask || (o->clock_mask & (1u << clk));
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
static size_t clock_specs(const struct opts *o, struct bench_spec *s)
{
	static const enum bench_call wall[] = { CALL_TIME, CALL_GETTIMEOFDAY };
	size_t n = 0;

	for (size_t i = 0; i < ARRAY_SIZE(bench_clocks); i++) {
		if (!clock_chosen(o, bench_clocks[i]))
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

static int measure_all(const struct opts *o, struct bench_report *b)
{
	struct bench_opts bo = { .duration = o->duration, .fork = o->fork };
	struct bench_spec specs[2 * ARRAY_SIZE(bench_clocks) + 4];
	size_t n = clock_specs(o, specs);

	if (bench_run_clocks(b, specs, n, &bo) ||
	    bench_run_tz(b, BENCH_TZ_UNSET, &bo) ||
	    bench_run_tz(b, BENCH_TZ_SET, &bo)) {
		ct_warn("bench: a child measuring rows failed");
		return EXIT_TOOL_FAILURE;
	}
	return 0;
}

int cmd_bench(int argc, char **argv)
{
	struct bench_report b = {};
	struct bench_verdict v;
	struct report_file out;
	struct opts o;
	int err;

	err = cli_parse(MODE_BENCH, argc, argv, &o);
	if (err)
		return err < 0 ? 0 : err;
	err = report_file_open(&out, o.output, stdout) ?: pin(o.cpu);
	if (err) {
		report_file_discard(&out);
		return err;
	}
	describe_machine(&b);
	b.duration = o.duration;
	b.cpu = o.cpu;
	b.fork = o.fork;
	err = measure_all(&o, &b);
	if (!err) {
		bench_decide_kernel(&b);
		bench_sort(b.rows, b.n);
		bench_verdict(&b, &v);
		if (o.format == FORMAT_JSON)
			bench_print_json(out.f, &b, &v);
		else
			bench_print_text(out.f, &b, &v);
		err = report_file_commit(&out);
	}
	report_file_discard(&out);
	free(b.rows);
	return err;
}
