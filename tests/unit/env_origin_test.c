// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of where a process got its environment (user/core/env_origin.c),
 * the pod and container its cgroup names (container.c), and the fixes a
 * finding gets (fix_place.c), with cgroup paths as runtimes write them.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "container.h"
#include "env_origin.h"
#include "findings.h"
#include "fix_place.h"
#include "model.h"

#define ID64 "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef"
#define UID "6f1c9a2e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
#define UID_ "6f1c9a2e_3b4d_4e5f_8a9b_0c1d2e3f4a5b"
#define TZ_FIX "TZ=:/etc/localtime"

static void expect_pod(const char *cgroup, const char *want)
{
	char uid[POD_UID_LEN + 1];
	bool found = pod_uid(cgroup, uid);

	if (!want) {
		assert_false(found);
		return;
	}
	assert_true(found);
	assert_string_equal(uid, want);
}

static void test_pod_uids(void **state)
{
	(void)state;
	/* containerd, systemd driver (kubeadm's default) */
	expect_pod("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
		   UID_ ".slice/cri-containerd-" ID64 ".scope", UID);
	/* Guaranteed QoS: no QoS slice */
	expect_pod("/kubepods.slice/kubepods-pod" UID_ ".slice/crio-" ID64
		   ".scope", UID);
	/* cgroupfs driver: the container's bare id below pod<UID> */
	expect_pod("/kubepods/besteffort/pod" UID "/" ID64, UID);
	/* the pod's own cgroup (a pause process) */
	expect_pod("/kubepods/burstable/pod" UID, UID);
	expect_pod("/system.slice/docker-" ID64 ".scope", NULL);
	expect_pod("/user.slice/mypod" UID ".slice", NULL);
	expect_pod("/kubepods/burstable/pod6f1c9a2e-3b4d", NULL);
	expect_pod("", NULL);
}

static void test_container_runtimes(void **state)
{
	char id[CONTAINER_ID_LEN + 1];

	(void)state;
	assert_string_equal(container_runtime("/system.slice/docker-" ID64
					      ".scope"), "docker");
	assert_string_equal(container_runtime("/docker/" ID64), "docker");
	assert_string_equal(container_runtime("/kubepods.slice/kubepods-pod"
		UID_ ".slice/cri-containerd-" ID64 ".scope"), "containerd");
	assert_string_equal(container_runtime("/kubepods.slice/kubepods-pod"
		UID_ ".slice/crio-" ID64 ".scope"), "cri-o");
	assert_string_equal(container_runtime("/machine.slice/libpod-" ID64
					      ".scope/container"), "podman");
	/* podman's cgroupfs manager (cgroup v1 hosts) */
	assert_string_equal(container_runtime("/libpod_parent/libpod-" ID64),
			    "podman");
	assert_string_equal(container_runtime("/kubepods/besteffort/pod" UID
					      "/" ID64), "kubelet");
	assert_true(container_id("/kubepods/besteffort/pod" UID "/" ID64, id));
	assert_string_equal(id, ID64);
	/* A bare id anywhere else is no container. */
	assert_false(container_id("/somewhere/" ID64, id));
	assert_null(container_runtime("/user.slice/user-1000.slice/session-3.scope"));
}

static struct env_place place(const char *cgroup, const char *container)
{
	struct env_place p;

	env_place_of(cgroup, container, &p);
	return p;
}

static void test_places(void **state)
{
	struct env_place p;

	(void)state;
	p = place("/system.slice/nginx.service", "");
	assert_int_equal(p.origin, ORIGIN_UNIT);
	assert_string_equal(p.unit, "nginx.service");
	p = place("/system.slice/gunicorn.service/worker", "");
	assert_int_equal(p.origin, ORIGIN_UNIT);
	assert_string_equal(p.unit, "gunicorn.service");
	p = place("/system.slice/cron.service", "");
	assert_int_equal(p.origin, ORIGIN_CRON);
	p = place("/system.slice/run-u42.service", "");
	assert_int_equal(p.origin, ORIGIN_TRANSIENT);
	p = place("/system.slice/run-r0a1b2c3d.scope", "");
	assert_int_equal(p.origin, ORIGIN_TRANSIENT);
	assert_string_equal(p.unit, "run-r0a1b2c3d.scope");
	p = place("/system.slice/run-parts.service", "");
	assert_int_equal(p.origin, ORIGIN_UNIT);
	p = place("/user.slice/user-1000.slice/user@1000.service/app.slice/"
		  "syncd.service", "");
	assert_int_equal(p.origin, ORIGIN_USER_UNIT);
	assert_string_equal(p.unit, "syncd.service");
	p = place("/user.slice/user-1000.slice/session-3.scope", "");
	assert_int_equal(p.origin, ORIGIN_SHELL);
	p = place("/user.slice/user-1000.slice/user@1000.service/init.scope", "");
	assert_int_equal(p.origin, ORIGIN_SHELL);
	p = place("/", "");
	assert_int_equal(p.origin, ORIGIN_SHELL);
	p = place(NULL, "");
	assert_int_equal(p.origin, ORIGIN_SHELL);
	p = place("/machine.slice/libpod-" ID64 ".scope/container", ID64);
	assert_int_equal(p.origin, ORIGIN_CONTAINER);
	assert_string_equal(p.runtime, "podman");
	assert_string_equal(p.container, "0123456789ab");
	p = place("/kubepods.slice/kubepods-burstable.slice/kubepods-burstable-pod"
		  UID_ ".slice/cri-containerd-" ID64 ".scope", ID64);
	assert_int_equal(p.origin, ORIGIN_POD);
	assert_string_equal(p.pod, UID);
	/* A container-like name not believed (container_unverified): by path. */
	p = place("/user.slice/user-1000.slice/user@1000.service/docker-" ID64
		  ".scope", "");
	assert_int_equal(p.origin, ORIGIN_SHELL);
}

static void free_steps(struct fix_step *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(s[i].how);
}

static void test_steps(void **state)
{
	struct fix_step s[ENV_FIX_STEPS];
	struct env_place p;
	size_t n;

	(void)state;
	p = place("/system.slice/nginx.service", "");
	n = env_fix_steps(&p, TZ_FIX, s);
	assert_int_equal(n, 1);
	assert_string_equal(s[0].where, "systemd unit");
	assert_non_null(strstr(s[0].how, "systemctl edit nginx.service"));
	assert_non_null(strstr(s[0].how, "Environment=TZ=:/etc/localtime"));
	free_steps(s, n);
	p = place("/user.slice/user-1000.slice/user@1000.service/app.slice/"
		  "syncd.service", "");
	n = env_fix_steps(&p, TZ_FIX, s);
	assert_non_null(strstr(s[0].how, "systemctl --user edit syncd.service"));
	free_steps(s, n);
	p = place("/system.slice/run-u42.service", "");
	n = env_fix_steps(&p, TZ_FIX, s);
	assert_string_equal(s[0].where, "systemd-run");
	assert_non_null(strstr(s[0].how, "systemd-run -E TZ=:/etc/localtime"));
	free_steps(s, n);
	p = place("/libpod_parent/libpod-" ID64, ID64);
	n = env_fix_steps(&p, TZ_FIX, s);
	assert_int_equal(n, 2);
	assert_string_equal(s[0].where, "image");
	assert_non_null(strstr(s[0].how, "ENV TZ=:/etc/localtime"));
	assert_non_null(strstr(s[0].how, "podman container 0123456789ab"));
	assert_string_equal(s[1].where, "container run");
	assert_non_null(strstr(s[1].how, "podman run -e TZ=:/etc/localtime"));
	free_steps(s, n);
	p = place("/kubepods/besteffort/pod" UID "/" ID64, ID64);
	n = env_fix_steps(&p, TZ_FIX, s);
	assert_string_equal(s[0].where, "pod spec");
	assert_non_null(strstr(s[0].how, "env: [{name: TZ, value: \":/etc/localtime\"}]"));
	assert_non_null(strstr(s[0].how, "pod " UID));
	assert_string_equal(s[1].where, "image");
	free_steps(s, n);
	p = place("/system.slice/cron.service", "");
	n = env_fix_steps(&p, "TZ=UTC", s);
	assert_string_equal(s[0].where, "crontab");
	assert_string_equal(s[1].where, "shell profile");
	free_steps(s, n);
	p = place("/user.slice/user-1000.slice/session-3.scope", "");
	n = env_fix_steps(&p, TZ_FIX, s);
	assert_string_equal(s[0].where, "shell profile");
	assert_non_null(strstr(s[0].how, "export TZ=:/etc/localtime"));
	assert_string_equal(s[1].where, "crontab");
	free_steps(s, n);
}

static void in_place(struct model *m, pid_t pid, const char *cg,
		     const char *container)
{
	struct proc_model *p = model_proc(m, pid);

	p->cgroup = strdup(cg);
	snprintf(p->container, sizeof(p->container), "%s", container);
}

/* One finding over processes in two units and a pod: each place once. */
static void test_finding_fixes_per_place(void **state)
{
	struct model m = {0};
	pid_t pids[] = { 10, 11, 12, 13 };
	struct finding f = {
		.fix = "set TZ", .env_fix = TZ_FIX,
		.pids = pids, .npids = 4,
	};
	struct finding code = { .fix = "call clock_gettime less" };

	(void)state;
	in_place(&m, 10, "/system.slice/a.service", "");
	in_place(&m, 11, "/system.slice/a.service", "");
	in_place(&m, 12, "/kubepods/burstable/pod" UID "/" ID64, ID64);
	in_place(&m, 13, "/system.slice/b.service", "");
	finding_place_fixes(&m, &f);
	assert_int_equal(f.nfixes, 4);
	assert_non_null(strstr(f.fixes[0].how, "edit a.service"));
	assert_string_equal(f.fixes[1].where, "pod spec");
	assert_string_equal(f.fixes[2].where, "image");
	assert_non_null(strstr(f.fixes[3].how, "edit b.service"));
	free_steps(f.fixes, f.nfixes);
	finding_place_fixes(&m, &code);
	assert_int_equal(code.nfixes, 1);
	assert_string_equal(code.fixes[0].where, "program");
	assert_string_equal(code.fixes[0].how, "call clock_gettime less");
	free_steps(code.fixes, code.nfixes);
	model_free(&m);
}

/* The runtime's names: a pod by name and namespace, a container by name. */
static void test_steps_named(void **state)
{
	struct container_names web = { .name = "web", .pod = "web-0",
				       .namespace = "shop" };
	struct container_names ct = { .name = "ct-named" };
	struct fix_step s[ENV_FIX_STEPS];
	struct env_place p;

	(void)state;
	/* podman's cgroup has no pod UID: the names alone make it a pod. */
	p = place("/libpod_parent/libpod-" ID64, ID64);
	env_place_names(&p, &web);
	assert_int_equal(p.origin, ORIGIN_POD);
	assert_int_equal(env_fix_steps(&p, TZ_FIX, s), 2);
	assert_string_equal(s[0].where, "pod spec");
	assert_non_null(strstr(s[0].how, "on container web (id 0123456789ab) "
			       "in the pod spec of pod web-0 in namespace shop"));
	free_steps(s, 2);
	p = place("/libpod_parent/libpod-" ID64, ID64);
	env_place_names(&p, &ct);
	assert_int_equal(p.origin, ORIGIN_CONTAINER);
	assert_int_equal(env_fix_steps(&p, TZ_FIX, s), 2);
	assert_non_null(strstr(s[0].how, "ENV TZ=:/etc/localtime in the image "
			       "of podman container ct-named (id 0123456789ab;"));
	free_steps(s, 2);
	/* Names never make a process outside a container a container's. */
	p = place("/system.slice/nginx.service", "");
	env_place_names(&p, &web);
	assert_int_equal(p.origin, ORIGIN_UNIT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pod_uids),
		cmocka_unit_test(test_container_runtimes),
		cmocka_unit_test(test_places),
		cmocka_unit_test(test_steps),
		cmocka_unit_test(test_steps_named),
		cmocka_unit_test(test_finding_fixes_per_place),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
