/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every workload needs: bounded number and clock-name parsing, a
 * timestamp that never enters the kernel here, and whole writes (so the
 * WORKLOAD lines of concurrent processes never mix).  Header-only: each
 * workload is one .c file that the tests build on their own.
 */
#ifndef CLOCKTRACE_WORKLOAD_H
#define CLOCKTRACE_WORKLOAD_H

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/syscall.h>

static inline bool parse_ulong(const char *s, unsigned long *out)
{
	char *end;

	if (!*s || *s == '-' || *s == '+')
		return false;
	errno = 0;
	*out = strtoul(s, &end, 10);
	return !errno && !*end;
}

static inline unsigned long long now_ns(void)
{
	struct timespec ts;

	/* vDSO on this machine: no syscall, so it does not disturb the counts. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

static inline void write_all(int fd, const char *buf, size_t len)
{
	ssize_t n;

	while (len) {
		n = write(fd, buf, len);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return;
		buf += n;
		len -= n;
	}
}

static const struct {
	const char *name;
	clockid_t id;
} clock_names[] = {
	{ "REALTIME",		CLOCK_REALTIME },
	{ "MONOTONIC",		CLOCK_MONOTONIC },
	{ "PROCESS_CPUTIME_ID",	CLOCK_PROCESS_CPUTIME_ID },
	{ "THREAD_CPUTIME_ID",	CLOCK_THREAD_CPUTIME_ID },
	{ "MONOTONIC_RAW",	CLOCK_MONOTONIC_RAW },
	{ "REALTIME_COARSE",	CLOCK_REALTIME_COARSE },
	{ "MONOTONIC_COARSE",	CLOCK_MONOTONIC_COARSE },
	{ "BOOTTIME",		CLOCK_BOOTTIME },
	{ "REALTIME_ALARM",	CLOCK_REALTIME_ALARM },
	{ "BOOTTIME_ALARM",	CLOCK_BOOTTIME_ALARM },
	{ "TAI",		CLOCK_TAI },
};

/* Accepts CLOCK_MONOTONIC, MONOTONIC, monotonic or a (possibly negative) number. */
static inline bool parse_clock(const char *s, clockid_t *out)
{
	char *end;
	long v;
	size_t i;

	errno = 0;
	v = strtol(s, &end, 0);
	if (*s && !*end && !errno && v >= INT_MIN && v <= INT_MAX) {
		*out = (clockid_t)v;
		return true;
	}
	if (!strncasecmp(s, "CLOCK_", 6))
		s += 6;
	for (i = 0; i < sizeof(clock_names) / sizeof(clock_names[0]); i++) {
		if (!strcasecmp(s, clock_names[i].name)) {
			*out = clock_names[i].id;
			return true;
		}
	}
	return false;
}

/* -s CLOCK:COUNT: COUNT forced clock_gettime syscalls of CLOCK. */
struct clock_spec {
	clockid_t id;
	unsigned long count;
	const char *text;	/* as given, to pass on through exec */
};

static inline bool parse_clock_spec(const char *arg, struct clock_spec *spec)
{
	const char *colon = strrchr(arg, ':');
	char name[64];
	size_t len;

	if (!colon || (len = colon - arg) >= sizeof(name))
		return false;
	memcpy(name, arg, len);
	name[len] = '\0';
	spec->text = arg;
	return parse_clock(name, &spec->id) && parse_ulong(colon + 1, &spec->count);
}

#define MAX_CLOCK_SPECS	32

/* One more -s CLOCK:COUNT into specs[*nr]; false when bad or too many. */
static inline bool add_clock_spec(const char *arg, struct clock_spec *specs,
				  int *nr)
{
	if (*nr == MAX_CLOCK_SPECS || !parse_clock_spec(arg, &specs[*nr]))
		return false;
	(*nr)++;
	return true;
}

/* Raw syscalls, so that the vDSO cannot absorb them; returns how many. */
static inline unsigned long run_clock_specs(const struct clock_spec *specs,
					    int n)
{
	struct timespec ts;
	unsigned long i, total = 0;

	for (int s = 0; s < n; s++) {
		for (i = 0; i < specs[s].count; i++)
			syscall(SYS_clock_gettime, specs[s].id, &ts);
		total += specs[s].count;
	}
	return total;
}

/* " clk_<id>=<count>" per spec, for the WORKLOAD line; returns its length. */
static inline int format_clock_specs(char *buf, size_t size,
				     const struct clock_spec *specs, int n)
{
	int len = 0;

	for (int s = 0; s < n && (size_t)len < size; s++)
		len += snprintf(buf + len, size - len, " clk_%d=%lu",
				specs[s].id, specs[s].count);
	return len;
}

#endif /* CLOCKTRACE_WORKLOAD_H */
