/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Pieces of the HTML report: escaped text and SVG figures, each figure with
 * a title and a description for screen readers.  No script, no request.
 */
#ifndef CLOCKTRACE_HTML_H
#define CLOCKTRACE_HTML_H

#include <stdint.h>
#include <stdio.h>

#include <linux/types.h>

#include "clocktrace.h"

/*
 * Any bytes, a traced program's included, as HTML text or attribute value:
 * printable ASCII and well-formed UTF-8 of printable characters stay, any
 * other byte becomes \xNN (as in the text report), & < > " ' entities.
 */
void html_text(FILE *f, const char *s);
void html_textn(FILE *f, const char *s, size_t len);
/* printf, then html_text of the result. */
void html_printf(FILE *f, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

struct html_bar {
	const char *label;		/* escaped when written */
	uint64_t value;
	const char *cls;		/* a CSS class: the bar's colour */
};

/* Horizontal bars with their values written out; id names the figure. */
void html_bar_chart(FILE *f, const char *id, const char *title,
		    const char *desc, const struct html_bar *bars, size_t n,
		    const char *unit);
/* A latency histogram of log2 nanosecond slots, as columns. */
void html_histogram(FILE *f, const char *id, const char *title,
		    const char *kind, const __u64 *slots);
/* A small inline bar in a table cell; the number beside it is its text. */
void html_cell_bar(FILE *f, uint64_t value, uint64_t max, const char *cls);

#endif /* CLOCKTRACE_HTML_H */
