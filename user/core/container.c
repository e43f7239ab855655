// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup and container of a process, from its /proc files.  A traced
 * program controls neither file's format, but may choose its cgroup's
 * name: everything is bounded and a path is taken as bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "cgroup.h"
#include "container.h"
#include "util.h"

/*
 * A cgroup's name may hold a line break: a second "0::" line was written
 * by whoever named a cgroup, so neither line is believed.
 */
char *cgroup_v2_path(const char *buf, size_t len)
{
	const char *line = buf, *end = buf + len, *found = NULL;
	size_t found_len = 0;

	while (line < end) {
		const char *eol = memchr(line, '\n', end - line);
		size_t n = (eol ? eol : end) - line;

		if (n > 3 && !memcmp(line, "0::", 3)) {
			if (found)
				return NULL;
			found = line + 3;
			found_len = n - 3;
		}
		line += n + 1;
	}
	return found ? strndup(found, found_len) : NULL;
}

static bool hex64_at(const char *s)
{
	for (int i = 0; i < CONTAINER_ID_LEN; i++)
		if (!strchr("0123456789abcdef", s[i]) || !s[i])
			return false;
	return true;
}

/* Container cgroup names: "PREFIX<64 hex>", each made by one runtime. */
static const struct {
	const char *prefix;
	const char *runtime;
} prefixes[] = {
	{ "docker-", "docker" },
	{ "cri-containerd-", "containerd" },
	{ "crio-", "cri-o" },
	{ "libpod-", "podman" },
	{ "docker/", "docker" },
};

/* The id at C + 1 ends a component (or a ".scope"). */
static bool id_ends_component(const char *c)
{
	char after;

	if (strlen(c + 1) < CONTAINER_ID_LEN || !hex64_at(c + 1))
		return false;
	after = c[1 + CONTAINER_ID_LEN];
	return !after || after == '.' || after == '/';
}

/* The innermost prefix whose id ends at C's component; -1: none here. */
static int prefix_at(const char *cgroup, const char *c)
{
	for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
		size_t n = strlen(prefixes[i].prefix);

		if (c - cgroup + 1 < (ptrdiff_t)n ||
		    strncmp(c - n + 1, prefixes[i].prefix, n))
			continue;
		if (c - n + 1 > cgroup && c[-(ptrdiff_t)n] != '/')
			continue;
		if (id_ends_component(c))
			return (int)i;
	}
	return -1;
}

static bool is_pod_component(const char *start, size_t len);

/*
 * Kubelet's cgroupfs driver names a container by its bare id, right
 * below its pod: /kubepods/burstable/pod<UID>/<id>.
 */
static bool bare_id_in_pod(const char *cgroup, const char *c)
{
	const char *parent_end = c, *parent;

	if (*c != '/' || !id_ends_component(c))
		return false;
	parent = parent_end;
	while (parent > cgroup && parent[-1] != '/')
		parent--;
	return is_pod_component(parent, parent_end - parent);
}

/* The innermost container in CGROUP: its id and its runtime's name. */
static bool find_container(const char *cgroup, char id[CONTAINER_ID_LEN + 1],
			   const char **runtime)
{
	/* The innermost match: a container's own cgroups nest below it. */
	for (const char *c = cgroup + strlen(cgroup); c-- > cgroup;) {
		int i = prefix_at(cgroup, c);

		if (i < 0 && !bare_id_in_pod(cgroup, c))
			continue;
		memcpy(id, c + 1, CONTAINER_ID_LEN);
		id[CONTAINER_ID_LEN] = '\0';
		*runtime = i < 0 ? "kubelet" : prefixes[i].runtime;
		return true;
	}
	return false;
}

bool container_id(const char *cgroup, char id[CONTAINER_ID_LEN + 1])
{
	const char *runtime;

	return find_container(cgroup, id, &runtime);
}

const char *container_runtime(const char *cgroup)
{
	char id[CONTAINER_ID_LEN + 1];
	const char *runtime;

	return find_container(cgroup, id, &runtime) ? runtime : NULL;
}

/* 8-4-4-4-12 hex digits, with '-' (cgroupfs) or '_' (systemd) between. */
static bool uid_at(const char *s, size_t len)
{
	if (len != POD_UID_LEN)
		return false;
	for (size_t i = 0; i < len; i++) {
		bool dash = i == 8 || i == 13 || i == 18 || i == 23;

		if (dash ? s[i] != '-' && s[i] != '_' :
			   !strchr("0123456789abcdef", s[i]) || !s[i])
			return false;
	}
	return true;
}

/*
 * "pod<UID>" (cgroupfs) or "kubepods[-QOS]-pod<UID>.slice" (systemd):
 * one component of LEN bytes at START.  Its UID, or NULL.
 */
static const char *pod_component_uid(const char *start, size_t len)
{
	const char *p;
	size_t n = len;

	if (n > 6 && !memcmp(start + n - 6, ".slice", 6))
		n -= 6;
	if (n < 3 + POD_UID_LEN)
		return NULL;
	p = start + n - POD_UID_LEN - 3;
	if (memcmp(p, "pod", 3) || !uid_at(p + 3, POD_UID_LEN))
		return NULL;
	if (p != start && (memcmp(start, "kubepods", 8) || p[-1] != '-'))
		return NULL;
	return p + 3;
}

static bool is_pod_component(const char *start, size_t len)
{
	return pod_component_uid(start, len) != NULL;
}

bool pod_uid(const char *cgroup, char uid[POD_UID_LEN + 1])
{
	for (const char *c = cgroup; *c;) {
		const char *start = *c == '/' ? c + 1 : c;
		const char *end = strchrnul(start, '/');
		const char *found = pod_component_uid(start, end - start);

		if (found) {
			memcpy(uid, found, POD_UID_LEN);
			uid[POD_UID_LEN] = '\0';
			for (char *u = uid; *u; u++)
				if (*u == '_')
					*u = '-';
			return true;
		}
		c = end;
	}
	return false;
}

enum container_claim container_of_cgroup(const char *cgroup,
					 char id[CONTAINER_ID_LEN + 1])
{
	if (!container_id(cgroup, id)) {
		id[0] = '\0';
		return CONTAINER_NONE;
	}
	return cgroup_made_by_root(cgroup) ? CONTAINER_VERIFIED :
					     CONTAINER_UNVERIFIED;
}
