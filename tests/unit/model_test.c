// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the model, findings, reports and CLI on hand-built data. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "cli.h"
#include "findings.h"
#include "model.h"
#include "report.h"

#define SEC 1000000000ull

static void add_stats(struct proc_model *p, uint32_t kind, uint64_t n)
{
	p->kinds[kind].count += n;
	p->kinds[kind].total_ns += n * 1000;
	p->kinds[kind].hist[10] += n;
	p->kinds[kind].min_ns = 1000;
	p->kinds[kind].max_ns = 1000;
}

/* The seeds' shape: a parent and children each re-stat /etc/localtime. */
static void seed_model(struct model *m, int children, uint64_t stats)
{
	struct proc_model *p;

	memset(m, 0, sizeof(*m));
	m->mode = "run";
	m->start_ns = SEC;
	m->end_ns = 2 * SEC;
	strcpy(m->clocksource, "tsc");
	for (int i = 0; i <= children; i++) {
		p = model_proc(m, 100 + i);
		p->ppid = i ? 100 : 1;
		p->depth = i ? 1 : 0;
		p->start_ns = SEC;
		p->tz_state = ENV_UNSET;
		strcpy(p->comm, "tzloop");
		add_stats(p, KIND_TZ_STAT, stats);
		model_add_path(p, "/etc/localtime", KIND_TZ_STAT, stats, 0);
	}
}

static bool has_finding(const struct findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].id, id))
			return true;
	return false;
}

static void test_tz_findings_on_the_seed_shape(void **state)
{
	struct findings fs;
	struct model m;

	(void)state;
	seed_model(&m, 3, 10000);
	findings_build(&m, &fs);
	assert_true(has_finding(&fs, "tz-repeated-access"));
	assert_true(has_finding(&fs, "tz-children-repeat"));
	assert_false(has_finding(&fs, "cpu-clock-syscalls"));
	assert_int_equal(fs.v[0].npids, 4);
	assert_non_null(strstr(fs.v[0].message, "TZ was unset"));
	assert_non_null(strstr(fs.v[0].fix, "TZ=:/etc/localtime"));
	findings_free(&fs);
	model_free(&m);
}

static void test_no_finding_for_one_read_per_process(void **state)
{
	struct findings fs;
	struct model m;

	(void)state;
	seed_model(&m, 20, 2);
	findings_build(&m, &fs);
	assert_int_equal(fs.n, 0);
	findings_free(&fs);
	model_free(&m);
}

static void test_clock_findings_depend_on_clocksource(void **state)
{
	struct findings fs;
	struct proc_model *p;
	struct model m;

	(void)state;
	seed_model(&m, 0, 0);
	p = model_proc(&m, 100);
	add_stats(p, KIND_CLOCK_GETTIME, 5000);
	model_add_clockid(p, 1, 3000);
	model_add_clockid(p, 2, 2000);
	findings_build(&m, &fs);
	assert_true(has_finding(&fs, "clock-syscall-bypass"));
	assert_false(has_finding(&fs, "vdso-fallback"));
	assert_true(has_finding(&fs, "cpu-clock-syscalls"));
	findings_free(&fs);
	strcpy(m.clocksource, "hpet");
	findings_build(&m, &fs);
	assert_true(has_finding(&fs, "vdso-fallback"));
	assert_false(has_finding(&fs, "clock-syscall-bypass"));
	findings_free(&fs);
	model_free(&m);
}

static const struct finding *find(const struct findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].id, id))
			return &fs->v[i];
	return NULL;
}

/* Two processes whose CLOCK_MONOTONIC reads entered the kernel. */
static void seed_fallback(struct model *m, const char *cs)
{
	seed_model(m, 0, 0);
	strcpy(m->clocksource, cs);
	add_stats(model_proc(m, 100), KIND_CLOCK_GETTIME, 3000);
	model_add_clockid(model_proc(m, 100), 1, 3000);
	strcpy(model_proc(m, 101)->comm, "tzloop");
	add_stats(model_proc(m, 101), KIND_CLOCK_GETTIME, 1000);
	model_add_clockid(model_proc(m, 101), 1, 1000);
	m->clock_cost = (struct clock_read_cost){
		.known = true, .syscall_ns = 900, .libc_ns = 910,
		.coarse_syscall_ns = 150, .coarse_vdso_ns = 10,
	};
}

/*
 * vdso-fallback is priced per process: reads x what the kernel's entry and
 * exit cost here; it also fires where the clocksource's name has a vDSO
 * mode but the reads timed through the C library cost a syscall.
 */
static void test_vdso_fallback_priced_per_process(void **state)
{
	const struct finding *f;
	struct findings fs;
	struct model m;

	(void)state;
	seed_fallback(&m, "hpet");
	/* time() and the COARSE clocks never fall back: not this finding's. */
	add_stats(model_proc(&m, 100), KIND_TIME, 5000);
	model_add_clockid(model_proc(&m, 101), 6, 500);
	findings_build(&m, &fs);
	f = find(&fs, "vdso-fallback");
	assert_non_null(f);
	assert_int_equal(f->npids, 2);
	assert_int_equal(f->cost.saving_ns, 4000 * 140);
	assert_int_equal(f->cost.kernel_ns, 4000 * 1000);
	assert_non_null(strstr(f->message, "pid 100 (tzloop) 3,000 reads"));
	assert_non_null(strstr(f->message, "pid 101 (tzloop) 1,000 reads"));
	assert_true(strstr(f->message, "pid 100") < strstr(f->message, "pid 101"));
	assert_non_null(strstr(f->message, "has no vDSO mode"));
	assert_false(has_finding(&fs, "clock-syscall-bypass"));
	findings_free(&fs);
	model_free(&m);

	seed_fallback(&m, "kvm-clock");
	findings_build(&m, &fs);
	f = find(&fs, "vdso-fallback");
	assert_non_null(f);
	assert_non_null(strstr(f->message, "fell back"));
	findings_free(&fs);
	/* Served: the program made the syscalls itself. */
	m.clock_cost.libc_ns = 25;
	findings_build(&m, &fs);
	assert_false(has_finding(&fs, "vdso-fallback"));
	assert_true(has_finding(&fs, "clock-syscall-bypass"));
	findings_free(&fs);
	model_free(&m);
}

static void test_missing_tz_file_is_a_finding(void **state)
{
	struct findings fs;
	struct proc_model *p;
	struct model m;

	(void)state;
	seed_model(&m, 0, 0);
	p = model_proc(&m, 100);
	add_stats(p, KIND_TZ_OPEN, 50);
	p->kinds[KIND_TZ_OPEN].errors = 50;
	findings_build(&m, &fs);
	assert_true(has_finding(&fs, "tz-file-missing"));
	findings_free(&fs);
	model_free(&m);
}

static void test_delta_subtracts_counts(void **state)
{
	struct model a, b, d = {};

	(void)state;
	seed_model(&a, 1, 100);
	seed_model(&b, 2, 250);
	model_delta(&a, &b, &d);
	assert_int_equal(d.nprocs, 3);
	assert_int_equal(model_find(&d, 100)->kinds[KIND_TZ_STAT].count, 150);
	assert_int_equal(model_find(&d, 100)->paths[0].count, 150);
	assert_int_equal(model_find(&d, 102)->kinds[KIND_TZ_STAT].count, 250);
	assert_int_equal(model_find(&d, 100)->kinds[KIND_TZ_STAT].hist[10], 150);
	model_free(&a);
	model_free(&b);
	model_free(&d);
}

static void test_model_keeps_pids_sorted(void **state)
{
	struct model m = {};
	pid_t pids[] = { 50, 10, 30, 20, 40 };

	(void)state;
	for (size_t i = 0; i < 5; i++)
		model_proc(&m, pids[i]);
	model_proc(&m, 30);
	assert_int_equal(m.nprocs, 5);
	for (size_t i = 1; i < m.nprocs; i++)
		assert_true(m.procs[i - 1].pid < m.procs[i].pid);
	assert_null(model_find(&m, 35));
	model_free(&m);
}

static void test_json_report_has_the_contract_fields(void **state)
{
	const char *fields[] = {
		"\"version\"", "\"mode\":\"run\"", "\"command\"",
		"\"duration_ns\"", "\"lost_events\"", "\"processes\"",
		"\"pid\"", "\"ppid\"", "\"depth\"", "\"comm\"", "\"exe\"",
		"\"clock\"", "\"clock_ids\"", "\"tz\"", "\"accesses\"",
		"\"paths\"", "\"/etc/localtime\":{\"stat\":10000}", "\"findings\"",
		"\"id\":\"tz-repeated-access\"", "\"severity\"", "\"pids\"",
		"\"message\"", "\"fix\"", "\"exit\":{\"code\":0,\"signal\":null}",
	};
	struct findings fs;
	struct model m;
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	seed_model(&m, 1, 10000);
	m.has_exit = true;
	findings_build(&m, &fs);
	report_json(f, &m, &fs, false);
	fclose(f);
	for (size_t i = 0; i < sizeof(fields) / sizeof(fields[0]); i++)
		if (!strstr(buf, fields[i]))
			fail_msg("missing %s in %s", fields[i], buf);
	free(buf);
	findings_free(&fs);
	model_free(&m);
}

/* A site at pool.py:5 in work, called from main at line CALLER. */
static void add_chain_site(struct proc_model *p, uint32_t caller, uint64_t tz)
{
	struct lang_site_stat outer = {
		.lang = LANG_PYTHON, .file = "/app/pool.py", .func = "main",
		.line = caller,
	};
	struct lang_site_stat s = {
		.lang = LANG_PYTHON, .file = "/app/pool.py", .func = "work",
		.line = 5, .tz_accesses = tz, .outer = &outer, .nouter = 1,
	};

	model_add_lang_site(p, &s);
}

/* --lang-depth: a line's rows by chain; the findings' sum by line. */
static void test_lang_stacks(void **state)
{
	struct line_sum *by_stack = NULL, *by_line = NULL;
	size_t nstack = 0, nline = 0;
	struct model m = {}, c = {};
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	m.lang_enabled = true;
	snprintf(model_proc(&m, 10)->comm, COMM_LEN, "python3");
	add_chain_site(model_find(&m, 10), 12, 3);
	add_chain_site(model_find(&m, 10), 20, 4);
	snprintf(model_proc(&m, 11)->comm, COMM_LEN, "python3");
	add_chain_site(model_find(&m, 11), 12, 5);
	model_copy(&c, &m);
	model_free(&m);
	for (size_t i = 0; i < c.nprocs; i++)
		for (size_t j = 0; j < c.procs[i].nlang_sites; j++) {
			stack_sum_add(&by_stack, &nstack, &c.procs[i].lang_sites[j]);
			line_sum_add(&by_line, &nline, &c.procs[i].lang_sites[j]);
		}
	assert_int_equal(nstack, 2);
	assert_int_equal(by_stack[0].tz, 8);
	assert_int_equal(by_stack[0].procs, 2);
	assert_int_equal(nline, 1);
	assert_int_equal(by_line[0].tz, 12);
	f = open_memstream(&buf, &len);
	report_folded(f, &c);
	fclose(f);
	assert_string_equal(buf, "python3;pool.py:12 main;pool.py:5 work;tz 8\n"
				 "python3;pool.py:20 main;pool.py:5 work;tz 4\n");
	free(buf);
	free(by_stack);
	free(by_line);
	model_free(&c);
}

/* Which variant ran: in the JSON always, in the text only when a fallback did. */
static void test_report_names_the_kernel_variant(void **state)
{
	struct report_opts o = {};
	struct findings fs;
	struct model m;
	char *json = NULL, *text = NULL;
	size_t len = 0;
	FILE *f;

	(void)state;
	seed_model(&m, 1, 10);
	strcpy(m.kernel.release, "5.10.0-32-cloud-amd64");
	m.kernel.features.has[BPF_FEAT_CMPXCHG] = true;
	m.kernel.attach = ATTACH_FENTRY;
	findings_build(&m, &fs);
	f = open_memstream(&json, &len);
	report_json(f, &m, &fs, false);
	fclose(f);
	assert_non_null(strstr(json, "\"kernel\":{\"release\":\"5.10.0-32-cloud-amd64\","
		"\"attach\":\"fentry\",\"features\":{\"task_storage\":false,\"bpf_loop\":false,"
		"\"cmpxchg\":true,\"libc_helpers\":false,\"runtime_alloc\":false}}"));
	f = open_memstream(&text, &len);
	report_text(f, &m, &fs, &o);
	fclose(f);
	assert_non_null(strstr(text, "; syscalls seen by fentry\n"));
	assert_non_null(strstr(text, "kernel 5.10.0-32-cloud-amd64: threads in a "
		"hash map, bounded environment loop, --libc without cookies"));
	free(text);
	text = NULL;
	for (int i = 0; i < BPF_FEAT_MAX; i++)
		m.kernel.features.has[i] = true;
	f = open_memstream(&text, &len);
	report_text(f, &m, &fs, &o);
	fclose(f);
	assert_null(strstr(text, "kernel 5.10"));
	free(json);
	free(text);
	findings_free(&fs);
	model_free(&m);
}

static int parse(enum mode mode, struct opts *opts, int argc, ...)
{
	char *argv[16];
	va_list ap;

	va_start(ap, argc);
	for (int i = 0; i < argc; i++)
		argv[i] = va_arg(ap, char *);
	va_end(ap);
	argv[argc] = NULL;
	return cli_parse(mode, argc, argv, opts);
}

static void test_cli(void **state)
{
	struct opts opts;

	(void)state;
	assert_int_equal(parse(MODE_RUN, &opts, 4, "run", "--json", "ls", "-l"), 0);
	assert_int_equal(opts.format, FORMAT_JSON);
	assert_int_equal(opts.prog_argc, 2);
	assert_string_equal(opts.prog_argv[1], "-l");
	assert_int_equal(parse(MODE_RUN, &opts, 1, "run"), 125);
	assert_int_equal(parse(MODE_RUN, &opts, 3, "run", "--bogus", "ls"), 125);
	assert_int_equal(parse(MODE_ATTACH, &opts, 3, "attach", "-p", "abc"), 125);
	assert_int_equal(parse(MODE_ATTACH, &opts, 5, "attach", "-p", "1", "-d", "-1"), 125);
	free(opts.pids);		/* parsed before -d was refused: the caller's */
	assert_int_equal(parse(MODE_ATTACH, &opts, 1, "attach"), 125);
	assert_int_equal(parse(MODE_ATTACH, &opts, 5, "attach", "-p", "1,2", "-i", "0.5"), 0);
	assert_int_equal(opts.npids, 2);
	free(opts.pids);
	assert_int_equal(parse(MODE_RUN, &opts, 4, "run", "--ringbuf-kb", "5", "ls"), 125);
	assert_int_equal(parse(MODE_TOP, &opts, 3, "top", "-n", "3"), 0);
	assert_int_equal(opts.iterations, 3);
}

/* bench and doctor go through the same table: their own rows and limits. */
static void test_cli_bench_doctor(void **state)
{
	struct opts opts;

	(void)state;
	assert_int_equal(parse(MODE_BENCH, &opts, 1, "bench"), 0);
	assert_true(opts.duration == 0.2 && opts.cpu == -1 && !opts.clock_mask);
	assert_int_equal(parse(MODE_BENCH, &opts, 6, "bench", "-c",
			       "monotonic,CLOCK_TAI", "--cpu", "1", "-f"), 0);
	assert_int_equal(opts.clock_mask, (1u << 1) | (1u << 11));
	assert_true(opts.cpu == 1 && opts.fork);
	assert_int_equal(parse(MODE_BENCH, &opts, 3, "bench", "-c", "8"), 125);
	assert_int_equal(parse(MODE_BENCH, &opts, 3, "bench", "-d", "61"), 125);
	assert_int_equal(parse(MODE_BENCH, &opts, 3, "bench", "-d", "60"), 0);
	/* Options of the tracing modes are unknown here. */
	assert_int_equal(parse(MODE_BENCH, &opts, 2, "bench", "--libc"), 125);
	assert_int_equal(parse(MODE_DOCTOR, &opts, 2, "doctor", "-f"), 125);
	assert_int_equal(parse(MODE_DOCTOR, &opts, 4, "doctor", "-p", "7",
			       "--json"), 0);
	assert_true(opts.npids == 1 && opts.pids[0] == 7 &&
		    opts.format == FORMAT_JSON);
	free(opts.pids);
	assert_int_equal(parse(MODE_DOCTOR, &opts, 3, "doctor", "-p", "7,8"), 125);
	free(opts.pids);
	assert_int_equal(parse(MODE_TOP, &opts, 2, "top", "--fork"), 125);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tz_findings_on_the_seed_shape),
		cmocka_unit_test(test_no_finding_for_one_read_per_process),
		cmocka_unit_test(test_clock_findings_depend_on_clocksource),
		cmocka_unit_test(test_missing_tz_file_is_a_finding),
		cmocka_unit_test(test_delta_subtracts_counts),
		cmocka_unit_test(test_model_keeps_pids_sorted),
		cmocka_unit_test(test_json_report_has_the_contract_fields),
		cmocka_unit_test(test_report_names_the_kernel_variant),
		cmocka_unit_test(test_vdso_fallback_priced_per_process),
		cmocka_unit_test(test_cli),
		cmocka_unit_test(test_cli_bench_doctor),
		cmocka_unit_test(test_lang_stacks),
	};

	return cmocka_run_group_tests_name("model", tests, NULL, NULL);
}
