/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A container's name, and its pod's name, namespace and UID, from the
 * files its runtime writes for it: no runtime socket, no gRPC.  Looked up
 * once per container id (the cgroup path's, container.h) when its first
 * process is learned, and kept: the files go when the container does.
 */
#ifndef CLOCKTRACE_CONTAINER_NAMES_H
#define CLOCKTRACE_CONTAINER_NAMES_H

#include <stdbool.h>
#include <stddef.h>

#include "container.h"

/* Kubernetes' longest name (a DNS subdomain); a longer value is refused. */
#define CONTAINER_NAME_MAX	253
/* How many containers are looked up and kept; beyond, none is. */
#define CONTAINER_NAMES_MAX	4096
/* The largest runtime file read; past it the file is cut, and unparsed. */
#define CONTAINER_FILE_MAX	(1 << 20)
/* containers/storage's list of every container, podman's names. */
#define CONTAINER_LIST_MAX	(4 << 20)

/* "" where unknown.  Bytes as the runtime wrote them: escape for output. */
struct container_names {
	char id[CONTAINER_ID_LEN + 1];
	char name[CONTAINER_NAME_MAX + 1];
	char pod[CONTAINER_NAME_MAX + 1];
	char namespace[CONTAINER_NAME_MAX + 1];
	char pod_uid[POD_UID_LEN + 1];
	/* The file found: "containerd", "cri-o", "podman", "docker"; NULL: none. */
	const char *source;
	/* Values refused: too long, a NUL, or not a string. */
	unsigned int refused;
};

/* Any name known. */
bool container_names_known(const struct container_names *n);

/*
 * From an OCI bundle's config.json: the "annotations" that containerd's
 * CRI plugin (io.kubernetes.cri.*) or CRI-O and podman (the kubelet's
 * io.kubernetes.* labels) write.  false: not a bundle.
 */
bool container_names_from_bundle(const char *buf, size_t len,
				 struct container_names *out);
/* From docker's config.v2.json: "Name", and cri-dockerd's Config.Labels. */
bool container_names_from_docker(const char *buf, size_t len,
				 struct container_names *out);
/* From containers/storage's containers.json: the first of ID's "names". */
bool container_names_from_storage(const char *buf, size_t len,
				  struct container_names *out);

/*
 * Where the host's /run and /var/lib are ("": /; the DaemonSet mounts
 * them in place, kubectl debug node/ under /host): CLOCKTRACE_HOST_ROOT.
 */
void container_names_root(const char *root);

/*
 * The names of container ID (64 hex digits), read from the runtime's
 * files the first time, then kept.  NULL only past CONTAINER_NAMES_MAX.
 */
const struct container_names *container_names_of(const char *id);

struct container_names_stats {
	size_t looked_up;	/* containers whose files were looked for */
	size_t unnamed;		/* of those, no name found */
	size_t not_kept;	/* past CONTAINER_NAMES_MAX: not looked up */
};

void container_names_stats(struct container_names_stats *s);

#endif /* CLOCKTRACE_CONTAINER_NAMES_H */
