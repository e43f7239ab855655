// SPDX-License-Identifier: GPL-2.0
#include <string.h>

#include "fix_place.h"
#include "util.h"

/* The places of F's processes, each once; unknown processes: a shell. */
static size_t places_of(const struct model *m, const struct finding *f,
			struct env_place places[FINDING_PLACES_MAX])
{
	size_t n = 0;

	for (size_t i = 0; i < f->npids && n < FINDING_PLACES_MAX; i++) {
		const struct proc_model *p = model_find(m, f->pids[i]);
		struct env_place here;
		size_t k = 0;

		env_place_of(p ? p->cgroup : NULL, p ? p->container : "", &here);
		env_place_names(&here, p ? p->names : NULL);
		while (k < n && env_place_cmp(&places[k], &here))
			k++;
		if (k == n)
			places[n++] = here;
	}
	return n;
}

void finding_place_fixes(const struct model *m, struct finding *f)
{
	struct env_place places[FINDING_PLACES_MAX];
	size_t n;

	if (!f->env_fix) {
		f->fixes[0].where = "program";
		f->fixes[0].how = xstrdup(f->fix);
		f->nfixes = 1;
		return;
	}
	n = places_of(m, f, places);
	if (!n) {
		env_place_of(NULL, "", &places[0]);
		n = 1;
	}
	for (size_t i = 0; i < n; i++)
		f->nfixes += env_fix_steps(&places[i], f->env_fix,
					   f->fixes + f->nfixes);
}
