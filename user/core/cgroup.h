/* SPDX-License-Identifier: GPL-2.0 */
/* --cgroup and --unit: a cgroup v2 directory and what is in it. */
#ifndef CLOCKTRACE_CGROUP_H
#define CLOCKTRACE_CGROUP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "clocktrace.h"

/*
 * The target as the kernel side knows it (bpf/targets.bpf.h): by its
 * level, its parent's id and its name, so that it may be created, or
 * removed and created again, after we started.
 */
struct cgroup_target {
	char *dir;			/* its directory under the v2 mount */
	unsigned int level;		/* 0: the root of the hierarchy */
	uint64_t parent_id;		/* the parent directory's inode */
	char name[CGROUP_NAME_LEN];
	bool exists;			/* the directory exists now */
};

/*
 * The target --cgroup PATH (absolute, or below the v2 mount) or --unit
 * NAME (a systemd unit under system.slice) names.  Its parent must exist;
 * itself too when MUST_EXIST.  NULL after one line starting with CMD.
 */
struct cgroup_target *cgroup_target_resolve(const char *cmd,
					    const char *cgroup,
					    const char *unit, bool must_exist);
void cgroup_target_free(struct cgroup_target *t);
/*
 * The v2 path ("/a/b") of the cgroup whose id is ID, NULL when no
 * directory of the hierarchy has it (any more).  Answers are cached: a
 * miss walks the hierarchy once.
 */
char *cgroup_path_of_id(uint64_t id);
/*
 * Whether root alone made the cgroup at v2 path CG ("/a/b", as
 * /proc/PID/cgroup says) and each of its ancestors below the root: every
 * directory owned by uid 0 and writable by no other user.  A cgroup
 * delegated to a user (systemd's Delegate=, a chown) may have children
 * of any name, "docker-<id>.scope" too.  false when one cannot be read.
 */
bool cgroup_made_by_root(const char *cg);
/* The processes now in dir and in every cgroup below it.  -1 after one line. */
int cgroup_scan(const char *cmd, const char *dir, pid_t **pids, size_t *npids);

#endif /* CLOCKTRACE_CGROUP_H */
