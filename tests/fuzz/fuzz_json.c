// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: whatever bytes a comm or a path holds, json_write_string must
 * give a valid JSON string, and the writer a valid document.  A small
 * strict validator (RFC 8259, UTF-8 checked) parses the output and decodes
 * the string; the decoded string must be the input's escaped form
 * (escape.h), hold no control, DEL or C1 character, and give the input
 * back when its \xNN are undone.  escape_bytes (the text report's
 * escaping) must leave printable ASCII only.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "escape.h"
#include "json.h"
#include "util.h"

struct cursor {
	const unsigned char *s;
	size_t len, i;
	int depth;
};

/* One UTF-8 sequence at c->s + c->i: its code point, or -1. */
static long utf8_decode(const unsigned char *s, size_t left, size_t *n)
{
	unsigned long cp;
	size_t k;

	if (s[0] < 0x80) {
		*n = 1;
		return s[0];
	}
	if (s[0] >= 0xc2 && s[0] <= 0xdf) {
		*n = 2;
		cp = s[0] & 0x1f;
	} else if (s[0] >= 0xe0 && s[0] <= 0xef) {
		*n = 3;
		cp = s[0] & 0x0f;
	} else if (s[0] >= 0xf0 && s[0] <= 0xf4) {
		*n = 4;
		cp = s[0] & 0x07;
	} else {
		return -1;
	}
	if (*n > left)
		return -1;
	for (k = 1; k < *n; k++) {
		if ((s[k] & 0xc0) != 0x80)
			return -1;
		cp = cp << 6 | (s[k] & 0x3f);
	}
	if ((*n == 3 && cp < 0x800) || (*n == 4 && cp < 0x10000) ||
	    cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff))
		return -1;
	return (long)cp;
}

static int hexval(unsigned char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

/* Parses a string token; its code points go to cps (if not NULL). */
static bool parse_string(struct cursor *c, long *cps, size_t *ncps)
{
	size_t n = 0;

	if (c->i >= c->len || c->s[c->i] != '"')
		return false;
	c->i++;
	while (c->i < c->len) {
		unsigned char ch = c->s[c->i];
		long cp;
		size_t k;

		if (ch == '"') {
			c->i++;
			if (ncps)
				*ncps = n;
			return true;
		}
		if (ch < 0x20)
			return false;
		if (ch == '\\') {
			if (++c->i >= c->len)
				return false;
			ch = c->s[c->i++];
			switch (ch) {
			case '"': cp = '"'; break;
			case '\\': cp = '\\'; break;
			case '/': cp = '/'; break;
			case 'b': cp = '\b'; break;
			case 'f': cp = '\f'; break;
			case 'n': cp = '\n'; break;
			case 'r': cp = '\r'; break;
			case 't': cp = '\t'; break;
			case 'u':
				if (c->i + 4 > c->len)
					return false;
				cp = 0;
				for (k = 0; k < 4; k++) {
					int h = hexval(c->s[c->i++]);

					if (h < 0)
						return false;
					cp = cp << 4 | h;
				}
				/* The writer never needs surrogates. */
				if (cp >= 0xd800 && cp <= 0xdfff)
					return false;
				break;
			default:
				return false;
			}
		} else {
			cp = utf8_decode(c->s + c->i, c->len - c->i, &k);
			if (cp < 0)
				return false;
			c->i += k;
		}
		if (cps)
			cps[n] = cp;
		n++;
	}
	return false;
}

static void skip_ws(struct cursor *c)
{
	while (c->i < c->len && strchr(" \t\r\n", c->s[c->i]) && c->s[c->i])
		c->i++;
}

static bool parse_value(struct cursor *c);

static bool parse_number(struct cursor *c)
{
	size_t start = c->i;

	if (c->i < c->len && c->s[c->i] == '-')
		c->i++;
	while (c->i < c->len && c->s[c->i] >= '0' && c->s[c->i] <= '9')
		c->i++;
	return c->i > start;
}

static bool parse_container(struct cursor *c, char close, bool object)
{
	bool first = true;

	if (++c->depth > 64)
		return false;
	c->i++;
	for (;;) {
		skip_ws(c);
		if (c->i < c->len && c->s[c->i] == close) {
			c->i++;
			c->depth--;
			return true;
		}
		if (!first) {
			if (c->i >= c->len || c->s[c->i] != ',')
				return false;
			c->i++;
			skip_ws(c);
		}
		first = false;
		if (object) {
			if (!parse_string(c, NULL, NULL))
				return false;
			skip_ws(c);
			if (c->i >= c->len || c->s[c->i] != ':')
				return false;
			c->i++;
			skip_ws(c);
		}
		if (!parse_value(c))
			return false;
	}
}

static bool parse_value(struct cursor *c)
{
	skip_ws(c);
	if (c->i >= c->len)
		return false;
	switch (c->s[c->i]) {
	case '"':
		return parse_string(c, NULL, NULL);
	case '{':
		return parse_container(c, '}', true);
	case '[':
		return parse_container(c, ']', false);
	case 'n':
		if (c->len - c->i >= 4 && !memcmp(c->s + c->i, "null", 4)) {
			c->i += 4;
			return true;
		}
		return false;
	default:
		return parse_number(c);
	}
}

static char *capture(FILE **f, size_t *len, char **buf)
{
	*buf = NULL;
	*f = open_memstream(buf, len);
	return *f ? *buf : NULL;
}

/* The escaped form of data, as escape_next() gives it piece by piece. */
static char *escaped_form(const uint8_t *data, size_t size, size_t *len)
{
	char *out = malloc(4 * size + 1), piece[5];
	size_t i = 0, o = 0;

	while (i < size) {
		i += escape_next((const char *)data + i, size - i, ESCAPE_UTF8,
				 piece);
		memcpy(out + o, piece, strlen(piece));
		o += strlen(piece);
	}
	*len = o;
	return out;
}

/* Undoes \xNN in the decoded code points: the input's bytes again. */
static bool unescapes_to(const long *cps, size_t ncps, const uint8_t *data,
			 size_t size)
{
	size_t k = 0, i = 0;

	while (k < ncps) {
		if (cps[k] == '\\') {
			int hi, lo;

			if (k + 3 >= ncps || cps[k + 1] != 'x')
				return false;
			hi = hexval((unsigned char)cps[k + 2]);
			lo = hexval((unsigned char)cps[k + 3]);
			if (hi < 0 || lo < 0 || i >= size ||
			    data[i] != (hi << 4 | lo))
				return false;
			i++;
			k += 4;
			continue;
		}
		/* A kept character: its UTF-8 bytes, as in the input. */
		{
			size_t n;
			long cp = utf8_decode(data + i, size - i, &n);

			if (i >= size || cp != cps[k])
				return false;
			i += n;
			k++;
		}
	}
	return i == size;
}

static void check_string(const uint8_t *data, size_t size)
{
	long *cps = calloc(4 * size + 1, sizeof(*cps));
	size_t len, ncps = 0, i = 0, k = 0, elen;
	char *out, *esc = escaped_form(data, size, &elen);
	struct cursor c;
	FILE *f;

	capture(&f, &len, &out);
	json_write_string(f, (const char *)data, size);
	fclose(f);
	c = (struct cursor){ .s = (unsigned char *)out, .len = len };
	if (!parse_string(&c, cps, &ncps) || c.i != len)
		abort();
	/* The decoded string is the escaped form, code point by code point. */
	while (i < elen) {
		size_t n;
		long cp = utf8_decode((const unsigned char *)esc + i, elen - i,
				      &n);

		if (cp < 0 || k >= ncps || cps[k] != cp)
			abort();
		k++;
		i += n;
	}
	if (k != ncps)
		abort();
	/* Inert: nothing a terminal acts on survives a jq -r. */
	for (k = 0; k < ncps; k++)
		if (cps[k] < 0x20 || (cps[k] >= 0x7f && cps[k] < 0xa0))
			abort();
	if (!unescapes_to(cps, ncps, data, size))
		abort();
	free(esc);
	free(out);
	free(cps);
}

static void check_document(const uint8_t *data, size_t size)
{
	char *key = strndup((const char *)data, size), *out;
	struct cursor c;
	struct json j;
	size_t len;
	FILE *f;

	capture(&f, &len, &out);
	json_init(&j, f, size & 1);
	json_obj_begin(&j, NULL);
	json_str(&j, key, key);
	json_arr_begin(&j, "paths");
	json_strn(&j, NULL, (const char *)data, size);
	json_obj_begin(&j, NULL);
	json_u64(&j, key, size);
	json_obj_end(&j);
	json_arr_end(&j);
	json_obj_begin(&j, (const char *)data + size / 2);
	json_obj_end(&j);
	json_obj_end(&j);
	json_finish(&j);
	fclose(f);
	c = (struct cursor){ .s = (unsigned char *)out, .len = len };
	if (!parse_value(&c))
		abort();
	skip_ws(&c);
	if (c.i != len)
		abort();
	free(out);
	free(key);
}

static void check_escape_bytes(const uint8_t *data, size_t size)
{
	size_t cap = data[0] ? data[0] : 1;
	char *dst = malloc(cap);

	escape_bytes(dst, cap, (const char *)data, size);
	if (strnlen(dst, cap) >= cap)
		abort();
	for (const char *p = dst; *p; p++)
		if (*p < 0x20 || *p > 0x7e)
			abort();
	free(dst);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	check_string(data, size);
	if (size) {
		char *key = strndup((const char *)data, size);

		/* Keys are C strings: make them NUL-free by cutting. */
		check_document((const uint8_t *)key, strlen(key));
		free(key);
		check_escape_bytes(data, size);
	}
	return 0;
}
