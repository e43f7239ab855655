// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: whatever bytes a comm or a path holds, html_textn must give
 * text that is no markup (no < > " ', no & but an entity it wrote, no
 * control byte) and that decodes back to the input: entities to their
 * character, \xNN to its byte, UTF-8 as it is.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "html.h"

static const struct {
	const char *entity;
	char c;
} entities[] = {
	{ "&amp;", '&' }, { "&lt;", '<' }, { "&gt;", '>' }, { "&quot;", '"' },
	{ "&#39;", '\'' },
};

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	abort();
}

/* One unit of output at out[i]: its decoded byte into *b, its length. */
static size_t decode_one(const char *out, size_t len, size_t i, char *b)
{
	unsigned char c = out[i];

	if (c == '<' || c == '>' || c == '"' || c == '\'' || c < 0x20 || c == 0x7f)
		abort();
	if (c == '&') {
		for (size_t k = 0; k < sizeof(entities) / sizeof(entities[0]); k++) {
			size_t n = strlen(entities[k].entity);

			if (i + n <= len && !memcmp(out + i, entities[k].entity, n)) {
				*b = entities[k].c;
				return n;
			}
		}
		abort();
	}
	if (c == '\\') {
		if (i + 4 > len || out[i + 1] != 'x')
			abort();
		*b = (char)(hexval(out[i + 2]) << 4 | hexval(out[i + 3]));
		return 4;
	}
	*b = (char)c;
	return 1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *out = NULL, *back = malloc(size + 1);
	size_t len = 0, n = 0, i = 0;
	size_t want = strnlen((const char *)data, size);
	FILE *f = open_memstream(&out, &len);

	html_textn(f, (const char *)data, size);
	fclose(f);
	while (i < len) {
		if (n >= want)
			abort();
		i += decode_one(out, len, i, &back[n++]);
	}
	/* Everything up to the first NUL, byte for byte. */
	if (n != want || memcmp(back, data, n))
		abort();
	free(out);
	free(back);
	return 0;
}
