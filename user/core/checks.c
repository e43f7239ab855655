// SPDX-License-Identifier: GPL-2.0
/* doctor's list of checks: see checks.h. */
#include <stdarg.h>
#include <stdio.h>

#include "checks.h"
#include "util.h"

void check_add(struct checks *c, const char *name, enum check_status st,
	       const char *fmt, ...)
{
	struct check *k;
	va_list ap;

	c->v = xrealloc(c->v, c->n + 1, sizeof(*c->v));
	k = &c->v[c->n++];
	snprintf(k->name, sizeof(k->name), "%s", name);
	k->status = st;
	va_start(ap, fmt);
	vsnprintf(k->detail, sizeof(k->detail), fmt, ap);
	va_end(ap);
}

const char *check_word(enum check_status st)
{
	return st == CHECK_OK ? "ok" : st == CHECK_WARN ? "warn" : "fail";
}

bool checks_failed(const struct checks *c)
{
	for (size_t i = 0; i < c->n; i++)
		if (c->v[i].status == CHECK_FAIL)
			return true;
	return false;
}
