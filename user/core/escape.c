// SPDX-License-Identifier: GPL-2.0
/* Escaping bytes from a traced program: see escape.h. */
#include <string.h>

#include "escape.h"
#include "util.h"

/* The valid UTF-8 sequence at s, its length and code point; 0 if none. */
static size_t utf8_decode(const unsigned char *s, size_t left,
			  unsigned int *cp)
{
	size_t n, i;

	if (s[0] < 0x80) {
		*cp = s[0];
		return 1;
	}
	if ((s[0] & 0xe0) == 0xc0) {
		n = 2;
		*cp = s[0] & 0x1f;
	} else if ((s[0] & 0xf0) == 0xe0) {
		n = 3;
		*cp = s[0] & 0x0f;
	} else if ((s[0] & 0xf8) == 0xf0) {
		n = 4;
		*cp = s[0] & 0x07;
	} else {
		return 0;
	}
	if (n > left)
		return 0;
	for (i = 1; i < n; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		*cp = *cp << 6 | (s[i] & 0x3f);
	}
	/* Overlong forms, surrogates and code points past U+10FFFF. */
	if ((n == 2 && *cp < 0x80) || (n == 3 && *cp < 0x800) ||
	    (n == 4 && *cp < 0x10000) || *cp > 0x10ffff ||
	    (*cp >= 0xd800 && *cp <= 0xdfff))
		return 0;
	return n;
}

/*
 * Characters that are valid but move or hide text on a screen: C1
 * controls (0x9b is a CSI to some terminals), zero-width and direction
 * marks, line separators, bidirectional overrides and isolates.
 */
static bool invisible(unsigned int cp)
{
	return cp < 0xa0 || cp == 0x061c || (cp >= 0x200b && cp <= 0x200f) ||
	       (cp >= 0x2028 && cp <= 0x202e) ||
	       (cp >= 0x2060 && cp <= 0x206f) || cp == 0xfeff ||
	       (cp >= 0xfff9 && cp <= 0xfffb);
}

size_t escape_next(const char *str, size_t len, enum escape_style style,
		   char piece[5])
{
	static const char hex[] = "0123456789abcdef";
	const unsigned char *s = (const unsigned char *)str;
	unsigned int cp;
	size_t n;

	if (!len) {
		piece[0] = '\0';
		return 0;
	}
	if (s[0] >= 0x20 && s[0] < 0x7f && s[0] != '\\') {
		piece[0] = s[0];
		piece[1] = '\0';
		return 1;
	}
	if (style == ESCAPE_UTF8 && s[0] >= 0x80) {
		n = utf8_decode(s, len, &cp);
		if (n > 1 && !invisible(cp)) {
			memcpy(piece, s, n);
			piece[n] = '\0';
			return n;
		}
	}
	piece[0] = '\\';
	piece[1] = 'x';
	piece[2] = hex[s[0] >> 4];
	piece[3] = hex[s[0] & 15];
	piece[4] = '\0';
	return 1;
}

char *escape_dup(const char *s, enum escape_style style)
{
	size_t len = s ? strlen(s) : 0, i = 0, o = 0;
	char *out = xcalloc(4 * len + 1, 1), piece[5];

	/* No piece is longer than 4 bytes per input byte. */
	while (i < len) {
		i += escape_next(s + i, len - i, style, piece);
		memcpy(out + o, piece, strlen(piece));
		o += strlen(piece);
	}
	out[o] = '\0';
	return out;
}

void escape_print(FILE *f, const char *s, enum escape_style style)
{
	size_t len = s ? strlen(s) : 0, i = 0;
	char piece[5];

	while (i < len) {
		i += escape_next(s + i, len - i, style, piece);
		fputs(piece, f);
	}
}

void escape_print_quoted(FILE *f, const char *s, size_t len)
{
	size_t i = 0;
	char piece[5];

	while (i < len) {
		i += escape_next(s + i, len - i, ESCAPE_UTF8, piece);
		/* The format's own escape: \" and the backslash of \xNN. */
		if (piece[0] == '"' || piece[0] == '\\')
			fputc('\\', f);
		fputs(piece, f);
	}
}

void escape_bytes(char *dst, size_t size, const char *src, size_t len)
{
	size_t i = 0, o = 0, n;
	char piece[5];

	if (!size)
		return;
	while (i < len && src[i]) {
		i += escape_next(src + i, len - i, ESCAPE_TEXT, piece);
		n = strlen(piece);
		/* Whole pieces only: a cut "\xN" would read as another byte. */
		if (o + n >= size)
			break;
		memcpy(dst + o, piece, n);
		o += n;
	}
	dst[o] = '\0';
}
