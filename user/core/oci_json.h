/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A bounded reader of the few strings clocktrace takes from a container
 * runtime's JSON files (an OCI bundle's config.json, docker's
 * config.v2.json, containers/storage's containers.json).  The files are
 * root's, but their strings are set by whoever writes a pod spec: the
 * reader walks a buffer it never leaves, nests at most OJSON_MAX_DEPTH
 * deep, allocates nothing, and cuts nothing silently (a string longer
 * than the caller's buffer is refused, never shortened).
 */
#ifndef CLOCKTRACE_OCI_JSON_H
#define CLOCKTRACE_OCI_JSON_H

#include <stdbool.h>
#include <stddef.h>

#define OJSON_MAX_DEPTH	64

/* A position in a document: copy it to look ahead. */
struct ojson {
	const char *p;
	const char *end;
};

void ojson_init(struct ojson *j, const char *buf, size_t len);

/* At an object: to the value of its first member named KEY.  false: none. */
bool ojson_member(struct ojson *j, const char *key);

/* At an array: to its first element.  false: not an array, or empty. */
bool ojson_first(struct ojson *j);
/* At an element: past it, to the next one.  false: that was the last. */
bool ojson_next(struct ojson *j);

enum ojson_string {
	OJSON_OK,
	OJSON_NOT_STRING,	/* another kind of value, or malformed */
	OJSON_TOO_LONG,		/* more than cap - 1 bytes once decoded */
	OJSON_HAS_NUL,		/* a \u0000: not a name */
};

/*
 * At a string: its bytes, escapes decoded (\uXXXX to UTF-8), NUL-ended
 * in OUT[CAP].  OUT is "" unless OJSON_OK.
 */
enum ojson_string ojson_string(const struct ojson *j, char *out, size_t cap);

#endif /* CLOCKTRACE_OCI_JSON_H */
