/* SPDX-License-Identifier: GPL-2.0 */
/* doctor's list of checks: the machine's and a process's add lines to one. */
#ifndef CLOCKTRACE_CHECKS_H
#define CLOCKTRACE_CHECKS_H

#include <stdbool.h>
#include <stddef.h>

enum check_status { CHECK_OK, CHECK_WARN, CHECK_FAIL };

struct check {
	char name[32];
	enum check_status status;
	char detail[320];	/* what we found, and what to do about it */
};

struct checks {
	struct check *v;
	size_t n;
};

void check_add(struct checks *c, const char *name, enum check_status st,
	       const char *fmt, ...) __attribute__((format(printf, 4, 5)));
const char *check_word(enum check_status st);
bool checks_failed(const struct checks *c);

#endif /* CLOCKTRACE_CHECKS_H */
