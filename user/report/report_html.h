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

/* The flame graphs (report_html_flame.c): geometry and caps. */
#define FLAME_W		1000	/* px, the whole weight */
#define FLAME_ROW_PX	17
#define FLAME_CHAR_PX	6.7	/* of 11px DejaVu Sans Mono */
#define FLAME_MIN_PX	0.3	/* narrower frames are not drawn */
#define FLAME_RECTS_MAX	600	/* frames drawn per graph at most */

struct stack_table;

/*
 * The flame graph of one class of stack weights (STACK_CLASS_*) with at
 * most max_rects frames, and a note of what was not drawn.
 */
void html_flame_graph(FILE *f, const struct stack_table *t, uint32_t cls,
		      size_t max_rects);
/* --stacks: a flame graph per class that has any weight. */
void html_stacks_section(FILE *f, const struct model *m);

/* Sections in report_html_extra.c. */
void html_compare_section(FILE *f, const struct compare *c);
void html_timeline_section(FILE *f, const struct timeline *tl);
void html_libc_section(FILE *f, const struct model *m);
void html_lang_section(FILE *f, const struct model *m);

#endif /* CLOCKTRACE_REPORT_HTML_H */
