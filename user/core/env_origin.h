/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a process got its environment, as far as its cgroup tells, and
 * how a variable is set there: a fix in the words of that layer.
 */
#ifndef CLOCKTRACE_ENV_ORIGIN_H
#define CLOCKTRACE_ENV_ORIGIN_H

#include <stddef.h>

#include "container.h"
#include "container_names.h"

enum env_origin {
	ORIGIN_SHELL,		/* a login shell, or nothing better known */
	ORIGIN_CRON,		/* cron.service: a crontab */
	ORIGIN_UNIT,		/* a systemd service: its unit file */
	ORIGIN_USER_UNIT,	/* a systemd --user service */
	ORIGIN_TRANSIENT,	/* systemd-run's run-*.service or .scope */
	ORIGIN_CONTAINER,	/* docker, podman, ...: the image or the run */
	ORIGIN_POD,		/* Kubernetes: the pod spec or the image */
};

struct env_place {
	enum env_origin origin;
	char unit[128];			/* the unit's name (ORIGIN_*UNIT, _TRANSIENT) */
	const char *runtime;		/* the container's runtime (container.h) */
	char container[13];		/* its id, short */
	char pod[POD_UID_LEN + 1];	/* the pod's UID */
	/* What the runtime's files name them (NULL: nothing found). */
	const struct container_names *names;
};

/*
 * The place of a process in cgroup v2 path CGROUP (NULL: unknown) whose
 * container id is CONTAINER ("": none, or one not believed).
 */
void env_place_of(const char *cgroup, const char *container,
		  struct env_place *out);
/*
 * The names of its container (container_names.h) in a place: a container
 * whose runtime names a pod is in one, whatever its cgroup path.
 */
void env_place_names(struct env_place *place,
		     const struct container_names *names);
int env_place_cmp(const struct env_place *a, const struct env_place *b);

/* One place a fix goes, and what to do there (malloc'ed). */
struct fix_step {
	const char *where;	/* "systemd unit", "pod spec", "image", ... */
	char *how;
};

#define ENV_FIX_STEPS	2

/*
 * How to set ASSIGN ("TZ=:/etc/localtime") for a process at P, the most
 * direct way first: the steps written to OUT, at most ENV_FIX_STEPS.
 */
size_t env_fix_steps(const struct env_place *p, const char *assign,
		     struct fix_step out[ENV_FIX_STEPS]);

#endif /* CLOCKTRACE_ENV_ORIGIN_H */
