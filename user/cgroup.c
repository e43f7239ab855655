// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup v2 hierarchy is found in /proc/mounts: /sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on hybrid hosts.  A cgroup's id, which the BPF
 * side compares with bpf_get_current_cgroup_id(), is its directory's
 * inode number.
 */
#include <errno.h>
#include <ftw.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgroup.h"
#include "procfs.h"
#include "util.h"

static char *cgroup2_mount(void)
{
	char *buf = read_file("/proc/mounts", 1 << 20, NULL), *line, *save = NULL;
	char *found = NULL;

	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line && !found;
	     line = strtok_r(NULL, "\n", &save)) {
		char dev[256], dir[4096], type[64];

		if (sscanf(line, "%255s %4095s %63s", dev, dir, type) == 3 &&
		    !strcmp(type, "cgroup2"))
			found = xstrdup(dir);
	}
	free(buf);
	return found;
}

static bool is_dir(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

char *cgroup_target_dir(const char *cgroup, const char *unit)
{
	char *mnt = cgroup2_mount(), *dir = NULL;
	size_t mlen;

	if (!mnt) {
		ct_warn("attach: no cgroup v2 hierarchy is mounted");
		return NULL;
	}
	mlen = strlen(mnt);
	if (unit && asprintf(&dir, "%s/system.slice/%s%s", mnt, unit,
			     strchr(unit, '.') ? "" : ".service") < 0)
		dir = NULL;
	else if (!unit && !strncmp(cgroup, mnt, mlen) &&
		 (cgroup[mlen] == '/' || !cgroup[mlen]))
		dir = xstrdup(cgroup);
	else if (!unit && asprintf(&dir, "%s/%s", mnt,
				   cgroup + strspn(cgroup, "/")) < 0)
		dir = NULL;
	free(mnt);
	if (dir && !strstr(dir, "/../") && is_dir(dir))
		return dir;
	ct_warn("attach: no cgroup v2 directory %s", dir ? dir : "?");
	free(dir);
	return NULL;
}

static struct {
	uint64_t *ids;
	size_t nids;
	pid_t *pids;
	size_t npids;
} scan;

static void add_procs(const char *dir)
{
	char path[4200], *buf, *line, *save = NULL;

	snprintf(path, sizeof(path), "%s/cgroup.procs", dir);
	buf = read_file(path, 1 << 22, NULL);
	for (line = buf ? strtok_r(buf, "\n", &save) : NULL; line;
	     line = strtok_r(NULL, "\n", &save)) {
		uint64_t pid;

		if (parse_u64(line, 1, 4194304, &pid))
			continue;
		scan.pids = xrealloc(scan.pids, scan.npids + 1, sizeof(pid_t));
		scan.pids[scan.npids++] = pid;
	}
	free(buf);
}

static int visit(const char *path, const struct stat *st, int type,
		 struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D)
		return 0;
	scan.ids = xrealloc(scan.ids, scan.nids + 1, sizeof(*scan.ids));
	scan.ids[scan.nids++] = st->st_ino;
	add_procs(path);
	return 0;
}

int cgroup_scan(const char *dir, uint64_t **ids, size_t *nids, pid_t **pids,
		size_t *npids)
{
	memset(&scan, 0, sizeof(scan));
	if (nftw(dir, visit, 16, FTW_PHYS | FTW_MOUNT)) {
		ct_warn("attach: cannot read %s: %s", dir, strerror(errno));
		free(scan.ids);
		free(scan.pids);
		return -1;
	}
	*ids = scan.ids;
	*nids = scan.nids;
	*pids = scan.pids;
	*npids = scan.npids;
	return 0;
}
