// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "util.h"

void warn(const char *fmt, ...)
{
	va_list ap;

	fputs("clocktrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || !*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v < min || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

int parse_seconds(const char *s, double max, double *out)
{
	char *end;
	double v;

	if (!s || !*s)
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (errno || *end || !isfinite(v) || v <= 0 || v > max)
		return -EINVAL;
	*out = v;
	return 0;
}

static uint64_t clock_ns(clockid_t clk)
{
	struct timespec ts;

	clock_gettime(clk, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}

uint64_t realtime_ns(void)
{
	return clock_ns(CLOCK_REALTIME);
}

char *fmt_count(char *buf, size_t size, uint64_t n)
{
	char digits[32];
	size_t len, i, o = 0;

	len = snprintf(digits, sizeof(digits), "%llu", (unsigned long long)n);
	for (i = 0; i < len && o + 1 < size; i++) {
		if (i && (len - i) % 3 == 0 && o + 2 < size)
			buf[o++] = ',';
		buf[o++] = digits[i];
	}
	buf[o] = '\0';
	return buf;
}

char *fmt_duration(char *buf, size_t size, double ns)
{
	if (ns < 1e3)
		snprintf(buf, size, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, size, "%.1f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, size, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, size, "%.2f s", ns / 1e9);
	return buf;
}

void escape_bytes(char *dst, size_t size, const char *src, size_t len)
{
	static const char hex[] = "0123456789abcdef";
	size_t i, o = 0;

	if (!size)
		return;
	for (i = 0; i < len && src[i]; i++) {
		unsigned char c = src[i];

		if (c >= 0x20 && c < 0x7f && c != '\\') {
			if (o + 1 >= size)
				break;
			dst[o++] = c;
		} else {
			if (o + 4 >= size)
				break;
			dst[o++] = '\\';
			dst[o++] = 'x';
			dst[o++] = hex[c >> 4];
			dst[o++] = hex[c & 15];
		}
	}
	dst[o] = '\0';
}

static void *check_alloc(void *p)
{
	if (!p) {
		warn("out of memory");
		exit(EXIT_TOOL_FAILURE);
	}
	return p;
}

void *xcalloc(size_t n, size_t size)
{
	return check_alloc(calloc(n ? n : 1, size ? size : 1));
}

void *xrealloc(void *p, size_t n, size_t size)
{
	if (size && n > SIZE_MAX / size)
		return check_alloc(NULL);
	size_t bytes = n * size;

	return check_alloc(realloc(p, bytes ? bytes : 1));
}

char *xstrdup(const char *s)
{
	return check_alloc(strdup(s ? s : ""));
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	return check_alloc(n < 0 ? NULL : s);
}

int open_report(const char *path, FILE **out, FILE *dflt)
{
	const char *sudo_uid = getenv("SUDO_UID"), *sudo_gid = getenv("SUDO_GID");
	const int flags = O_WRONLY | O_NOFOLLOW | O_CLOEXEC;
	bool created = true;
	int fd;

	if (!path) {
		*out = dflt;
		return 0;
	}
	/*
	 * Never follow a link planted where root writes the report, and know
	 * whether the file is new: only a new one may change owner.
	 */
	fd = open(path, flags | O_CREAT | O_EXCL, 0644);
	if (fd < 0 && errno == EEXIST) {
		created = false;
		fd = open(path, flags | O_TRUNC);
	}
	if (fd < 0) {
		warn("cannot write %s: %s", path,
		     errno == ELOOP ? "it is a symbolic link (not followed)" :
		     strerror(errno));
		return EXIT_TOOL_FAILURE;
	}
	/*
	 * Under sudo, a report we created belongs to the user who asked for
	 * it; an existing file keeps its owner (it may be root's own).
	 */
	if (created && sudo_uid && sudo_gid && geteuid() == 0) {
		uint64_t uid, gid;

		if (!parse_u64(sudo_uid, 0, UINT32_MAX, &uid) &&
		    !parse_u64(sudo_gid, 0, UINT32_MAX, &gid) &&
		    fchown(fd, uid, gid))
			warn("cannot give %s to uid %s: %s", path, sudo_uid,
			     strerror(errno));
	}
	*out = fdopen(fd, "w");
	return *out ? 0 : EXIT_TOOL_FAILURE;
}
