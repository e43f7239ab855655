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

bool container_id(const char *cgroup, char id[CONTAINER_ID_LEN + 1])
{
	static const char *const prefixes[] = {
		"docker-", "cri-containerd-", "crio-", "libpod-", "docker/",
	};

	/* The innermost match: a container's own cgroups nest below it. */
	for (const char *c = cgroup + strlen(cgroup); c-- > cgroup;) {
		for (size_t i = 0; i < ARRAY_SIZE(prefixes); i++) {
			size_t n = strlen(prefixes[i]);

			if (c - cgroup + 1 < (ptrdiff_t)n ||
			    strncmp(c - n + 1, prefixes[i], n))
				continue;
			if (c - n + 1 > cgroup && c[-(ptrdiff_t)n] != '/')
				continue;
			if (strlen(c + 1) < CONTAINER_ID_LEN || !hex64_at(c + 1))
				continue;
			if (c[1 + CONTAINER_ID_LEN] && c[1 + CONTAINER_ID_LEN] != '.' &&
			    c[1 + CONTAINER_ID_LEN] != '/')
				continue;
			memcpy(id, c + 1, CONTAINER_ID_LEN);
			id[CONTAINER_ID_LEN] = '\0';
			return true;
		}
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
