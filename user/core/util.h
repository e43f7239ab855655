/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_UTIL_H
#define CLOCKTRACE_UTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Exit statuses of clocktrace itself (run passes PROG's status through). */
#define EXIT_TOOL_FAILURE	125	/* usage, permission, no BTF, bad pid */
#define EXIT_CANNOT_EXEC	126
#define EXIT_NOT_FOUND		127

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* One line on stderr, prefixed with the program's name. */
void ct_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * Both return 0, -EINVAL (not a plain decimal number), -ERANGE (above max)
 * or -EDOM (below min; for seconds: below a microsecond).
 */
int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds as a plain decimal ("0.5", "10"): no sign, exponent or hex. */
int parse_seconds(const char *s, double max, double *out);

uint64_t now_ns(void);		/* CLOCK_MONOTONIC, the base of bpf_ktime_get_ns */
uint64_t realtime_ns(void);

/* 1234567 -> "1,234,567" into buf; returns buf. */
char *fmt_count(char *buf, size_t size, uint64_t n);
/* A duration in the unit that reads best: "812 ns", "3.4 us", "1.20 s". */
char *fmt_duration(char *buf, size_t size, double ns);

/*
 * Bytes from a traced program (comm, paths, environ) made safe to print,
 * ESCAPE_TEXT of escape.h into a fixed buffer: whole pieces only, always
 * terminated.  Where a cut could merge two names, use escape_dup().
 */
void escape_bytes(char *dst, size_t size, const char *src, size_t len);
/* A command-line argument echoed in a message, escaped likewise; buf. */
char *escape_arg(char *buf, size_t size, const char *arg);

/*
 * A terminal that understands the cursor and erase codes we redraw with:
 * not a file, not TERM=dumb (Emacs' shell), not TERM unset.
 */
bool term_can_redraw(int fd);

/*
 * Opens for reading a file whose path a traced program controls: only a
 * regular file, never blocking (a FIFO) and never opening a device.
 * A descriptor, or -1 with errno (EINVAL: not a regular file).
 */
int open_regular(const char *path);

void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* What follows PATH's last slash (all of PATH without one). */
const char *path_base_name(const char *path);
/* asprintf that exits on allocation failure, as the x* above do. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CLOCKTRACE_UTIL_H */
