// SPDX-License-Identifier: GPL-2.0
#include "libbpf_print.h"

int libbpf_print_none(enum libbpf_print_level level, const char *fmt,
		      va_list ap)
{
	(void)level;
	(void)fmt;
	(void)ap;
	return 0;
}
