// SPDX-License-Identifier: GPL-2.0
/*
 * The cgroup v2 hierarchy is found in /proc/mounts: /sys/fs/cgroup, or
 * /sys/fs/cgroup/unified on hybrid hosts.  A cgroup's id, which the BPF
 * side compares with its cgroups' kernfs ids, is its directory's inode
 * number.
 */
#include <errno.h>
#include <fcntl.h>
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

/* Read once: the mount does not move while we run. */
static const char *cgroup2_mount_cached(void)
{
	static char *mnt;
	static bool looked;

	if (!looked) {
		mnt = cgroup2_mount();
		looked = true;
	}
	return mnt;
}

/*
 * Only root may make a child here: the directory is root's and no other
 * user may write it (mode bits; cgroupfs has no ACLs).
 */
static bool only_root_writes(int dirfd, const char *name)
{
	struct stat st;

	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW) ||
	    !S_ISDIR(st.st_mode) || st.st_uid != 0)
		return false;
	if (st.st_mode & S_IWOTH)
		return false;
	return !(st.st_mode & S_IWGRP) || st.st_gid == 0;
}

bool cgroup_made_by_root(const char *cg)
{
	const char *mnt = cgroup2_mount_cached();
	char *copy, *part, *save = NULL, *dir;
	bool root = true;

	if (!mnt || !cg || cg[0] != '/')
		return false;
	copy = xstrdup(cg);
	dir = xstrdup(mnt);
	for (part = strtok_r(copy, "/", &save); part && root;
	     part = strtok_r(NULL, "/", &save)) {
		char *next = xasprintf("%s/%s", dir, part);

		root = strcmp(part, ".") && strcmp(part, "..") &&
		       only_root_writes(AT_FDCWD, next);
		free(dir);
		dir = next;
	}
	free(dir);
	free(copy);
	return root;
}

static bool is_dir(const char *path, uint64_t *ino)
{
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode))
		return false;
	if (ino)
		*ino = st.st_ino;
	return true;
}

/*
 * PATH below the mount, each component checked: "..", "." and empty ones
 * would make the level the kernel compares differ from the real one.
 */
static int split_target(struct cgroup_target *t, const char *mnt,
			const char *rel)
{
	char *copy = xstrdup(rel), *part, *save = NULL, *parent;
	int err = 0;

	t->dir = xstrdup(mnt);
	parent = xstrdup(mnt);
	for (part = strtok_r(copy, "/", &save); part && !err;
	     part = strtok_r(NULL, "/", &save)) {
		if (!strcmp(part, ".") || !strcmp(part, "..") ||
		    strlen(part) >= sizeof(t->name)) {
			err = -1;
			break;
		}
		free(parent);
		parent = t->dir;
		t->dir = xasprintf("%s/%s", parent, part);
		snprintf(t->name, sizeof(t->name), "%s", part);
		t->level++;
	}
	if (!err && t->level && !is_dir(parent, &t->parent_id))
		err = -1;
	free(parent);
	free(copy);
	return err;
}

/* A path under the mount as given, or one relative to the mount. */
static const char *below_mount(const char *cgroup, const char *mnt)
{
	size_t mlen = strlen(mnt);

	if (!strncmp(cgroup, mnt, mlen) &&
	    (cgroup[mlen] == '/' || !cgroup[mlen]))
		return cgroup + mlen;
	return cgroup;
}

struct cgroup_target *cgroup_target_resolve(const char *cmd,
					    const char *cgroup,
					    const char *unit, bool must_exist)
{
	struct cgroup_target *t = xcalloc(1, sizeof(*t));
	char *mnt = cgroup2_mount(), *rel = NULL, safe[256];

	if (!mnt) {
		ct_warn("%s: no cgroup v2 hierarchy is mounted", cmd);
		free(t);
		return NULL;
	}
	if (unit)
		rel = xasprintf("system.slice/%s%s", unit,
				strchr(unit, '.') ? "" : ".service");
	else
		rel = xstrdup(below_mount(cgroup, mnt));
	if (!split_target(t, mnt, rel))
		t->exists = is_dir(t->dir, NULL);
	if (t->exists || (!must_exist && t->level && t->parent_id)) {
		free(mnt);
		free(rel);
		return t;
	}
	/* Echoed back: a newline in it must not split the line. */
	ct_warn("%s: no cgroup v2 directory %s/%s", cmd, mnt,
	     escape_arg(safe, sizeof(safe), rel + strspn(rel, "/")));
	free(mnt);
	free(rel);
	cgroup_target_free(t);
	return NULL;
}

void cgroup_target_free(struct cgroup_target *t)
{
	if (!t)
		return;
	free(t->dir);
	free(t);
}

#define ID_CACHE_LEN	64

static struct {
	uint64_t id[ID_CACHE_LEN];
	char *path[ID_CACHE_LEN];
	unsigned int next;
	uint64_t want;
	char *found;
	size_t mnt_len;
} ids;

static int find_id(const char *path, const struct stat *st, int type,
		   struct FTW *ftw)
{
	(void)ftw;
	if (type != FTW_D || st->st_ino != ids.want)
		return 0;
	ids.found = xstrdup(path[ids.mnt_len] ? path + ids.mnt_len : "/");
	return 1;
}

/* Short-lived processes are gone before /proc/PID/cgroup can be read. */
char *cgroup_path_of_id(uint64_t id)
{
	char *mnt;
	unsigned int i;

	for (i = 0; i < ID_CACHE_LEN; i++)
		if (ids.path[i] && ids.id[i] == id)
			return xstrdup(ids.path[i]);
	mnt = id ? cgroup2_mount() : NULL;
	if (!mnt)
		return NULL;
	ids.want = id;
	ids.found = NULL;
	ids.mnt_len = strlen(mnt);
	nftw(mnt, find_id, 16, FTW_PHYS | FTW_MOUNT);
	free(mnt);
	if (!ids.found)
		return NULL;
	i = ids.next++ % ID_CACHE_LEN;
	free(ids.path[i]);
	ids.id[i] = id;
	ids.path[i] = ids.found;
	return xstrdup(ids.found);
}

static struct {
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
	(void)st;
	if (type == FTW_D)
		add_procs(path);
	return 0;
}

int cgroup_scan(const char *cmd, const char *dir, pid_t **pids, size_t *npids)
{
	memset(&scan, 0, sizeof(scan));
	if (nftw(dir, visit, 16, FTW_PHYS | FTW_MOUNT)) {
		ct_warn("%s: cannot read %s: %s", cmd, dir, strerror(errno));
		free(scan.pids);
		return -1;
	}
	*pids = scan.pids;
	*npids = scan.npids;
	return 0;
}
