// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: bpf/tzpath.h, the very code the BPF program runs, on buffers
 * of TZ_PATH_LEN bytes as the kernel side has them (bpf_probe_read_user_str
 * NUL-terminates within the buffer).  Each answer is compared with a plain
 * string-function statement of the rule.
 */
#include <linux/types.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tzpath.h"

/* "dir" itself or anything below it, never a sibling like "dir-extra". */
static int ref_under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	return !strncmp(path, dir, n) && (path[n] == '\0' || path[n] == '/' ||
					  dir[n - 1] == '/');
}

static int ref_builtin(const char *path)
{
	return !strcmp(path, "/etc/localtime") ||
	       !strcmp(path, "/etc/timezone") ||
	       ref_under(path, "/usr/share/zoneinfo") ||
	       ref_under(path, "/usr/lib/zoneinfo") ||
	       ref_under(path, "/usr/share/lib/zoneinfo");
}

static int ref_user(const char *path, const struct tz_user_path *u)
{
	if (!u->len || u->len >= TZ_PATH_LEN)
		return 0;
	if (u->exact)
		return !strcmp(path, u->path);
	return ref_under(path, u->path);
}

/* What bpf_probe_read_user_str into a zeroed key leaves: zeros after the
 * first NUL. */
static void zero_after_nul(char *buf, size_t size)
{
	size_t n = strnlen(buf, size);

	memset(buf + n, 0, size - n);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* Heap buffers of exactly TZ_PATH_LEN: ASan flags any overread. */
	char *path = calloc(1, TZ_PATH_LEN);
	struct tz_user_path *u = calloc(1, sizeof(*u));
	size_t n;

	if (size < 2)
		goto out;
	data += 2;
	size -= 2;
	n = size < TZ_PATH_LEN - 1 ? size : TZ_PATH_LEN - 1;
	memcpy(path, data, n);
	zero_after_nul(path, TZ_PATH_LEN);
	/* The rest of the input, if any, is the user path; else the same. */
	if (size > n)
		memcpy(u->path, data + n, size - n < TZ_PATH_LEN - 1 ?
		       size - n : TZ_PATH_LEN - 1);
	else
		memcpy(u->path, data, n);
	zero_after_nul(u->path, TZ_PATH_LEN);
	/* As tracer_add_tz_path sets it: strlen, or a bad length (ignored). */
	u->len = data[-2] >= TZ_PATH_LEN ? data[-2] : strlen(u->path);
	u->exact = data[-1] & 1;

	if (!!tz_builtin_match(path) != ref_builtin(path))
		abort();
	if (!!tz_user_match(path, u) != ref_user(path, u))
		abort();
out:
	free(path);
	free(u);
	return 0;
}
