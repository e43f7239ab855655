/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --html FILE: the report as one self-contained page (inline CSS and SVG,
 * no script, a Content-Security-Policy that forbids every request).
 */
#ifndef CLOCKTRACE_REPORT_HTML_H
#define CLOCKTRACE_REPORT_HTML_H

#include <stdio.h>

#include "compare.h"
#include "findings.h"
#include "model.h"
#include "timeline.h"

/* Paths and names longer than this are shortened, whole in a title. */
#define HTML_PATH_MAX	80

/* cmp (run --compare) and tl (-i) may be NULL. */
void report_html(FILE *f, const struct model *m, const struct findings *fs,
		 const struct compare *cmp, const struct timeline *tl);

/* Sections in report_html_extra.c. */
void html_compare_section(FILE *f, const struct compare *c);
void html_timeline_section(FILE *f, const struct timeline *tl);
void html_libc_section(FILE *f, const struct model *m);
void html_lang_section(FILE *f, const struct model *m);

#endif /* CLOCKTRACE_REPORT_HTML_H */
