// SPDX-License-Identifier: GPL-2.0
/*
 * libfusestall.so - the library fusevictim loads from a FUSE mount: its
 * localtime() calls come from a file the tracer cannot read (a call site
 * whose module never answers).
 */
#include <time.h>

/* N localtime() calls of a fixed instant; returns how many were made. */
__attribute__((noinline)) unsigned long fusestall_localtime(unsigned long n)
{
	time_t t = 1700000000;
	unsigned long i;

	for (i = 0; i < n; i++)
		if (!localtime(&t))
			break;
	return i;
}
