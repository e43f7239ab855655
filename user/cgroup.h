/* SPDX-License-Identifier: GPL-2.0 */
/* attach --cgroup and --unit: a cgroup v2 directory and what is in it. */
#ifndef CLOCKTRACE_CGROUP_H
#define CLOCKTRACE_CGROUP_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/*
 * The directory --cgroup PATH (absolute, or below the v2 mount) or --unit
 * NAME (a systemd unit under system.slice) names; NULL after one line.
 */
char *cgroup_target_dir(const char *cgroup, const char *unit);
/*
 * The cgroup ids (their directories' inode numbers) of dir and every
 * cgroup below it, and the processes now in them.  -1 after one line.
 */
int cgroup_scan(const char *dir, uint64_t **ids, size_t *nids, pid_t **pids,
		size_t *npids);

#endif /* CLOCKTRACE_CGROUP_H */
