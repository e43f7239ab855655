/* SPDX-License-Identifier: GPL-2.0 */
/* What libbpf may print: nothing while a probe fails on purpose. */
#ifndef CLOCKTRACE_LIBBPF_PRINT_H
#define CLOCKTRACE_LIBBPF_PRINT_H

#include <stdarg.h>
#include <bpf/libbpf.h>

/* For libbpf_set_print() around a load or attach that may be refused. */
int libbpf_print_none(enum libbpf_print_level level, const char *fmt,
		      va_list ap);

#endif /* CLOCKTRACE_LIBBPF_PRINT_H */
