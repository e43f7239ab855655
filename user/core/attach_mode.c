// SPDX-License-Identifier: GPL-2.0
/* --attach's words; the programs of each mode are user/trace/attach_fentry.c. */
#include <string.h>

#include "attach_mode.h"
#include "util.h"

static const char *const names[] = {
	[ATTACH_AUTO] = "auto",
	[ATTACH_TRACEPOINT] = "tracepoint",
	[ATTACH_FENTRY] = "fentry",
};

const char *attach_mode_name(enum attach_mode m)
{
	return names[m];
}

int attach_mode_parse(const char *s, enum attach_mode *m)
{
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (!strcmp(s, names[i])) {
			*m = i;
			return 0;
		}
	}
	return -1;
}
