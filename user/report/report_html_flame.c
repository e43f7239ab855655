// SPDX-License-Identifier: GPL-2.0
/*
 * --stacks in the HTML report: a flame graph of each kind of kernel event,
 * inline SVG with no script.  One graph for tz accesses and one for clock
 * syscalls: they are different costs, fixed by different findings, and a
 * width that added a stat of /etc/localtime to a clock_gettime would
 * measure neither.  Outermost at the bottom (a flame, not an icicle), the
 * stacks merged by frame path as --format folded merges them: all, then
 * the command, main, ... and the kernel event on top.  Each rect's width
 * is its weight, data-count the exact number; what is not drawn is said.
 */
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "html.h"
#include "report_html.h"
#include "stack.h"
#include "util.h"

enum flame_kind { FLAME_ROOT, FLAME_COMM, FLAME_FRAME, FLAME_EVENT };

struct flame_node {
	char *label;			/* the merging key: folded's label */
	const struct stack_frame *frame;	/* the first merged; FLAME_FRAME */
	enum flame_kind kind;
	bool vary;			/* merged frames of different pcs */
	uint64_t count;
	size_t depth;
	size_t parent, first_child, next_sibling;	/* SIZE_MAX: none */
	double x;			/* in pixels, from the left */
	bool drawn;
};

struct flame {
	struct flame_node *v;
	size_t n, cap;
	size_t depth;			/* of the deepest node */
};

static size_t node_add(struct flame *g, size_t parent, enum flame_kind kind,
		       const char *label)
{
	struct flame_node *p = parent == SIZE_MAX ? NULL : &g->v[parent];
	struct flame_node *c;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 64;
		g->v = xrealloc(g->v, g->cap, sizeof(*g->v));
		p = parent == SIZE_MAX ? NULL : &g->v[parent];
	}
	c = &g->v[g->n];
	*c = (struct flame_node){
		.label = xstrdup(label), .kind = kind,
		.depth = p ? p->depth + 1 : 0, .parent = parent,
		.first_child = SIZE_MAX, .next_sibling = SIZE_MAX,
	};
	if (p) {
		c->next_sibling = p->first_child;
		p->first_child = g->n;
	}
	if (c->depth > g->depth)
		g->depth = c->depth;
	return g->n++;
}

/* parent's child of that label, made if new; count added to it. */
static size_t node_step(struct flame *g, size_t parent, enum flame_kind kind,
			const char *label, uint64_t count)
{
	size_t at;

	for (at = g->v[parent].first_child; at != SIZE_MAX;
	     at = g->v[at].next_sibling)
		if (g->v[at].kind == kind && !strcmp(g->v[at].label, label))
			break;
	if (at == SIZE_MAX)
		at = node_add(g, parent, kind, label);
	g->v[at].count += count;
	return at;
}

static void frame_step(struct flame *g, size_t *at, const struct stack_frame *f,
		       uint64_t count)
{
	char *label = stack_frame_label(f, false);
	struct flame_node *n;

	*at = node_step(g, *at, FLAME_FRAME, label, count);
	free(label);
	n = &g->v[*at];
	if (!n->frame)
		n->frame = f;
	else if (n->frame->offset != f->offset ||
		 n->frame->line != f->line || !n->frame->file != !f->file ||
		 (f->file && strcmp(n->frame->file, f->file)))
		n->vary = true;
}

/* A row's path: comm, its frames outermost first, its event. */
static void add_row(struct flame *g, const struct stack_row *r, uint64_t w)
{
	size_t at = 0;

	g->v[0].count += w;
	at = node_step(g, at, FLAME_COMM, r->comm, w);
	for (size_t k = r->nframes; k-- > 0;)
		frame_step(g, &at, &r->frames[k], w);
	/* Under the script frames, if any: the native ones are missing. */
	if (r->not_unwound)
		at = node_step(g, at, FLAME_EVENT, "[not unwound]", w);
	node_step(g, at, FLAME_EVENT, stack_row_event(r), w);
}

static int by_label(const void *a, const void *b)
{
	const struct flame_node *x = *(struct flame_node *const *)a;
	const struct flame_node *y = *(struct flame_node *const *)b;

	return strcmp(x->label, y->label);
}

/*
 * Children side by side from their parent's left edge, in label order as
 * flamegraph.pl lays them: the same stacks draw the same picture.  Nodes
 * come after their parents in v[], so one pass places them all.
 */
static void place(struct flame *g, double px_per_event)
{
	struct flame_node **kids = xcalloc(g->n + 1, sizeof(*kids));

	for (size_t i = 0; i < g->n; i++) {
		double x = g->v[i].x;
		size_t k = 0;

		for (size_t c = g->v[i].first_child; c != SIZE_MAX;
		     c = g->v[c].next_sibling)
			kids[k++] = &g->v[c];
		qsort(kids, k, sizeof(*kids), by_label);
		for (size_t j = 0; j < k; j++) {
			kids[j]->x = x;
			x += kids[j]->count * px_per_event;
		}
	}
	free(kids);
}

static const struct flame *heavy_of;

/* Heaviest first; a parent before its children (never lighter). */
static int heavier(const void *a, const void *b)
{
	const struct flame_node *x = &heavy_of->v[*(const size_t *)a];
	const struct flame_node *y = &heavy_of->v[*(const size_t *)b];

	if (x->count != y->count)
		return x->count > y->count ? -1 : 1;
	if (x->depth != y->depth)
		return x->depth < y->depth ? -1 : 1;
	return *(const size_t *)a < *(const size_t *)b ? -1 : 1;
}

struct flame_left_out {
	size_t frames;			/* rects not drawn */
	uint64_t events;		/* whose stack has an undrawn rect */
};

/* Which rects are drawn: wide enough, under a drawn parent, within max. */
static struct flame_left_out choose(struct flame *g, double px_per_event,
				    size_t max)
{
	size_t *order = xcalloc(g->n + 1, sizeof(*order)), drawn = 0;
	struct flame_left_out out = { 0 };

	for (size_t i = 0; i < g->n; i++)
		order[i] = i;
	heavy_of = g;
	qsort(order, g->n, sizeof(*order), heavier);
	for (size_t i = 0; i < g->n; i++) {
		struct flame_node *n = &g->v[order[i]];
		bool parent_drawn = n->parent == SIZE_MAX ||
				    g->v[n->parent].drawn;

		n->drawn = parent_drawn && drawn < max &&
			   n->count * px_per_event >= FLAME_MIN_PX;
		if (n->drawn) {
			drawn++;
			continue;
		}
		out.frames++;
		if (parent_drawn)
			out.events += n->count;
	}
	free(order);
	return out;
}

/* 32-bit FNV-1a: colours that stay the same from run to run. */
static uint32_t fnv1a(const char *s)
{
	uint32_t h = 2166136261u;

	for (; s && *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

/* The C library and its loader: cool hues; anything else warm. */
static bool system_module(const char *m)
{
	static const char *const libs[] = { "libc.", "libc-", "ld-linux",
					    "ld-musl", "libm.", "libpthread" };

	for (size_t i = 0; i < sizeof(libs) / sizeof(libs[0]); i++)
		if (!strncmp(m, libs[i], strlen(libs[i])))
			return true;
	return false;
}

static void fill_of(const struct flame_node *n, uint32_t cls, char *buf,
		    size_t size)
{
	const struct stack_frame *f = n->frame;
	uint32_t hm, hf;

	if (n->kind == FLAME_EVENT) {
		snprintf(buf, size, "%s", cls == STACK_CLASS_TZ ?
			 "#c2410c" : "#1d4ed8");
		return;
	}
	if (n->kind == FLAME_FRAME && f->lang) {	/* a script's: green */
		snprintf(buf, size, "hsl(%u,50%%,%u%%)",
			 95 + fnv1a(f->file ?: "") % 40,
			 60 + fnv1a(f->function) % 16);
		return;
	}
	if (n->kind != FLAME_FRAME || !f->module) {
		snprintf(buf, size, "hsl(0,0%%,%u%%)", 72 + (unsigned int)(n->depth % 2) * 6);
		return;
	}
	hm = fnv1a(f->module);
	hf = fnv1a(f->function);
	if (system_module(f->module))
		snprintf(buf, size, "hsl(%u,55%%,%u%%)", 190 + hm % 40,
			 62 + hf % 18);
	else
		snprintf(buf, size, "hsl(%u,80%%,%u%%)", hm % 50,
			 58 + hf % 18);
}

static const char *class_words(uint32_t cls)
{
	return cls == STACK_CLASS_TZ ? "tz accesses" : "clock syscalls";
}

/* "function\nfile:line, inlined\nmodule+0x1c\n1,200 tz accesses, 40.0%". */
static void node_title(FILE *f, const struct flame_node *n, uint64_t total,
		       uint32_t cls)
{
	const struct stack_frame *fr = n->frame;
	char count[32];

	fputs("<title>", f);
	if (n->kind == FLAME_ROOT)
		fputs("all", f);
	else if (n->kind == FLAME_COMM)
		fputs("command ", f);
	if (n->kind != FLAME_ROOT)
		html_text(f, fr && fr->function ? fr->function : n->label);
	if (fr && fr->file && n->vary) {
		fputs("\n", f);
		html_text(f, fr->file);
		fputs(", several lines", f);
	} else if (fr && fr->file) {
		fputs("\n", f);
		html_text(f, fr->file);
		fprintf(f, ":%u", fr->line);
	}
	if (fr && fr->inlined)
		fputs(fr->file ? ", inlined" : "\ninlined", f);
	if (fr && fr->module) {
		fputs("\n", f);
		html_text(f, fr->module);
		if (n->vary)
			fputs(", several offsets", f);
		else
			fprintf(f, "+0x%llx", (unsigned long long)fr->offset);
	}
	fprintf(f, "\n%s %s, %.1f%%</title>", fmt_count(count, sizeof(count),
							 n->count),
		class_words(cls), 100.0 * n->count / total);
}

/*
 * The label cut to the rect's width, "tzset_inte..": counted in the
 * characters of its escaped form (escape.h), which html_textn writes.
 */
static void node_text(FILE *f, const struct flame_node *n, double w, double y)
{
	const char *s = n->label;
	size_t fit = w > 6 ? (size_t)((w - 6) / FLAME_CHAR_PX) : 0;
	size_t len = strlen(s), at = 0, cut = 0, shown = 0;
	char piece[5];

	if (fit < 3)
		return;
	while (at < len) {
		size_t step = escape_next(s + at, len - at, ESCAPE_UTF8, piece);
		size_t cols = piece[0] == '\\' ? strlen(piece) : 1;

		if (shown + cols > fit)
			break;
		shown += cols;
		at += step;
		if (shown + 2 <= fit)
			cut = at;
	}
	fprintf(f, "<text x=\"%.3f\" y=\"%.1f\"%s>", n->x + 3, y + 12,
		n->kind == FLAME_EVENT ? " class=\"on-dark\"" : "");
	html_textn(f, s, at < len ? cut : len);
	fputs(at < len ? "..</text>" : "</text>", f);
}

static void draw_node(FILE *f, const struct flame_node *n, double px,
		      uint64_t total, uint32_t cls, double height)
{
	double w = n->count * px, y = height - (n->depth + 1) * FLAME_ROW_PX;
	char fill[40];

	fill_of(n, cls, fill, sizeof(fill));
	fprintf(f, "<g class=\"frame\" data-depth=\"%zu\" data-count=\"%llu\" "
		"data-kind=\"%s\"", n->depth, (unsigned long long)n->count,
		n->kind == FLAME_FRAME ? "frame" : n->kind == FLAME_EVENT ?
		"event" : n->kind == FLAME_COMM ? "comm" : "all");
	if (n->frame && n->frame->function) {
		fputs(" data-function=\"", f);
		html_text(f, n->frame->function);
		fputc('"', f);
	}
	if (n->frame)
		fprintf(f, " data-inlined=\"%s\"",
			n->frame->inlined ? "true" : "false");
	fputc('>', f);
	node_title(f, n, total, cls);
	fprintf(f, "<rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%d\" "
		"fill=\"%s\" rx=\"2\"/>", n->x, y, w, FLAME_ROW_PX - 1, fill);
	node_text(f, n, w, y);
	fputs("</g>\n", f);
}

static void flame_free(struct flame *g)
{
	for (size_t i = 0; i < g->n; i++)
		free(g->v[i].label);
	free(g->v);
}

void html_flame_graph(FILE *f, const struct stack_table *t, uint32_t cls,
		      size_t max_rects)
{
	const char *id = cls == STACK_CLASS_TZ ? "fig-flame-tz" :
						 "fig-flame-clock";
	struct flame g = { 0 };
	struct flame_left_out out;
	double px, height;
	char total[32];

	node_add(&g, SIZE_MAX, FLAME_ROOT, "all");
	for (size_t i = 0; i < t->nrows; i++) {
		const struct stack_row *r = &t->rows[i];
		uint64_t w = cls == STACK_CLASS_TZ ? r->tz_accesses :
						     r->clock_syscalls;

		if (w)
			add_row(&g, r, w);
	}
	if (!g.v[0].count) {
		flame_free(&g);
		return;
	}
	px = (double)FLAME_W / g.v[0].count;
	height = (g.depth + 1) * FLAME_ROW_PX + 2;
	place(&g, px);
	out = choose(&g, px, max_rects);
	fmt_count(total, sizeof(total), g.v[0].count);
	fprintf(f, "<h3>%s</h3>\n<svg class=\"chart flame\" id=\"%s\" role=\"img\" "
		"viewBox=\"0 0 %d %.0f\" width=\"%d\" height=\"%.0f\" "
		"data-total=\"%llu\" aria-labelledby=\"%s-t %s-d\">\n"
		"<title id=\"%s-t\">Flame graph of %s</title>\n<desc id=\"%s-d\">"
		"%s %s by whole user stack, outermost at the bottom, each "
		"frame as wide as its share; hover a frame for its numbers"
		"</desc>\n", cls == STACK_CLASS_TZ ? "Time-zone accesses" :
		"Clock syscalls", id, FLAME_W, height, FLAME_W, height,
		(unsigned long long)g.v[0].count, id, id, id, class_words(cls),
		id, total, class_words(cls));
	for (size_t i = 0; i < g.n; i++)
		if (g.v[i].drawn)
			draw_node(f, &g.v[i], px, g.v[0].count, cls, height);
	fputs("</svg>\n", f);
	fprintf(f, "<p class=\"note\" id=\"%s-left-out\" data-frames=\"%zu\" "
		"data-events=\"%llu\">", id, out.frames,
		(unsigned long long)out.events);
	if (out.frames)
		fprintf(f, "Not drawn: %zu frames narrower than %.1f px or "
			"past the first %zu; %llu of the %s %s have one of "
			"them in their stack.", out.frames, FLAME_MIN_PX,
			max_rects, (unsigned long long)out.events, total,
			class_words(cls));
	else
		fputs("Every frame is drawn.", f);
	fputs("</p>\n", f);
	flame_free(&g);
}

void html_stacks_section(FILE *f, const struct model *m)
{
	const struct stack_table *t = m->stacks;
	uint64_t tz = 0, clk = 0;

	if (!t)
		return;
	for (size_t i = 0; i < t->nrows; i++) {
		tz += t->rows[i].tz_accesses;
		clk += t->rows[i].clock_syscalls;
	}
	fputs("<section id=\"stacks\">\n<h2>Stacks</h2>\n", f);
	if (!tz && !clk)
		fputs("<p>No kernel event had a stack.</p>\n", f);
	if (tz)
		html_flame_graph(f, t, STACK_CLASS_TZ, FLAME_RECTS_MAX);
	if (clk)
		html_flame_graph(f, t, STACK_CLASS_CLOCK, FLAME_RECTS_MAX);
	fputs("</section>\n", f);
}
