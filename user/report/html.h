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

/*
 * A path or name that can be long: written whole up to max bytes, else as
 * its head, "\u2026" and its tail, the whole of it in a title attribute.
 */
void html_long_text(FILE *f, const char *s, size_t max);

/*
 * The one unit every value of a figure or table column is written in, so
 * that no column mixes "ms" with "us".
 */
struct html_unit {
	const char *name;		/* "ns", "us", "ms", "s" */
	double ns;			/* nanoseconds in one */
};

/*
 * The unit ns reads best in (fmt_duration's choice): of the biggest value
 * for a table's figures, of the smallest for a log-scale histogram's, so
 * that every bucket's bound is a whole number.
 */
struct html_unit html_unit_of(uint64_t ns);
/* ns in unit u, without the unit's name: "551.0", "0.31". */
char *html_fmt_in(char *buf, size_t size, uint64_t ns, struct html_unit u);
/* The same as a whole number with thousands separators: "4,096". */
char *html_fmt_whole_in(char *buf, size_t size, uint64_t ns,
			struct html_unit u);

struct html_bar {
	const char *label;		/* escaped when written */
	uint64_t value;
	const char *cls;		/* a CSS class: the bar's colour */
	const char *text;		/* the value as written; NULL: the count */
};

/* Horizontal bars with their values written out; id names the figure. */
void html_bar_chart(FILE *f, const char *id, const char *title,
		    const char *desc, const struct html_bar *bars, size_t n,
		    const char *unit);
/* The unit a histogram's bucket bounds are written in (html_unit_of). */
struct html_unit html_hist_unit(const __u64 *slots);
/* A latency histogram of log2 nanosecond slots, as columns. */
void html_histogram(FILE *f, const char *id, const char *title,
		    const char *kind, const __u64 *slots);
/* A small inline bar in a table cell; the number beside it is its text. */
void html_cell_bar(FILE *f, uint64_t value, uint64_t max, const char *cls);

#endif /* CLOCKTRACE_HTML_H */
