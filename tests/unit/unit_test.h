/* SPDX-License-Identifier: GPL-2.0 */
/* What every unit test includes first: cmocka and the headers it needs. */
#ifndef CLOCKTRACE_UNIT_TEST_H
#define CLOCKTRACE_UNIT_TEST_H

/* cmocka.h uses jmp_buf, va_list and size_t without including them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#endif /* CLOCKTRACE_UNIT_TEST_H */
