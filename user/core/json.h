/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small streaming JSON writer.  Keys are NULL inside arrays.  Every
 * string and key is written in the escaped form of escape.h (ESCAPE_UTF8):
 * valid JSON whatever bytes it holds, and reversible, so hostile comm or
 * path bytes can neither break it nor make two keys one.
 */
#ifndef CLOCKTRACE_JSON_H
#define CLOCKTRACE_JSON_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define JSON_MAX_DEPTH 32

struct json {
	FILE *f;
	int depth;
	bool pretty;
	bool has_items[JSON_MAX_DEPTH];
};

void json_init(struct json *j, FILE *f, bool pretty);
void json_obj_begin(struct json *j, const char *key);
void json_obj_end(struct json *j);
void json_arr_begin(struct json *j, const char *key);
void json_arr_end(struct json *j);
void json_str(struct json *j, const char *key, const char *s);
void json_strn(struct json *j, const char *key, const char *s, size_t len);
void json_u64(struct json *j, const char *key, uint64_t v);
void json_i64(struct json *j, const char *key, int64_t v);
void json_double(struct json *j, const char *key, double v);
void json_bool(struct json *j, const char *key, bool v);
void json_null(struct json *j, const char *key);
/* Ends the document with a newline. */
void json_finish(struct json *j);

/* The escaped form of s (len bytes) as a JSON string, quotes included. */
void json_write_string(FILE *f, const char *s, size_t len);

#endif /* CLOCKTRACE_JSON_H */
