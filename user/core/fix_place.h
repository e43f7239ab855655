/* SPDX-License-Identifier: GPL-2.0 */
/* A finding's fixes in the words of the layer that set the environment. */
#ifndef CLOCKTRACE_FIX_PLACE_H
#define CLOCKTRACE_FIX_PLACE_H

#include "findings.h"

/*
 * F's fixes: for a fix in the environment (env_fix), the steps for each
 * distinct place its processes got theirs (the first FINDING_PLACES_MAX,
 * in pid order); else the program's fix alone, where "program".
 */
void finding_place_fixes(const struct model *m, struct finding *f);

#endif /* CLOCKTRACE_FIX_PLACE_H */
