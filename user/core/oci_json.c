// SPDX-License-Identifier: GPL-2.0
/*
 * The bounded JSON reader of oci_json.h.  Every step checks the end of
 * the buffer; skipping a value recurses at most OJSON_MAX_DEPTH deep, so
 * a file of nested brackets cannot exhaust the stack.
 */
#include <string.h>

#include "oci_json.h"

void ojson_init(struct ojson *j, const char *buf, size_t len)
{
	j->p = buf;
	j->end = buf + len;
}

static void skip_ws(struct ojson *j)
{
	while (j->p < j->end && strchr(" \t\r\n", *j->p) && *j->p)
		j->p++;
}

static bool eat(struct ojson *j, char c)
{
	skip_ws(j);
	if (j->p >= j->end || *j->p != c)
		return false;
	j->p++;
	return true;
}

static int hex4(const char *s)
{
	int v = 0;

	for (int i = 0; i < 4; i++) {
		char c = s[i];
		int d = c >= '0' && c <= '9' ? c - '0' :
			c >= 'a' && c <= 'f' ? c - 'a' + 10 :
			c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;

		if (d < 0)
			return -1;
		v = v * 16 + d;
	}
	return v;
}

/* A \uXXXX escape at P (after the backslash), with its low surrogate. */
static long unicode_escape(const char **p, const char *end)
{
	long hi, lo;

	if (end - *p < 5 || (hi = hex4(*p + 1)) < 0)
		return -1;
	*p += 5;
	if (hi < 0xd800 || hi > 0xdfff)
		return hi;
	if (hi > 0xdbff || end - *p < 6 || (*p)[0] != '\\' || (*p)[1] != 'u' ||
	    (lo = hex4(*p + 2)) < 0xdc00 || lo > 0xdfff)
		return -1;
	*p += 6;
	return 0x10000 + ((hi - 0xd800) << 10) + (lo - 0xdc00);
}

/* Code point CP as UTF-8 into BUF; its length. */
static size_t utf8_put(long cp, char buf[4])
{
	if (cp < 0x80) {
		buf[0] = (char)cp;
		return 1;
	}
	if (cp < 0x800) {
		buf[0] = (char)(0xc0 | cp >> 6);
		buf[1] = (char)(0x80 | (cp & 0x3f));
		return 2;
	}
	if (cp < 0x10000) {
		buf[0] = (char)(0xe0 | cp >> 12);
		buf[1] = (char)(0x80 | (cp >> 6 & 0x3f));
		buf[2] = (char)(0x80 | (cp & 0x3f));
		return 3;
	}
	buf[0] = (char)(0xf0 | cp >> 18);
	buf[1] = (char)(0x80 | (cp >> 12 & 0x3f));
	buf[2] = (char)(0x80 | (cp >> 6 & 0x3f));
	buf[3] = (char)(0x80 | (cp & 0x3f));
	return 4;
}

static const char simple_escapes[] = "\"\"\\\\//b\bf\fn\nr\rt\t";

/* One escape at *P (after the backslash) decoded into BUF; its length, 0: bad. */
static size_t escape_at(const char **p, const char *end, char buf[4])
{
	long cp;

	if (*p >= end)
		return 0;
	if (**p == 'u') {
		cp = unicode_escape(p, end);
		return cp < 0 ? 0 : utf8_put(cp, buf);
	}
	for (size_t i = 0; simple_escapes[i]; i += 2) {
		if (**p == simple_escapes[i]) {
			buf[0] = simple_escapes[i + 1];
			(*p)++;
			return 1;
		}
	}
	return 0;
}

/*
 * The string at J->P: moved past, decoded into OUT[CAP] when OUT.  Its
 * decoded length in *LEN, NUL bytes counted in *NULS.  false: malformed.
 */
static bool string_at(struct ojson *j, char *out, size_t cap, size_t *len,
		      size_t *nuls)
{
	const char *p = j->p;
	char buf[4];
	size_t n;

	*len = *nuls = 0;
	if (p >= j->end || *p++ != '"')
		return false;
	while (p < j->end && *p != '"') {
		if ((unsigned char)*p < 0x20)
			return false;
		if (*p == '\\') {
			p++;
			n = escape_at(&p, j->end, buf);
			if (!n)
				return false;
		} else {
			buf[0] = *p++;
			n = 1;
		}
		if (out && *len + n < cap)
			memcpy(out + *len, buf, n);
		*nuls += n == 1 && !buf[0];
		*len += n;
	}
	if (p >= j->end)
		return false;
	j->p = p + 1;
	return true;
}

static bool skip_value(struct ojson *j, int depth);

/* An object's or an array's items, J->P past its opening bracket. */
static bool skip_items(struct ojson *j, char close, int depth)
{
	size_t len, nuls;

	if (eat(j, close))
		return true;
	do {
		skip_ws(j);
		if (close == '}' && (!string_at(j, NULL, 0, &len, &nuls) ||
				     !eat(j, ':')))
			return false;
		if (!skip_value(j, depth + 1))
			return false;
	} while (eat(j, ','));
	return eat(j, close);
}

/* A literal or a number: the characters that may make one. */
static bool skip_scalar(struct ojson *j)
{
	const char *start = j->p;

	while (j->p < j->end && *j->p &&
	       strchr("0123456789+-.eEtruefalsn", *j->p))
		j->p++;
	return j->p > start;
}

static bool skip_value(struct ojson *j, int depth)
{
	size_t len, nuls;

	if (depth > OJSON_MAX_DEPTH)
		return false;
	skip_ws(j);
	if (j->p >= j->end)
		return false;
	if (*j->p == '"')
		return string_at(j, NULL, 0, &len, &nuls);
	if (*j->p == '{' || *j->p == '[') {
		char close = *j->p == '{' ? '}' : ']';

		j->p++;
		return skip_items(j, close, depth);
	}
	return skip_scalar(j);
}

bool ojson_member(struct ojson *j, const char *key)
{
	struct ojson at = *j;
	size_t want = strlen(key), len, nuls;
	char name[256];

	if (!eat(&at, '{') || eat(&at, '}'))
		return false;
	do {
		skip_ws(&at);
		if (!string_at(&at, name, sizeof(name), &len, &nuls) ||
		    !eat(&at, ':'))
			return false;
		skip_ws(&at);
		if (len == want && want < sizeof(name) && !nuls &&
		    !memcmp(name, key, len)) {
			*j = at;
			return true;
		}
		if (!skip_value(&at, 1))
			return false;
	} while (eat(&at, ','));
	return false;
}

bool ojson_first(struct ojson *j)
{
	struct ojson at = *j;

	if (!eat(&at, '[') || eat(&at, ']'))
		return false;
	skip_ws(&at);
	*j = at;
	return true;
}

bool ojson_next(struct ojson *j)
{
	struct ojson at = *j;

	if (!skip_value(&at, 1) || !eat(&at, ','))
		return false;
	skip_ws(&at);
	*j = at;
	return true;
}

enum ojson_string ojson_string(const struct ojson *j, char *out, size_t cap)
{
	struct ojson at = *j;
	size_t len, nuls;

	out[0] = '\0';
	skip_ws(&at);
	if (!string_at(&at, out, cap, &len, &nuls)) {
		out[0] = '\0';
		return OJSON_NOT_STRING;
	}
	if (len >= cap) {
		out[0] = '\0';
		return OJSON_TOO_LONG;
	}
	out[len] = '\0';
	if (nuls) {
		out[0] = '\0';
		return OJSON_HAS_NUL;
	}
	return OJSON_OK;
}
