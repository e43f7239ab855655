// SPDX-License-Identifier: GPL-2.0
/* Unit tests of the exported series (user/core/metrics.c) and the HTTP router. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "container.h"
#include "httpd.h"
#include "metrics.h"
#include "model.h"
#include "procfs.h"

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

static uint64_t cgroup_count(const struct metrics *mx, const char *cg)
{
	for (size_t i = 0; i < mx->groups.nprocs; i++)
		if (mx->groups.procs[i].cgroup &&
		    !strcmp(mx->groups.procs[i].cgroup, cg))
			return mx->groups.procs[i].paths[0].count;
	return 0;
}

static void in_cgroup(struct model *m, pid_t pid, const char *cg)
{
	struct proc_model *p = model_find(m, pid);

	free(p->cgroup);
	p->cgroup = cg ? strdup(cg) : NULL;
}

static void test_by_cgroup_one_group_per_path(void **state)
{
	struct metrics mx = { .by = METRICS_BY_CGROUP };
	struct model m = {};

	(void)state;
	proc_stats(&m, 10, "worker", 5);
	in_cgroup(&m, 10, "/system.slice/a.service");
	proc_stats(&m, 11, "worker", 7);
	in_cgroup(&m, 11, "/system.slice/b.service");
	proc_stats(&m, 12, "master", 1);
	in_cgroup(&m, 12, "/system.slice/a.service");
	metrics_update(&mx, &m);
	assert_int_equal(mx.groups.nprocs, 2);
	assert_int_equal(cgroup_count(&mx, "/system.slice/a.service"), 6);
	assert_int_equal(cgroup_count(&mx, "/system.slice/b.service"), 7);
	/* Its place unread now (top: gone): it stays in its old group. */
	proc_stats(&m, 11, "worker", 9);
	in_cgroup(&m, 11, NULL);
	metrics_update(&mx, &m);
	assert_int_equal(cgroup_count(&mx, "/system.slice/b.service"), 9);
	assert_int_equal(mx.groups.nprocs, 2);
	model_free(&m);
	metrics_free(&mx);
}

#define CID(c) c "123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define POD_UID "6f1c9a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"

static void in_container(struct model *m, pid_t pid, const char *cg,
			 const char *id)
{
	in_cgroup(m, pid, cg);
	snprintf(model_find(m, pid)->container, 65, "%s", id);
}

static uint64_t id_count(const struct metrics *mx, const char *id)
{
	for (size_t i = 0; i < mx->groups.nprocs; i++)
		if (!strcmp(mx->groups.procs[i].container, id))
			return mx->groups.procs[i].paths[0].count;
	return 0;
}

static void test_by_container_and_pod(void **state)
{
	struct metrics byc = { .by = METRICS_BY_CONTAINER };
	struct metrics byp = { .by = METRICS_BY_POD };
	struct model m = {};

	(void)state;
	proc_stats(&m, 10, "nginx", 5);
	in_container(&m, 10, "/kubepods/burstable/pod" POD_UID "/" CID("a"),
		     CID("a"));
	proc_stats(&m, 11, "sidecar", 7);
	in_container(&m, 11, "/kubepods/burstable/pod" POD_UID "/" CID("b"),
		     CID("b"));
	proc_stats(&m, 12, "podman-app", 3);
	in_container(&m, 12, "/libpod_parent/libpod-" CID("c"), CID("c"));
	proc_stats(&m, 13, "sshd", 2);
	in_container(&m, 13, "/system.slice/ssh.service", "");
	metrics_update(&byc, &m);
	metrics_update(&byp, &m);
	assert_int_equal(byc.groups.nprocs, 4);
	assert_int_equal(id_count(&byc, CID("a")), 5);
	assert_int_equal(id_count(&byc, CID("c")), 3);
	assert_int_equal(id_count(&byc, ""), 2);
	/* Both containers of the pod in one group; the rest: no pod. */
	assert_int_equal(byp.groups.nprocs, 2);
	assert_int_equal(id_count(&byp, POD_UID), 12);
	assert_int_equal(id_count(&byp, ""), 5);
	model_free(&m);
	metrics_free(&byc);
	metrics_free(&byp);
}

/*
 * METRICS_GROUPS_MAX containers, most exited, then one more: the exited
 * ones fold into one group, no count lost; with all alive, the new one
 * goes there itself.
 */
static void test_container_groups_capped(void **state)
{
	struct metrics mx = { .by = METRICS_BY_CONTAINER };
	struct model m = {};
	char id[65], cg[128];
	uint64_t sum = 0;

	(void)state;
	for (int i = 0; i < METRICS_GROUPS_MAX; i++) {
		snprintf(id, sizeof(id), "%064x", i + 1);
		snprintf(cg, sizeof(cg), "/system.slice/docker-%s.scope", id);
		proc_stats(&m, 100 + i, "app", 2);
		in_container(&m, 100 + i, cg, id);
	}
	metrics_update(&mx, &m);
	assert_int_equal(mx.groups.nprocs, METRICS_GROUPS_MAX);
	/* All alive: a new container's counts go to the folded group. */
	snprintf(id, sizeof(id), "%064x", 9999);
	proc_stats(&m, 5000, "late", 4);
	in_container(&m, 5000, "/system.slice/docker-x.scope", id);
	metrics_update(&mx, &m);
	assert_int_equal(mx.groups.nprocs, METRICS_GROUPS_MAX + 1);
	assert_int_equal(id_count(&mx, METRICS_FOLDED), 4);
	/* All but the first ten exit: one more folds them. */
	for (int i = 10; i < METRICS_GROUPS_MAX; i++)
		model_find(&m, 100 + i)->exited = true;
	model_find(&m, 5000)->exited = true;
	snprintf(id, sizeof(id), "%064x", 8888);
	proc_stats(&m, 6000, "new", 1);
	in_container(&m, 6000, "/system.slice/docker-y.scope", id);
	metrics_update(&mx, &m);
	assert_int_equal(mx.groups.nprocs, 10 + 2);
	assert_int_equal(id_count(&mx, id), 1);
	assert_int_equal(id_count(&mx, METRICS_FOLDED),
			 4 + 2 * (METRICS_GROUPS_MAX - 10));
	for (size_t i = 0; i < mx.groups.nprocs; i++)
		sum += mx.groups.procs[i].paths[0].count;
	assert_int_equal(sum, 2 * METRICS_GROUPS_MAX + 4 + 1);
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
	assert_int_equal(route("HEAD /metrics HTTP/1.1", &text), 200);
	assert_int_equal(route("HEADX /metrics HTTP/1.1", &text), 405);
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

/* The peer a connection counts against: v4 as v4-mapped, v6 by its /64. */
static void test_http_peers(void **state)
{
	struct sockaddr_storage a, b;
	struct http_peer pa, pb;
	socklen_t len;

	(void)state;
	http_parse_addr("127.0.0.1:1", &a, &len);
	http_parse_addr("[::ffff:127.0.0.1]:2", &b, &len);
	http_peer_of(&a, &pa);
	http_peer_of(&b, &pb);
	assert_memory_equal(&pa, &pb, sizeof(pa));
	http_parse_addr("127.0.0.2:1", &b, &len);
	http_peer_of(&b, &pb);
	assert_memory_not_equal(&pa, &pb, sizeof(pa));
	http_parse_addr("[2001:db8:1:2::1]:1", &a, &len);
	http_parse_addr("[2001:db8:1:2:ffff::9]:1", &b, &len);
	http_peer_of(&a, &pa);
	http_peer_of(&b, &pb);
	assert_memory_equal(&pa, &pb, sizeof(pa));
	http_parse_addr("[2001:db8:1:3::1]:1", &b, &len);
	http_peer_of(&b, &pb);
	assert_memory_not_equal(&pa, &pb, sizeof(pa));
}

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"

static void expect_id(const char *cgroup, const char *want)
{
	char id[CONTAINER_ID_LEN + 1];
	bool found = container_id(cgroup, id);

	if (!want) {
		assert_false(found);
		return;
	}
	assert_true(found);
	assert_string_equal(id, want);
}

static void test_container_ids(void **state)
{
	(void)state;
	expect_id("/system.slice/docker-" ID64 ".scope", ID64);
	expect_id("/docker/" ID64, ID64);
	expect_id("/docker/" ID64 "/init.scope", ID64);
	expect_id("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-"
		  "pod1234.slice/cri-containerd-" ID64 ".scope", ID64);
	expect_id("/kubepods.slice/crio-" ID64 ".scope", ID64);
	expect_id("/machine.slice/libpod-" ID64 ".scope/container", ID64);
	expect_id("/user.slice/user-1000.slice/session-2.scope", NULL);
	expect_id("/system.slice/docker-0123.scope", NULL);
	expect_id("/system.slice/notdocker-" ID64 ".scope", NULL);
	expect_id("/docker-" ID64 "x", NULL);
	expect_id("/docker-" ID64 "0", NULL);
	expect_id("", NULL);
}

static void test_proc_place_files(void **state)
{
	const char *cg = "12:pids:/x\n1:name=systemd:/y\n0::/svc.slice/a b\n";
	const char *st = "Name:\tx\nPid:\t900\nNSpid:\t900\t17\t2\nVmRSS: 1\n";
	char *path;

	(void)state;
	path = cgroup_v2_path(cg, strlen(cg));
	assert_string_equal(path, "/svc.slice/a b");
	free(path);
	assert_null(cgroup_v2_path("1:cpu:/x\n", 9));
	/* A line break in a cgroup's name forged a second v2 line. */
	cg = "1:name=x:/a\n0::/system.slice/docker-" ID64 ".scope\n0::/b\n";
	assert_null(cgroup_v2_path(cg, strlen(cg)));
	assert_int_equal(status_nspid(st, strlen(st)), 2);
	assert_int_equal(status_nspid("Pid:\t3\n", 7), 0);
	assert_int_equal(status_tgid(st, strlen(st)), 0);
	/* A thread's status names its process; a Tgid inside a name does not. */
	st = "Name:\tx\nTgid:\t41\nPid:\t42\n";
	assert_int_equal(status_tgid(st, strlen(st)), 41);
	st = "Name:\tTgid: 9\n";
	assert_int_equal(status_tgid(st, strlen(st)), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_groups_sum_processes_and_only_grow),
		cmocka_unit_test(test_by_pid_keeps_one_group_per_process),
		cmocka_unit_test(test_by_cgroup_one_group_per_path),
		cmocka_unit_test(test_by_container_and_pod),
		cmocka_unit_test(test_container_groups_capped),
		cmocka_unit_test(test_http_route),
		cmocka_unit_test(test_http_addresses),
		cmocka_unit_test(test_http_peers),
		cmocka_unit_test(test_container_ids),
		cmocka_unit_test(test_proc_place_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
