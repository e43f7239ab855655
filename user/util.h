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
void warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);
/* Seconds as a decimal ("0.5", "10"), strictly positive and at most max. */
int parse_seconds(const char *s, double max, double *out);

uint64_t now_ns(void);		/* CLOCK_MONOTONIC, the base of bpf_ktime_get_ns */
uint64_t realtime_ns(void);

/* 1234567 -> "1,234,567" into buf; returns buf. */
char *fmt_count(char *buf, size_t size, uint64_t n);
/* A duration in the unit that reads best: "812 ns", "3.4 us", "1.20 s". */
char *fmt_duration(char *buf, size_t size, double ns);

/*
 * Bytes from a traced program (comm, paths, environ) made safe to print:
 * printable ASCII stays, everything else becomes \xNN.  Always terminates.
 */
void escape_bytes(char *dst, size_t size, const char *src, size_t len);

/*
 * -o FILE for every command: never follows a symbolic link at FILE, and
 * under sudo the file belongs to the user who asked.  dflt when path is
 * NULL.  Returns 0 or EXIT_TOOL_FAILURE after one line on stderr.
 */
int open_report(const char *path, FILE **out, FILE *dflt);

void *xcalloc(size_t n, size_t size);
void *xrealloc(void *p, size_t n, size_t size);
char *xstrdup(const char *s);
/* asprintf that exits on allocation failure, as the x* above do. */
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif /* CLOCKTRACE_UTIL_H */
