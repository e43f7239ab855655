// SPDX-License-Identifier: GPL-2.0
/*
 * Where a process got its environment, from its cgroup: systemd names a
 * service's cgroup after its unit, container runtimes after the
 * container, the kubelet after the pod.  What cannot be told apart (a
 * shell, a cron job without a session) is said as both.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "env_origin.h"
#include "util.h"

static bool ends_with(const char *s, size_t len, const char *suffix)
{
	size_t n = strlen(suffix);

	return len >= n && !memcmp(s + len - n, suffix, n);
}

/* systemd-run names its units run-u123.service, run-r<hex>.scope, run-123. */
static bool is_transient_name(const char *name, size_t len)
{
	size_t i = 4;

	if (len < 5 || memcmp(name, "run-", 4))
		return false;
	if (name[i] == 'u' || name[i] == 'r')
		i++;
	if (i >= len || !strchr("0123456789abcdef", name[i]))
		return false;
	while (i < len && strchr("0123456789abcdef", name[i]))
		i++;
	return i == len - 8 ? ends_with(name, len, ".service") :
			      i == len - 6 && ends_with(name, len, ".scope");
}

/* The innermost ".service" (or systemd-run's ".scope") component. */
static void unit_of(const char *cgroup, struct env_place *out)
{
	bool user_manager = false;

	for (const char *c = cgroup; *c;) {
		const char *start = *c == '/' ? c + 1 : c;
		const char *end = strchrnul(start, '/');
		size_t len = end - start;

		c = end;
		if (len > 5 && !memcmp(start, "user@", 5)) {
			user_manager = true;
			continue;
		}
		if (is_transient_name(start, len))
			out->origin = ORIGIN_TRANSIENT;
		else if (ends_with(start, len, ".service"))
			out->origin = user_manager ? ORIGIN_USER_UNIT :
						     ORIGIN_UNIT;
		else
			continue;
		snprintf(out->unit, sizeof(out->unit), "%.*s", (int)len, start);
	}
	if (out->origin == ORIGIN_UNIT && (!strcmp(out->unit, "cron.service") ||
					   !strcmp(out->unit, "crond.service")))
		out->origin = ORIGIN_CRON;
}

void env_place_of(const char *cgroup, const char *container,
		  struct env_place *out)
{
	memset(out, 0, sizeof(*out));
	out->origin = ORIGIN_SHELL;
	if (!cgroup)
		return;
	if (container && container[0]) {
		out->origin = pod_uid(cgroup, out->pod) ? ORIGIN_POD :
							  ORIGIN_CONTAINER;
		out->runtime = container_runtime(cgroup);
		snprintf(out->container, sizeof(out->container), "%.12s",
			 container);
		return;
	}
	unit_of(cgroup, out);
}

void env_place_names(struct env_place *place,
		     const struct container_names *names)
{
	if (place->origin != ORIGIN_CONTAINER && place->origin != ORIGIN_POD)
		return;
	place->names = container_names_known(names) ? names : NULL;
	if (place->names && place->names->pod[0])
		place->origin = ORIGIN_POD;
}

int env_place_cmp(const struct env_place *a, const struct env_place *b)
{
	if (a->origin != b->origin)
		return (int)a->origin - (int)b->origin;
	return strcmp(a->unit, b->unit) ?: strcmp(a->container, b->container) ?:
	       strcmp(a->pod, b->pod);
}

static size_t steps_unit(const struct env_place *p, const char *assign,
			 struct fix_step *out)
{
	const char *user = p->origin == ORIGIN_USER_UNIT ? " --user" : "";

	out[0].where = "systemd unit";
	out[0].how = xasprintf("systemctl%s edit %s, and under [Service]: "
			       "Environment=%s; then systemctl%s restart %s",
			       user, p->unit, assign, user, p->unit);
	return 1;
}

static size_t steps_transient(const struct env_place *p, const char *assign,
			      struct fix_step *out)
{
	out[0].where = "systemd-run";
	out[0].how = xasprintf("%s is a transient unit (systemctl edit cannot "
			       "change it): start it with systemd-run -E %s",
			       p->unit, assign);
	return 1;
}

/* "TZ=:/etc/localtime" -> name "TZ" (LEN 2), value ":/etc/localtime". */
static size_t name_len(const char *assign)
{
	const char *eq = strchr(assign, '=');

	return eq ? (size_t)(eq - assign) : strlen(assign);
}

/*
 * "container NAME (id ID) in the pod spec of pod POD in namespace NS", as
 * much as is known: the owning workload is not (the kubelet's files do
 * not say it), so its pod template is named by kind only.
 */
static char *pod_words(const struct env_place *p)
{
	const struct container_names *n = p->names;

	if (!n || !n->pod[0])
		return xasprintf("the container (id %s) of pod %s", p->container,
				 p->pod);
	if (!n->namespace[0])
		return xasprintf("container %s (id %s) in the pod spec of pod %s",
				 n->name[0] ? n->name : "?", p->container,
				 n->pod);
	return xasprintf("container %s (id %s) in the pod spec of pod %s in "
			 "namespace %s", n->name[0] ? n->name : "?",
			 p->container, n->pod, n->namespace);
}

static size_t steps_pod(const struct env_place *p, const char *assign,
			struct fix_step *out)
{
	size_t n = name_len(assign);
	const char *value = assign[n] ? assign + n + 1 : "";
	char *where = pod_words(p);

	out[0].where = "pod spec";
	out[0].how = xasprintf("env: [{name: %.*s, value: \"%s\"}] on %s, "
			       "in its workload's pod template (Deployment, "
			       "StatefulSet, DaemonSet)",
			       (int)n, assign, value, where);
	free(where);
	out[1].where = "image";
	out[1].how = xasprintf("or ENV %s in the container's image "
			       "(Dockerfile or Containerfile), then rebuild",
			       assign);
	return 2;
}

static size_t steps_container(const struct env_place *p, const char *assign,
			      struct fix_step *out)
{
	const char *rt = p->runtime ? p->runtime : "container";
	bool cli = !strcmp(rt, "docker") || !strcmp(rt, "podman");

	out[0].where = "image";
	if (p->names && p->names->name[0])
		out[0].how = xasprintf("ENV %s in the image of %s container %s "
				       "(id %s; its Dockerfile or Containerfile), "
				       "then rebuild", assign, rt,
				       p->names->name, p->container);
	else
		out[0].how = xasprintf("ENV %s in the image of %s container %s "
				       "(its Dockerfile or Containerfile), then "
				       "rebuild", assign, rt, p->container);
	out[1].where = "container run";
	out[1].how = cli ? xasprintf("or at its start: %s run -e %s (Compose: "
				     "environment: [%s])", rt, assign, assign) :
			   xasprintf("or in the container's env when it is "
				     "created: %s", assign);
	return 2;
}

static size_t steps_shell(const struct env_place *p, const char *assign,
			  struct fix_step *out)
{
	struct fix_step profile = {
		.where = "shell profile",
		.how = xasprintf("export %s in the profile of the shell that "
				 "starts it (~/.profile, /etc/profile.d/)",
				 assign),
	};
	struct fix_step cron = {
		.where = "crontab",
		.how = xasprintf("a line %s at the top of the crontab that "
				 "starts it", assign),
	};

	out[0] = p->origin == ORIGIN_CRON ? cron : profile;
	out[1] = p->origin == ORIGIN_CRON ? profile : cron;
	return 2;
}

size_t env_fix_steps(const struct env_place *p, const char *assign,
		     struct fix_step out[ENV_FIX_STEPS])
{
	switch (p->origin) {
	case ORIGIN_UNIT:
	case ORIGIN_USER_UNIT:
		return steps_unit(p, assign, out);
	case ORIGIN_TRANSIENT:
		return steps_transient(p, assign, out);
	case ORIGIN_POD:
		return steps_pod(p, assign, out);
	case ORIGIN_CONTAINER:
		return steps_container(p, assign, out);
	default:
		return steps_shell(p, assign, out);
	}
}
