// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup and container of a process, from its /proc files.  A traced
 * program controls neither file's format, but may choose its cgroup's
 * name: everything is bounded and a path is taken as bytes.
 */
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "util.h"

char *cgroup_v2_path(const char *buf, size_t len)
{
	const char *line = buf, *end = buf + len;

	while (line < end) {
		const char *eol = memchr(line, '\n', end - line);
		size_t n = (eol ? eol : end) - line;

		if (n > 3 && !memcmp(line, "0::", 3))
			return strndup(line + 3, n - 3);
		line += n + 1;
	}
	return NULL;
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

pid_t status_nspid(const char *buf, size_t len)
{
	char line[256];
	const char *p = memmem(buf, len, "\nNSpid:", 7), *eol;
	long last = 0;
	char *tok, *save = NULL;

	if (!p)
		return 0;
	p += 7;
	eol = memchr(p, '\n', buf + len - p);
	snprintf(line, sizeof(line), "%.*s",
		 (int)((eol ? eol : buf + len) - p), p);
	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		last = strtol(tok, NULL, 10);
	return last > 0 ? (pid_t)last : 0;
}
