/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_VERSION_H
#define CLOCKTRACE_VERSION_H
#include <stdio.h>
/* Version, the libbpf built in, and what the running kernel offers. */
int print_version(FILE *f);
#endif
