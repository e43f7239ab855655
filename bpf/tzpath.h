/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Is this path a time-zone file?  Plain C with bounded loops and no helpers,
 * so that the BPF program and the unit tests run the very same code.
 * The includer provides __u32 and the __always_inline-style TZ_INLINE.
 */
#ifndef CLOCKTRACE_TZPATH_H
#define CLOCKTRACE_TZPATH_H

#include "clocktrace.h"

#ifndef TZ_INLINE
#define TZ_INLINE static inline __attribute__((always_inline))
#endif

/*
 * A literal prefix, compared without a branch per byte: the verifier then
 * walks straight through instead of forking a state at every byte.
 */
TZ_INLINE int tz_literal_match(const char *path, const char *lit, __u32 len,
			       int exact)
{
	unsigned char diff = 0;
	char next = path[len];
	__u32 i;

	for (i = 0; i < len; i++)
		diff |= path[i] ^ lit[i];
	if (diff)
		return 0;
	if (next == '\0')
		return 1;
	return !exact && (next == '/' || lit[len - 1] == '/');
}

#define TZ_MATCH_LIT(path, lit, exact) \
	tz_literal_match(path, lit, sizeof(lit) - 1, exact)

/* The places every C library we know of reads zone data from. */
TZ_INLINE int tz_builtin_match(const char *path)
{
	if (path[0] != '/')
		return 0;
	if (path[1] == 'e')
		return TZ_MATCH_LIT(path, "/etc/localtime", 1) ||
		       TZ_MATCH_LIT(path, "/etc/timezone", 1);
	if (path[1] == 'u')
		return TZ_MATCH_LIT(path, "/usr/share/zoneinfo", 0) ||
		       TZ_MATCH_LIT(path, "/usr/lib/zoneinfo", 0) ||
		       TZ_MATCH_LIT(path, "/usr/share/lib/zoneinfo", 0);
	return 0;
}

/*
 * A TZDIR or TZ=:file entry: 8 bytes at a time, 16 steps instead of 127, so
 * that the verifier has little to walk.  Both buffers are TZ_PATH_LEN bytes,
 * zero-padded and 8-byte aligned (map values), as in the tests.
 */
TZ_INLINE int tz_user_match(const char *path, const struct tz_user_path *u)
{
	__u32 len = u->len, full = len / 8, rem = len & 7, i;
	char next;

	if (len == 0 || len >= TZ_PATH_LEN)
		return 0;
	for (i = 0; i < TZ_PATH_LEN / 8; i++) {
		__u64 a, b;

		__builtin_memcpy(&a, path + i * 8, 8);
		__builtin_memcpy(&b, u->path + i * 8, 8);
		if (i < full) {
			if (a != b)
				return 0;
			continue;
		}
		/* Little-endian: the first rem bytes are the low ones. */
		if (rem && ((a ^ b) & ((1ULL << (rem * 8)) - 1)))
			return 0;
		break;
	}
	next = path[len & (TZ_PATH_LEN - 1)];
	if (next == '\0')
		return 1;
	if (u->exact)
		return 0;
	return next == '/' || u->path[(len - 1) & (TZ_PATH_LEN - 1)] == '/';
}

#endif /* CLOCKTRACE_TZPATH_H */
