// SPDX-License-Identifier: GPL-2.0
/*
 * The one escape every report goes through (user/core/escape.c): safe bytes
 * out, and reversible, so that two different names never become one.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "unit_test.h"
#include "escape.h"
#include "util.h"

/* The inverse of the escape: "\xNN" is a byte, anything else itself. */
static size_t unescape(const char *s, char *out)
{
	size_t o = 0;

	while (*s) {
		if (s[0] == '\\') {
			unsigned int b;

			assert_int_equal(s[1], 'x');
			assert_int_equal(sscanf(s + 2, "%2x", &b), 1);
			out[o++] = (char)b;
			s += 4;
		} else {
			out[o++] = *s++;
		}
	}
	out[o] = '\0';
	return o;
}

/* Nothing a terminal acts on may come out: no C0, DEL or C1 byte. */
static void assert_inert(const char *s, enum escape_style style)
{
	for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
		assert_true(*c >= 0x20 && *c != 0x7f);
		if (style == ESCAPE_TEXT)
			assert_true(*c < 0x7f);
	}
	if (style == ESCAPE_UTF8) {
		assert_null(strstr(s, "\xc2\x9b"));	/* C1 CSI */
		assert_null(strstr(s, "\xe2\x80\xae"));	/* RTL override */
	}
}

static void test_hostile_bytes_come_out_inert(void **state)
{
	const char *hostile = "/usr/share/zoneinfo/\n\x1b[2J\x1b[31mEVIL\r"
			      "\n* * * * * root /tmp/evil.sh\n\xc2\x9b" "2J"
			      "\xe2\x80\xae" "txt.exe\x7f\xff";
	char back[512];

	(void)state;
	for (int st = ESCAPE_TEXT; st <= ESCAPE_UTF8; st++) {
		char *e = escape_dup(hostile, st);

		assert_inert(e, st);
		assert_null(strchr(e, '\n'));
		assert_int_equal(unescape(e, back), strlen(hostile));
		assert_string_equal(back, hostile);
		free(e);
	}
}

static void test_invalid_byte_and_real_character_stay_apart(void **state)
{
	char *a = escape_dup("/z/\xe9", ESCAPE_UTF8);
	char *b = escape_dup("/z/\xc3\xa9", ESCAPE_UTF8);
	char *c = escape_dup("/z/\\xe9", ESCAPE_UTF8);	/* the text itself */

	(void)state;
	assert_string_equal(a, "/z/\\xe9");
	assert_string_equal(b, "/z/\xc3\xa9");
	assert_string_equal(c, "/z/\\x5cxe9");
	free(a);
	free(b);
	free(c);
	a = escape_dup("/z/\xc3\xa9", ESCAPE_TEXT);
	assert_string_equal(a, "/z/\\xc3\\xa9");
	free(a);
}

/* Every pair of short byte strings stays a pair: the escape is 1:1. */
static void test_escape_is_reversible_on_every_short_input(void **state)
{
	char in[3] = "", back[16];

	(void)state;
	for (int x = 1; x < 256; x++) {
		for (int y = 0; y < 256; y++) {
			in[0] = (char)x;
			in[1] = (char)y;
			for (int st = ESCAPE_TEXT; st <= ESCAPE_UTF8; st++) {
				char *e = escape_dup(in, st);

				assert_inert(e, st);
				unescape(e, back);
				assert_string_equal(back, in);
				free(e);
			}
		}
	}
}

static void test_fixed_buffer_never_cuts_an_escape(void **state)
{
	char buf[7];

	(void)state;
	/* "ab\x01" needs 6 bytes and the NUL: it fits; one more does not. */
	escape_bytes(buf, sizeof(buf), "ab\x01\x02", 4);
	assert_string_equal(buf, "ab\\x01");
	escape_bytes(buf, 6, "ab\x01", 3);
	assert_string_equal(buf, "ab");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_hostile_bytes_come_out_inert),
		cmocka_unit_test(test_invalid_byte_and_real_character_stay_apart),
		cmocka_unit_test(test_escape_is_reversible_on_every_short_input),
		cmocka_unit_test(test_fixed_buffer_never_cuts_an_escape),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
