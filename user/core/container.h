/* SPDX-License-Identifier: GPL-2.0 */
/* Where a process lives: its cgroup v2 path, container id and own pid. */
#ifndef CLOCKTRACE_CONTAINER_H
#define CLOCKTRACE_CONTAINER_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#define CONTAINER_ID_LEN	64
/* A Kubernetes pod's UID: 8-4-4-4-12 hex digits. */
#define POD_UID_LEN		36

/* The "0::PATH" line of /proc/PID/cgroup (malloc'ed), or NULL. */
char *cgroup_v2_path(const char *proc_cgroup, size_t len);
/*
 * The id in a docker, containerd (CRI), CRI-O or podman cgroup path:
 * 64 hex digits after "docker-", "cri-containerd-", "crio-", "libpod-",
 * or as a whole "/docker/ID" component.  false: none.
 */
bool container_id(const char *cgroup, char id[CONTAINER_ID_LEN + 1]);
/*
 * Which runtime made the container cgroup_id() finds: "docker",
 * "containerd", "cri-o", "podman", "kubelet" (a bare id below a pod, the
 * cgroupfs driver's name); NULL: no container.
 */
const char *container_runtime(const char *cgroup);
/*
 * The UID of the Kubernetes pod whose cgroup CGROUP is in or below
 * (".../kubepods-burstable-pod<UID>.slice/...", ".../pod<UID>/..."),
 * with dashes whichever driver named it.  false: none.
 */
bool pod_uid(const char *cgroup, char uid[POD_UID_LEN + 1]);
/*
 * What a process's cgroup says of its container: none, an id a runtime
 * made (every directory up to the root is root's alone), or a name that
 * looks like one in a cgroup a user could name (delegated): not believed.
 */
enum container_claim {
	CONTAINER_NONE,
	CONTAINER_VERIFIED,
	CONTAINER_UNVERIFIED,
};

enum container_claim container_of_cgroup(const char *cgroup,
					 char id[CONTAINER_ID_LEN + 1]);

#endif /* CLOCKTRACE_CONTAINER_H */
