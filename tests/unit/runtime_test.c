// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime behind a time-zone finding: its calls named as its users
 * write them, and the fix in its own code (findings, doctor -p).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "doctor_proc.h"
#include "findings.h"
#include "model.h"
#include "runtime.h"

#define SEC 1000000000ull

static struct proc_model *stat_proc(struct model *m, pid_t pid,
				    const char *exe, uint64_t stats)
{
	struct proc_model *p = model_proc(m, pid);

	p->ppid = 1;
	p->start_ns = SEC;
	p->tz_state = ENV_UNSET;
	p->exe = exe ? strdup(exe) : NULL;
	strcpy(p->comm, "w");
	p->kinds[KIND_TZ_STAT].count = stats;
	p->kinds[KIND_TZ_STAT].total_ns = stats * 1000;
	model_add_path(p, "/etc/localtime", KIND_TZ_STAT, stats, 0);
	return p;
}

static void new_model(struct model *m)
{
	memset(m, 0, sizeof(*m));
	m->mode = "run";
	m->start_ns = SEC;
	m->end_ns = 2 * SEC;
	strcpy(m->clocksource, "tsc");
}

static void add_site(struct proc_model *p, uint32_t lang, const char *cls,
		     const char *func, uint32_t libc_fn, uint64_t tz)
{
	struct lang_site_stat s = {
		.lang = lang, .libc_fn = libc_fn, .file = "w.rb", .line = 3,
		.func = (char *)func, .cls = (char *)cls, .tz_accesses = tz,
	};

	model_add_lang_site(p, &s);
}

static const struct finding *tz_finding(const struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].id, "tz-repeated-access"))
			return &fs->v[i];
	return NULL;
}

static void test_runtime_of_path(void **state)
{
	(void)state;
	assert_int_equal(runtime_of_path("/usr/bin/ruby3.1"), RUNTIME_RUBY);
	assert_int_equal(runtime_of_path("/usr/lib/x86_64-linux-gnu/libruby-3.1.so.3.1"),
			 RUNTIME_RUBY);
	assert_int_equal(runtime_of_path("/usr/bin/python3.11"), RUNTIME_PYTHON);
	assert_int_equal(runtime_of_path("libpython3.12.so.1.0"), RUNTIME_PYTHON);
	assert_int_equal(runtime_of_path("/usr/bin/perl"), RUNTIME_UNKNOWN);
	assert_int_equal(runtime_of_path("/usr/lib/librubbish.so"),
			 RUNTIME_UNKNOWN);
	assert_int_equal(runtime_of_path(NULL), RUNTIME_UNKNOWN);
}

static void expect_site(uint32_t lang, const char *cls, const char *func,
			uint32_t libc_fn, const char *want)
{
	struct lang_site_stat s = { .lang = lang, .libc_fn = libc_fn,
				    .func = (char *)func, .cls = (char *)cls };
	char *name = runtime_site_name(&s);

	assert_string_equal(name, want);
	free(name);
}

static void test_site_names(void **state)
{
	(void)state;
	expect_site(LANG_RUBY, "Date", "today", 0, "Date.today");
	expect_site(LANG_RUBY, "DateTime", "now", 0, "DateTime.now");
	expect_site(LANG_RUBY, "Time", "localtime", 0, "Time#localtime");
	expect_site(LANG_RUBY, "Process", "clock_gettime", 0,
		    "Process.clock_gettime");
	expect_site(LANG_RUBY, NULL, "work", 0, "work");
	expect_site(LANG_PYTHON, NULL, "task", 0, "task()");
	expect_site(LANG_PYTHON, NULL, "task", LIBC_MKTIME,
		    "time.mktime() in task()");
	expect_site(LANG_PYTHON, NULL, "task", LIBC_LOCALTIME_R, "task()");
}

/* --lang's line decides the runtime, and names the call in Ruby's way. */
static void test_ruby_finding(void **state)
{
	struct findings fs;
	struct model m;
	const struct finding *f;

	(void)state;
	new_model(&m);
	add_site(stat_proc(&m, 10, "/usr/bin/ruby3.1", 500), LANG_RUBY,
		 "Date", "today", 0, 500);
	findings_build(&m, &fs);
	f = tz_finding(&fs);
	assert_non_null(f);
	assert_string_equal(f->runtime, "ruby");
	assert_non_null(strstr(f->message, "in Date.today (100% of them)"));
	assert_non_null(strstr(f->runtime_fix, "ENV[\"TZ\"]"));
	findings_free(&fs);
	model_free(&m);
}

/* Without --lang, the executables; C only when --libc saw the C call. */
static void test_runtime_without_lang(void **state)
{
	struct findings fs;
	struct model m;
	struct proc_model *p;

	(void)state;
	new_model(&m);
	stat_proc(&m, 10, "/usr/bin/python3.11", 500);
	findings_build(&m, &fs);
	assert_string_equal(tz_finding(&fs)->runtime, "python");
	assert_non_null(strstr(tz_finding(&fs)->runtime_fix, "time.tzset()"));
	findings_free(&fs);
	model_free(&m);

	new_model(&m);
	p = stat_proc(&m, 10, "/usr/bin/perl", 500);
	findings_build(&m, &fs);
	assert_null(tz_finding(&fs)->runtime);
	assert_null(tz_finding(&fs)->runtime_fix);
	findings_free(&fs);
	proc_libc_mut(p, LIBC_LOCALTIME)->tz_accesses = 500;
	proc_libc_mut(p, LIBC_LOCALTIME)->calls = 500;
	findings_build(&m, &fs);
	assert_string_equal(tz_finding(&fs)->runtime, "c");
	assert_non_null(strstr(tz_finding(&fs)->runtime_fix, "localtime_r()"));
	findings_free(&fs);
	model_free(&m);
}

static void test_doctor_runtime(void **state)
{
	struct proc_facts p = { .libc = LIBC_KIND_GLIBC, .tz_state = 0,
				.runtime = RUNTIME_RUBY };
	enum check_status st;
	char buf[512];

	(void)state;
	assert_non_null(strstr(proc_runtime_finding(&p, &st, buf, sizeof(buf)),
			       "Date.today and DateTime.now re-check"));
	assert_int_equal(st, CHECK_WARN);
	p.tz_state = 1;
	assert_non_null(proc_runtime_finding(&p, &st, buf, sizeof(buf)));
	assert_int_equal(st, CHECK_OK);
	p.libc = LIBC_KIND_MUSL;
	assert_null(proc_runtime_finding(&p, &st, buf, sizeof(buf)));
	p.libc = LIBC_KIND_GLIBC;
	p.runtime = RUNTIME_UNKNOWN;
	assert_null(proc_runtime_finding(&p, &st, buf, sizeof(buf)));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runtime_of_path),
		cmocka_unit_test(test_site_names),
		cmocka_unit_test(test_ruby_finding),
		cmocka_unit_test(test_runtime_without_lang),
		cmocka_unit_test(test_doctor_runtime),
	};

	return cmocka_run_group_tests_name("runtime", tests, NULL, NULL);
}
