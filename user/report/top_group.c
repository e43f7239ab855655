// SPDX-License-Identifier: GPL-2.0
/*
 * top --by container|cgroup: the ranked processes summed per container or
 * per cgroup, read from /proc/PID/cgroup at each refresh (a process that
 * exited since is counted in a group of its own, "gone": its place went
 * with it).
 */
#include <stdlib.h>
#include <string.h>

#include "container.h"
#include "escape.h"
#include "procfs.h"
#include "top_group.h"
#include "util.h"

/* The group of pid: NULL for a process in no container, or gone. */
static char *group_key(pid_t pid, enum top_by by, bool *gone)
{
	char path[64], id[CONTAINER_ID_LEN + 1], *buf, *cg;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", pid);
	buf = read_file(path, 1 << 16, &len);
	cg = buf ? cgroup_v2_path(buf, len) : NULL;
	free(buf);
	*gone = !cg;
	if (!cg)
		return NULL;
	if (by == TOP_BY_CGROUP)
		return cg;
	/* A container-like name in a delegated cgroup is no container. */
	if (container_of_cgroup(cg, id) != CONTAINER_VERIFIED) {
		free(cg);
		return NULL;
	}
	free(cg);
	return xstrdup(id);
}

static bool same_key(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

static struct top_group *find_group(struct top_group *g, size_t n,
				    const char *key, bool gone)
{
	for (size_t i = 0; i < n; i++)
		if (g[i].gone == gone && same_key(g[i].key, key))
			return &g[i];
	return NULL;
}

static int by_group_rate(const void *a, const void *b)
{
	const struct top_group *x = a, *y = b;

	if (x->tz_rate != y->tz_rate)
		return x->tz_rate > y->tz_rate ? -1 : 1;
	if (x->clock_rate != y->clock_rate)
		return x->clock_rate > y->clock_rate ? -1 : 1;
	return (x->busiest > y->busiest) - (x->busiest < y->busiest);
}

size_t top_group_rows(const struct top_row *rows, size_t n, enum top_by by,
		      struct top_group **groups)
{
	struct top_group *g = xcalloc(n + 1, sizeof(*g));
	size_t ng = 0;

	for (size_t i = 0; i < n; i++) {
		bool gone = false;
		char *key = group_key(rows[i].pid, by, &gone);
		struct top_group *grp = find_group(g, ng, key, gone);

		if (grp) {
			free(key);
		} else {
			grp = &g[ng++];
			grp->key = key;
			grp->gone = gone;
			grp->busiest = rows[i].pid;
			grp->busiest_tz_rate = -1;
		}
		grp->procs++;
		grp->tz_rate += rows[i].tz_rate;
		grp->clock_rate += rows[i].clock_rate;
		if (rows[i].tz_rate > grp->busiest_tz_rate) {
			grp->busiest = rows[i].pid;
			grp->busiest_tz_rate = rows[i].tz_rate;
		}
	}
	qsort(g, ng, sizeof(*g), by_group_rate);
	*groups = g;
	return ng;
}

void top_groups_free(struct top_group *groups, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(groups[i].key);
	free(groups);
}

static const char *by_label(enum top_by by)
{
	return by == TOP_BY_CGROUP ? "CGROUP" : "CONTAINER";
}

void top_groups_print_screen(FILE *out, enum top_by by,
			     const struct top_group *g, size_t n,
			     unsigned int top)
{
	fprintf(out, "%-64s %6s %10s %10s %8s %s\n", by_label(by), "PROCS",
		"TZ/s", "CLOCK/s", "PID", "COMM");
	for (size_t i = 0; i < n && i < top; i++) {
		char comm[32] = "?", *key, *safe_comm;

		proc_comm(g[i].busiest, comm, sizeof(comm));
		/* A cgroup path is named by whoever made it: escaped. */
		key = g[i].key ? escape_dup(g[i].key, ESCAPE_TEXT) :
		      xstrdup(g[i].gone ? "(exited)" : "(host)");
		safe_comm = escape_dup(comm, ESCAPE_TEXT);
		fprintf(out, "%-64s %6u %10.0f %10.0f %8d %s\n", key,
			g[i].procs, g[i].tz_rate, g[i].clock_rate,
			g[i].busiest, safe_comm);
		free(key);
		free(safe_comm);
	}
}

void top_groups_json(struct json *j, enum top_by by,
		     const struct top_group *g, size_t n, unsigned int top)
{
	const char *name = by == TOP_BY_CGROUP ? "cgroup" : "container";

	json_arr_begin(j, "groups");
	for (size_t i = 0; i < n && i < top; i++) {
		json_obj_begin(j, NULL);
		json_str(j, name, g[i].key);
		json_u64(j, "processes", g[i].procs);
		json_double(j, "tz_per_s", g[i].tz_rate);
		json_double(j, "clock_per_s", g[i].clock_rate);
		json_i64(j, "busiest_pid", g[i].busiest);
		if (g[i].gone)
			json_bool(j, "exited", true);
		json_obj_end(j);
	}
	json_arr_end(j);
}
