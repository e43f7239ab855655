// SPDX-License-Identifier: GPL-2.0
/*
 * Roles per process tree and what the findings make of them: a wrapper is
 * not the parent, unrelated trees stay apart, a cost is counted once and
 * severity follows the cost.
 */
#include <stdint.h>
#include <string.h>

#include "unit_test.h"
#include "findings.h"
#include "model.h"
#include "roles.h"

#define SEC 1000000000ull

/* A process that stat'ed /etc/localtime stats times, each costing ns. */
static struct proc_model *proc(struct model *m, pid_t pid, pid_t ppid,
			       unsigned int depth, uint64_t stats, uint64_t ns)
{
	struct proc_model *p = model_proc(m, pid);

	p->ppid = ppid;
	p->depth = depth;
	p->start_ns = SEC;
	p->tz_state = ENV_UNSET;
	strcpy(p->comm, "w");
	if (stats) {
		p->kinds[KIND_TZ_STAT].count = stats;
		p->kinds[KIND_TZ_STAT].total_ns = stats * ns;
		model_add_path(p, "/etc/localtime", KIND_TZ_STAT, stats, 0);
	}
	return p;
}

static void new_model(struct model *m, uint64_t ms)
{
	memset(m, 0, sizeof(*m));
	m->mode = "run";
	m->start_ns = SEC;
	m->end_ns = SEC + ms * 1000000ull;
	strcpy(m->clocksource, "tsc");
}

static const struct finding *find(const struct findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].id, id))
			return &fs->v[i];
	return NULL;
}

/* timeout -> tar: one child, no events of its own: tar is the parent. */
static void test_wrapper_is_not_the_parent(void **state)
{
	struct proc_trees t;
	struct findings fs;
	struct model m;

	(void)state;
	new_model(&m, 1000);
	proc(&m, 10, 1, 0, 0, 0);
	proc(&m, 11, 10, 1, 3001, 1000);
	roles_build(&m, &t);
	assert_int_equal(t.n, 1);
	assert_int_equal(t.v[0].root, 10);
	assert_int_equal(t.v[0].forker, 11);
	assert_int_equal(t.v[0].wrappers, 1);
	assert_int_equal(t.v[0].parent.tz, 3001);
	assert_int_equal(t.v[0].children.procs, 0);
	roles_free(&t);
	findings_build(&m, &fs);
	assert_non_null(find(&fs, "tz-repeated-access"));
	/* Nothing is repeated: the old rule called timeout the parent. */
	assert_null(find(&fs, "tz-children-repeat"));
	findings_free(&fs);
	model_free(&m);
}

/* Two trees in one cgroup: each its own parent, the busy one first. */
static void test_unrelated_trees_stay_apart(void **state)
{
	struct proc_trees t;
	struct findings fs;
	const struct finding *f;
	struct model m;

	(void)state;
	new_model(&m, 1000);
	proc(&m, 20, 1, 0, 0, 0);		/* an idle tree */
	proc(&m, 21, 20, 1, 1, 1000);
	proc(&m, 22, 20, 1, 1, 1000);
	proc(&m, 30, 1, 0, 0, 0);		/* timeout */
	proc(&m, 31, 30, 1, 500, 1000);		/* the forker */
	proc(&m, 32, 31, 2, 2000, 1000);
	proc(&m, 33, 31, 2, 2000, 1000);
	roles_build(&m, &t);
	assert_int_equal(t.n, 2);
	assert_int_equal(t.v[0].root, 30);
	assert_int_equal(t.v[0].forker, 31);
	assert_int_equal(t.v[0].children.procs, 2);
	assert_int_equal(t.v[0].children.tz, 4000);
	assert_int_equal(t.v[1].root, 20);
	assert_int_equal(t.v[1].forker, 20);
	assert_int_equal(t.v[1].wrappers, 0);
	roles_free(&t);
	findings_build(&m, &fs);
	f = find(&fs, "tz-children-repeat");
	assert_non_null(f);
	assert_int_equal(f->npids, 2);
	assert_non_null(strstr(f->message, "against 500 in the parent pid 31"));
	findings_free(&fs);
	model_free(&m);
}

/* The children's cost is the repeated access's: counted once. */
static void test_cost_counted_once(void **state)
{
	const struct finding *rep, *kids;
	struct findings fs;
	struct model m;

	(void)state;
	new_model(&m, 1000);
	proc(&m, 40, 1, 0, 1000, 1000);
	proc(&m, 41, 40, 1, 1000, 1000);
	findings_build(&m, &fs);
	rep = find(&fs, "tz-repeated-access");
	kids = find(&fs, "tz-children-repeat");
	assert_non_null(rep);
	assert_non_null(kids);
	assert_true(rep->cost.known);
	assert_int_equal(rep->cost.kernel_ns, 2000000);
	assert_false(kids->cost.known);
	assert_string_equal(kids->see, "tz-repeated-access");
	assert_string_equal(kids->severity, rep->severity);
	findings_free(&fs);
	model_free(&m);
}

static const char *severity_for(uint64_t ms, uint64_t stats, uint64_t ns)
{
	static char out[16];
	struct findings fs;
	struct model m;

	new_model(&m, ms);
	proc(&m, 50, 1, 0, stats, ns);
	findings_build(&m, &fs);
	assert_int_equal(fs.n, 1);
	strcpy(out, fs.v[0].severity);
	findings_free(&fs);
	model_free(&m);
	return out;
}

static void test_severity_follows_cost(void **state)
{
	(void)state;
	/* 200 ms in 1 s: 20% of a CPU, and over 100 ms in all. */
	assert_string_equal(severity_for(1000, 100000, 2000), "critical");
	/* 20 ms in 100 ms: 20% of a CPU, but 20 ms in all: a blip. */
	assert_string_equal(severity_for(100, 10000, 2000), "warning");
	/* 20 ms in 1 s: 2% of a CPU. */
	assert_string_equal(severity_for(1000, 10000, 2000), "warning");
	/* 2 ms in 1 s: 0.2% of a CPU. */
	assert_string_equal(severity_for(1000, 10000, 200), "info");
	/* 131.8 us/s over 100 s: 0.01% of a CPU, 13 ms in all. */
	assert_string_equal(severity_for(100000, 13180, 1000), "info");
	/* 0.1% of a CPU, but 1.2 s in all over 1,000 s. */
	assert_string_equal(severity_for(1000000, 1200000, 1000), "warning");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_wrapper_is_not_the_parent),
		cmocka_unit_test(test_unrelated_trees_stay_apart),
		cmocka_unit_test(test_cost_counted_once),
		cmocka_unit_test(test_severity_follows_cost),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
