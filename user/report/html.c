// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "hist.h"
#include "html.h"
#include "util.h"

#define CHART_W		640
#define LABEL_W		170
#define ROW_H		24
#define HIST_H		160

/* One piece of escape.h's form, with HTML's five characters as entities. */
static void html_piece(FILE *f, const char *piece)
{
	switch (piece[1] ? 0 : piece[0]) {
	case '&':
		fputs("&amp;", f);
		break;
	case '<':
		fputs("&lt;", f);
		break;
	case '>':
		fputs("&gt;", f);
		break;
	case '"':
		fputs("&quot;", f);
		break;
	case '\'':
		fputs("&#39;", f);
		break;
	default:
		fputs(piece, f);
	}
}

/* Through escape.h, the one escaping of what a traced program chose. */
void html_textn(FILE *f, const char *s, size_t len)
{
	char piece[5];

	len = strnlen(s, len);
	while (len) {
		size_t n = escape_next(s, len, ESCAPE_UTF8, piece);

		html_piece(f, piece);
		s += n;
		len -= n;
	}
}

void html_text(FILE *f, const char *s)
{
	html_textn(f, s ? s : "", s ? strlen(s) : 0);
}

/* Where to cut s near at without splitting a UTF-8 sequence. */
static size_t utf8_boundary(const char *s, size_t at)
{
	while (at > 0 && ((unsigned char)s[at] & 0xc0) == 0x80)
		at--;
	return at;
}

void html_long_text(FILE *f, const char *s, size_t max)
{
	size_t len = s ? strlen(s) : 0, head, tail;

	if (len <= max || max < 8) {
		html_text(f, s);
		return;
	}
	/* The tail names the file, the head says where the tree starts. */
	head = utf8_boundary(s, max / 4);
	tail = utf8_boundary(s, len - (max - max / 4 - 1));
	fputs("<span class=\"cut\" title=\"", f);
	html_text(f, s);
	fputs("\">", f);
	html_textn(f, s, head);
	fputs("\u2026", f);
	html_text(f, s + tail);
	fputs("</span>", f);
}

static const struct html_unit units[] = {
	{ "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 },
};

struct html_unit html_unit_of(uint64_t ns)
{
	size_t i = sizeof(units) / sizeof(units[0]) - 1;

	while (i > 0 && ns < units[i].ns)
		i--;
	return units[i];
}

char *html_fmt_in(char *buf, size_t size, uint64_t ns, struct html_unit u)
{
	double v = ns / u.ns;
	int decimals = u.ns == 1 ? 0 : u.ns == 1e9 ? 2 : 1;

	/* Two significant digits below one unit: 0.31 ms, 0.0042 s. */
	for (double t = v; ns && t < 1 && decimals < 6; t *= 10)
		decimals++;
	snprintf(buf, size, "%.*f", decimals, v);
	return buf;
}

char *html_fmt_whole_in(char *buf, size_t size, uint64_t ns,
			struct html_unit u)
{
	return fmt_count(buf, size, (uint64_t)(ns / u.ns + 0.5));
}

static void figure_open(FILE *f, const char *id, const char *title,
			const char *desc, int w, int h, const char *cls)
{
	fprintf(f, "<svg class=\"%s\" id=\"%s\" role=\"img\" viewBox=\"0 0 %d %d\" "
		"width=\"%d\" height=\"%d\" aria-labelledby=\"%s-t %s-d\">\n"
		"<title id=\"%s-t\">", cls, id, w, h, w, h, id, id, id);
	html_text(f, title);
	fprintf(f, "</title>\n<desc id=\"%s-d\">", id);
	html_text(f, desc);
	fputs("</desc>\n", f);
}

void html_bar_chart(FILE *f, const char *id, const char *title,
		    const char *desc, const struct html_bar *bars, size_t n,
		    const char *unit)
{
	uint64_t max = 1;
	int h = (int)n * ROW_H + 8;

	for (size_t i = 0; i < n; i++)
		if (bars[i].value > max)
			max = bars[i].value;
	figure_open(f, id, title, desc, CHART_W, h, "chart bars");
	for (size_t i = 0; i < n; i++) {
		double w = (double)bars[i].value / max * (CHART_W - LABEL_W - 110);
		int y = (int)i * ROW_H + 4;
		char v[32];

		if (bars[i].text)
			snprintf(v, sizeof(v), "%s", bars[i].text);
		else
			fmt_count(v, sizeof(v), bars[i].value);
		fprintf(f, "<g data-value=\"%llu\"><text x=\"%d\" y=\"%d\" "
			"text-anchor=\"end\">", (unsigned long long)bars[i].value,
			LABEL_W - 6, y + 15);
		html_text(f, bars[i].label);
		fprintf(f, "</text><rect class=\"%s\" x=\"%d\" y=\"%d\" "
			"width=\"%.1f\" height=\"%d\"/><text x=\"%.1f\" y=\"%d\">%s ",
			bars[i].cls, LABEL_W, y + 2, w < 1 && bars[i].value ? 1 : w,
			ROW_H - 6, LABEL_W + w + 6, y + 15, v);
		html_text(f, unit);
		fputs("</text></g>\n", f);
	}
	fputs("</svg>\n", f);
}

struct html_unit html_hist_unit(const __u64 *slots)
{
	for (int i = 0; i < HIST_SLOTS; i++)
		if (slots[i])
			return html_unit_of(hist_slot_lo(i) ? hist_slot_lo(i) : 1);
	return html_unit_of(1);
}

static void bucket_rect(FILE *f, int i, uint64_t count, uint64_t max,
			double x, double colw, struct html_unit u)
{
	double h = (double)count / max * (HIST_H - 20);
	char a[32];

	if (count && h < 2)
		h = 2;
	html_fmt_whole_in(a, sizeof(a), hist_slot_lo(i), u);
	fprintf(f, "<rect class=\"bucket\" data-lo=\"%llu\" data-hi=\"%llu\" "
		"data-count=\"%llu\" x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" "
		"height=\"%.1f\"><title>%s %s and up: %llu</title></rect>\n",
		(unsigned long long)hist_slot_lo(i),
		(unsigned long long)hist_slot_hi(i), (unsigned long long)count,
		x + 1, HIST_H - h, colw - 2, h, a, u.name,
		(unsigned long long)count);
}

/* Bounds in one unit, the smallest bucket's: whole numbers on the axis. */
void html_histogram(FILE *f, const char *id, const char *title,
		    const char *kind, const __u64 *slots)
{
	struct html_unit u = html_hist_unit(slots);
	int lo = HIST_SLOTS, hi = -1, n;
	uint64_t max = 1;
	char desc[512], a[32], b[32];
	double colw;

	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!slots[i])
			continue;
		lo = i < lo ? i : lo;
		hi = i;
		max = slots[i] > max ? slots[i] : max;
	}
	if (hi < 0)
		return;
	n = hi - lo + 1;
	colw = (double)(CHART_W - 90) / n;
	if (colw > 48)
		colw = 48;
	html_fmt_whole_in(a, sizeof(a), hist_slot_lo(lo), u);
	html_fmt_whole_in(b, sizeof(b), hist_slot_hi(hi), u);
	snprintf(desc, sizeof(desc), "%llu calls of %s between %s and %s %s, in "
		 "power-of-two latency buckets; the table below has the counts",
		 (unsigned long long)hist_sum(slots, HIST_SLOTS), kind, a, b,
		 u.name);
	figure_open(f, id, title, desc, CHART_W, HIST_H + 40, "chart hist");
	fprintf(f, "<line class=\"axis\" x1=\"50\" y1=\"%d\" x2=\"%d\" y2=\"%d\"/>\n",
		HIST_H, CHART_W - 10, HIST_H);
	fprintf(f, "<text x=\"46\" y=\"14\" text-anchor=\"end\">%llu</text>\n",
		(unsigned long long)max);
	for (int i = lo; i <= hi; i++) {
		double x = 50 + (i - lo) * colw;

		bucket_rect(f, i, slots[i], max, x, colw, u);
		html_fmt_whole_in(a, sizeof(a), hist_slot_lo(i), u);
		if ((i - lo) % (n > 12 ? 2 : 1) == 0)
			fprintf(f, "<text x=\"%.1f\" y=\"%d\" text-anchor=\"middle\">"
				"%s</text>\n", x + colw / 2, HIST_H + 16, a);
	}
	fprintf(f, "<text class=\"unit\" x=\"%.1f\" y=\"%d\">%s</text>\n</svg>\n",
		50 + n * colw + 4, HIST_H + 16, u.name);
}

void html_cell_bar(FILE *f, uint64_t value, uint64_t max, const char *cls)
{
	double w = max ? (double)value / max * 120 : 0;

	if (value && w < 1)
		w = 1;
	fprintf(f, "<svg class=\"cellbar\" width=\"122\" height=\"10\" "
		"aria-hidden=\"true\"><rect class=\"%s\" x=\"1\" y=\"1\" "
		"width=\"%.1f\" height=\"8\"/></svg>", cls, w);
}
