// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <string.h>

#include "escape.h"
#include "json.h"

void json_init(struct json *j, FILE *f, bool pretty)
{
	memset(j, 0, sizeof(*j));
	j->f = f;
	j->pretty = pretty;
}

static void indent(struct json *j)
{
	if (!j->pretty)
		return;
	fputc('\n', j->f);
	for (int i = 0; i < j->depth; i++)
		fputs("  ", j->f);
}

/*
 * Every string goes through the one escape (escape.h): what a JSON parser
 * hands back is that escaped form, so hostile bytes never reach a terminal
 * through `jq -r`, and keys from different paths never collide.  Only the
 * JSON layer's own quote and backslash are escaped on top.
 */
void json_write_string(FILE *f, const char *s, size_t len)
{
	fputc('"', f);
	escape_print_quoted(f, s, len);
	fputc('"', f);
}

static void item(struct json *j, const char *key)
{
	if (j->depth > 0) {
		if (j->has_items[j->depth])
			fputc(',', j->f);
		j->has_items[j->depth] = true;
		indent(j);
	}
	if (key) {
		json_write_string(j->f, key, strlen(key));
		fputs(j->pretty ? ": " : ":", j->f);
	}
}

static void open_scope(struct json *j, const char *key, char c)
{
	item(j, key);
	fputc(c, j->f);
	if (j->depth + 1 < JSON_MAX_DEPTH)
		j->depth++;
	j->has_items[j->depth] = false;
}

static void close_scope(struct json *j, char c)
{
	bool had = j->has_items[j->depth];

	if (j->depth > 0)
		j->depth--;
	if (had)
		indent(j);
	fputc(c, j->f);
}

void json_obj_begin(struct json *j, const char *key)
{
	open_scope(j, key, '{');
}

void json_obj_end(struct json *j)
{
	close_scope(j, '}');
}

void json_arr_begin(struct json *j, const char *key)
{
	open_scope(j, key, '[');
}

void json_arr_end(struct json *j)
{
	close_scope(j, ']');
}

void json_strn(struct json *j, const char *key, const char *s, size_t len)
{
	item(j, key);
	json_write_string(j->f, s, len);
}

void json_str(struct json *j, const char *key, const char *s)
{
	if (!s) {
		json_null(j, key);
		return;
	}
	json_strn(j, key, s, strlen(s));
}

void json_u64(struct json *j, const char *key, uint64_t v)
{
	item(j, key);
	fprintf(j->f, "%llu", (unsigned long long)v);
}

void json_i64(struct json *j, const char *key, int64_t v)
{
	item(j, key);
	fprintf(j->f, "%lld", (long long)v);
}

void json_double(struct json *j, const char *key, double v)
{
	item(j, key);
	if (isfinite(v))
		fprintf(j->f, "%.6g", v);
	else
		fputs("null", j->f);
}

void json_bool(struct json *j, const char *key, bool v)
{
	item(j, key);
	fputs(v ? "true" : "false", j->f);
}

void json_null(struct json *j, const char *key)
{
	item(j, key);
	fputs("null", j->f);
}

void json_finish(struct json *j)
{
	fputc('\n', j->f);
	fflush(j->f);
}
