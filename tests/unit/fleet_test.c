// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the exported series (user/metrics.c) and the HTTP router. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "httpd.h"
#include "metrics.h"
#include "model.h"

static void proc_stats(struct model *m, pid_t pid, const char *comm,
		       uint64_t n)
{
	struct proc_model *p = model_proc(m, pid);

	snprintf(p->comm, sizeof(p->comm), "%s", comm);
	p->kinds[KIND_TZ_STAT].count = n;
	p->kinds[KIND_TZ_STAT].hist[11] = n;
	p->npaths = 0;
	model_add_path(p, "/etc/localtime", KIND_TZ_STAT, n, 0);
}

static uint64_t group_count(const struct metrics *mx, const char *comm)
{
	for (size_t i = 0; i < mx->groups.nprocs; i++)
		if (!strcmp(mx->groups.procs[i].comm, comm))
			return mx->groups.procs[i].paths[0].count;
	return 0;
}

static void test_groups_sum_processes_and_only_grow(void **state)
{
	struct metrics mx = { .by = METRICS_BY_COMM };
	struct model m = {};

	(void)state;
	proc_stats(&m, 10, "worker", 5);
	proc_stats(&m, 11, "worker", 7);
	proc_stats(&m, 12, "master", 1);
	metrics_update(&mx, &m);
	assert_int_equal(mx.groups.nprocs, 2);
	assert_int_equal(group_count(&mx, "worker"), 12);
	/* The same totals again: nothing grew. */
	metrics_update(&mx, &m);
	assert_int_equal(group_count(&mx, "worker"), 12);
	/* pid 11 evicted, 13 new; pid 10 grew. */
	model_remove(&m, 11);
	metrics_forget(&mx, 11);
	proc_stats(&m, 10, "worker", 8);
	proc_stats(&m, 13, "worker", 2);
	metrics_update(&mx, &m);
	assert_int_equal(group_count(&mx, "worker"), 17);
	assert_int_equal(mx.groups.procs[0].kinds[KIND_TZ_STAT].hist[11], 17);
	/* An LRU map forgot pid 10 and it restarted from 1: one more. */
	proc_stats(&m, 10, "worker", 1);
	metrics_update(&mx, &m);
	assert_int_equal(group_count(&mx, "worker"), 18);
	/* A name read as "" later (top: the process is gone) keeps the old. */
	proc_stats(&m, 12, "", 4);
	metrics_update(&mx, &m);
	assert_int_equal(group_count(&mx, "master"), 4);
	assert_int_equal(mx.groups.nprocs, 2);
	model_free(&m);
	metrics_free(&mx);
}

static void test_by_pid_keeps_one_group_per_process(void **state)
{
	struct metrics mx = { .by = METRICS_BY_PID };
	struct model m = {};

	(void)state;
	proc_stats(&m, 10, "worker", 5);
	proc_stats(&m, 11, "worker", 7);
	metrics_update(&mx, &m);
	assert_int_equal(mx.groups.nprocs, 2);
	assert_int_equal(mx.groups.procs[1].pid, 11);
	model_free(&m);
	metrics_free(&mx);
}

static int route(const char *req, bool *text)
{
	return http_route(req, strlen(req), text);
}

static void test_http_route(void **state)
{
	bool text = false;

	(void)state;
	assert_int_equal(route("GET /metrics HTTP/1.1\r\nAccept: */*", &text), 200);
	assert_true(text);
	assert_int_equal(route("GET /metrics?x=1 HTTP/1.0\r\nACCEPT: "
			       "application/openmetrics-text;version=1.0.0",
			       &text), 200);
	assert_false(text);
	assert_int_equal(route("GET /metricsx HTTP/1.1", &text), 404);
	assert_int_equal(route("GET / HTTP/1.1", &text), 404);
	assert_int_equal(route("POST /metrics HTTP/1.1", &text), 405);
	assert_int_equal(route("HEAD /metrics HTTP/1.1", &text), 405);
	assert_int_equal(route("GET /metrics", &text), 400);
	assert_int_equal(route("NONSENSE", &text), 400);
	assert_int_equal(route(" /metrics HTTP/1.1", &text), 400);
	assert_int_equal(http_route("GET /metrics\0 HTTP/1.1", 22, &text), 400);
}

static void test_http_addresses(void **state)
{
	struct sockaddr_storage sa;
	socklen_t len;

	(void)state;
	assert_int_equal(http_parse_addr("9100", &sa, &len), 0);
	assert_int_equal(http_parse_addr(":9100", &sa, &len), 0);
	assert_int_equal(http_parse_addr("0.0.0.0:9100", &sa, &len), 0);
	assert_int_equal(http_parse_addr("[::1]:9100", &sa, &len), 0);
	assert_int_equal(http_parse_addr("localhost:9100", &sa, &len), 0);
	assert_int_equal(http_parse_addr("0", &sa, &len), -1);
	assert_int_equal(http_parse_addr("65536", &sa, &len), -1);
	assert_int_equal(http_parse_addr("host:80", &sa, &len), -1);
	assert_int_equal(http_parse_addr("::1:80", &sa, &len), -1);
	assert_int_equal(http_parse_addr("[::1:80", &sa, &len), -1);
	assert_int_equal(http_parse_addr("1.2.3.4:", &sa, &len), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_sum_processes_and_only_grow),
		cmocka_unit_test(test_by_pid_keeps_one_group_per_process),
		cmocka_unit_test(test_http_route),
		cmocka_unit_test(test_http_addresses),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
