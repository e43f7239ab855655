/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The one way bytes from a traced program or its files (comm, paths, exe,
 * environment, command line, symbol and library file names) reach any
 * report: text, JSON, OpenMetrics, intervals, top, doctor.
 *
 * The escaped form holds no control character, no terminal escape and no
 * line break, and it is reversible: "\xNN" stands for the byte NN and no
 * other backslash is ever written (a backslash itself is "\x5c").  So two
 * different inputs never give the same output: an invalid byte 0xe9 is
 * "\xe9", the character é stays é (ESCAPE_UTF8) or is "\xc3\xa9"
 * (ESCAPE_TEXT).  Nothing is ever cut.
 */
#ifndef CLOCKTRACE_ESCAPE_H
#define CLOCKTRACE_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

enum escape_style {
	ESCAPE_TEXT,	/* for a terminal: printable ASCII, the rest \xNN */
	ESCAPE_UTF8,	/* JSON, OpenMetrics: printable UTF-8 kept as is */
};

/*
 * The next piece of the escaped form of s[0..len): a kept character (1 to
 * 4 bytes) or "\xNN" for one byte, NUL-terminated into piece.  Returns how
 * many input bytes it stands for (at least 1 when len > 0).
 */
size_t escape_next(const char *s, size_t len, enum escape_style style,
		   char piece[5]);

/* The escaped form of the NUL-terminated s (NULL: ""), malloc'd. */
char *escape_dup(const char *s, enum escape_style style);

/* The escaped form of the NUL-terminated s, written to f. */
void escape_print(FILE *f, const char *s, enum escape_style style);

/*
 * The ESCAPE_UTF8 form of s[0..len) inside a quoted string of JSON or
 * OpenMetrics: a backslash before '"' and before the one of each \xNN.
 */
void escape_print_quoted(FILE *f, const char *s, size_t len);

#endif /* CLOCKTRACE_ESCAPE_H */
