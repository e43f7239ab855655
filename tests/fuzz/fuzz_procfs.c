// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the parsers of what /proc holds about a traced (so hostile)
 * process.  proc_stat_parse on a stat line (first byte 0xfe),
 * status_tgid and status_nspid on a status file (0xfc), environ_lookup
 * on a NUL-separated block, maps_parse_line on one line.  The answers
 * must point inside the input and mean what the input says.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"

static void fuzz_environ(const uint8_t *data, size_t size)
{
	size_t nlen, len, vlen = 0;
	const char *val = NULL;
	char *name, *buf;
	int found;

	if (size < 1)
		return;
	nlen = data[0] % 16;
	if (nlen + 1 > size)
		return;
	name = strndup((const char *)data + 1, nlen);
	len = size - 1 - nlen;
	/* Exactly len bytes, no terminator: environ need not end in NUL. */
	buf = malloc(len ? len : 1);
	memcpy(buf, data + 1 + nlen, len);
	found = environ_lookup(buf, len, name, &val, &vlen);
	if (found != 0 && found != 1)
		abort();
	if (found) {
		size_t n = strlen(name);

		/* NAME=value, inside the block, right after "NAME=". */
		if (val < buf + n + 1 || val > buf + len || vlen > len ||
		    val + vlen > buf + len)
			abort();
		if (memcmp(val - n - 1, name, n) || val[-1] != '=')
			abort();
		if (memchr(val, '\0', vlen))
			abort();
		/* The entry starts the block or follows a NUL. */
		if (val - n - 1 != buf && *(val - n - 2) != '\0')
			abort();
	}
	free(name);
	free(buf);
}

static void fuzz_maps(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1);
	struct maps_entry e;

	memcpy(line, data, size);
	line[size] = '\0';
	if (!maps_parse_line(line, &e)) {
		if (e.end < e.start)
			abort();
		if (e.path && (e.path < line || e.path > line + strlen(line) ||
			       !*e.path))
			abort();
	}
	free(line);
}

/* /proc/PID/stat: a comm of any bytes, then fields that may be missing. */
static void fuzz_stat(const uint8_t *data, size_t size)
{
	char *line = malloc(size + 1), state = 0;
	unsigned long flags = 0;

	memcpy(line, data, size);
	line[size] = '\0';
	if (!proc_stat_parse(line, &state, &flags) && !strrchr(line, ')'))
		abort();
	free(line);
}

/* /proc/PID/status: the pids it gives are positive ints, or 0. */
static void fuzz_status(const uint8_t *data, size_t size)
{
	const char *buf = (const char *)data;

	if (status_tgid(buf, size) < 0 || status_nspid(buf, size) < 0)
		abort();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 1)
		return 0;
	if (data[0] == 0xfe)
		fuzz_stat(data + 1, size - 1);
	else if (data[0] == 0xfc)
		fuzz_status(data + 1, size - 1);
	else if (data[0] & 1)
		fuzz_maps(data + 1, size - 1);
	else
		fuzz_environ(data + 1, size - 1);
	return 0;
}
