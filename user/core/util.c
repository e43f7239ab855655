// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/stat.h>

#include "util.h"

void ct_warn(const char *fmt, ...)
{
	va_list ap;

	fputs("clocktrace: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

/*
 * Plain decimal digits only: strtoull alone would also take leading blanks,
 * a sign, and (with base 0) hex, which a user never meant.
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	if (!s || *s < '0' || *s > '9')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end)
		return -EINVAL;
	if (errno == ERANGE || v > max)
		return -ERANGE;
	if (v < min)
		return -EDOM;
	*out = v;
	return 0;
}

/* DIGITS[.DIGITS]: no sign, blank, exponent, hex, inf or nan. */
static bool is_plain_decimal(const char *s)
{
	size_t int_digits = strspn(s, "0123456789"), frac_digits = 0;

	if (s[int_digits] == '.')
		frac_digits = strspn(s + int_digits + 1, "0123456789");
	if (!int_digits && !frac_digits)
		return false;
	s += int_digits;
	if (*s == '.')
		s += 1 + frac_digits;
	return !*s;
}

int parse_seconds(const char *s, double max, double *out)
{
	double v;

	if (!s || !is_plain_decimal(s))
		return -EINVAL;
	v = strtod(s, NULL);
	if (v > max)
		return -ERANGE;
	/* Below a microsecond no timer of ours can tell the difference. */
	if (v < 1e-6)
		return -EDOM;
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

int open_regular(const char *path)
{
	char self[64];
	struct stat st;
	int pfd, fd;

	/*
	 * An O_PATH descriptor opens nothing: a FIFO cannot block us and a
	 * device (a symbolic link to /dev/watchdog) is never opened.  Only a
	 * regular file is then opened for reading, through that same inode.
	 */
	pfd = open(path, O_PATH | O_CLOEXEC);
	if (pfd < 0)
		return -1;
	if (fstat(pfd, &st) || !S_ISREG(st.st_mode)) {
		close(pfd);
		errno = EINVAL;
		return -1;
	}
	snprintf(self, sizeof(self), "/proc/self/fd/%d", pfd);
	fd = open(self, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	close(pfd);
	return fd;
}

static void *check_alloc(void *p)
{
	if (!p) {
		ct_warn("out of memory");
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

char *escape_arg(char *buf, size_t size, const char *arg)
{
	escape_bytes(buf, size, arg, strlen(arg));
	return buf;
}

bool term_can_redraw(int fd)
{
	const char *term = getenv("TERM");

	return isatty(fd) && term && *term && strcmp(term, "dumb");
}

const char *path_base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}
