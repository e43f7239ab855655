// SPDX-License-Identifier: GPL-2.0
/*
 * Path resolution one component at a time, so that each symbolic link is
 * seen, with the directory it sits in, before it is followed.  ".." is
 * opened relative to the directory reached so far, as the kernel does.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "safe_path.h"
#include "util.h"

#define MAX_LINKS	40	/* the kernel's MAXSYMLINKS */

/* Would fs.protected_symlinks let US follow LINK, found in directory DIR? */
static bool may_follow_link(const struct stat *dir, const struct stat *link,
			    uid_t us)
{
	bool sticky_shared = (dir->st_mode & S_ISVTX) &&
			     (dir->st_mode & S_IWOTH);

	return !sticky_shared || link->st_uid == us ||
	       link->st_uid == dir->st_uid;
}

/* Prepends TARGET and a slash to the path still to resolve, in place. */
static int splice_link(char *rest, size_t size, const char *target)
{
	size_t tlen = strlen(target), rlen = strlen(rest);

	if (tlen + 1 + rlen + 1 > size)
		return -ENAMETOOLONG;
	memmove(rest + tlen + 1, rest, rlen + 1);
	memcpy(rest, target, tlen);
	rest[tlen] = '/';
	return 0;
}

/* Replaces *fd by a descriptor of "/" (an absolute link restarts there). */
static int restart_at_root(int *fd)
{
	int root = open("/", O_PATH | O_DIRECTORY | O_CLOEXEC);

	if (root < 0)
		return -errno;
	close(*fd);
	*fd = root;
	return 0;
}

/*
 * COMP is a symbolic link (open as LINK) in the directory open as *FD:
 * check it may be followed and put its target in front of REST.
 */
static int follow_link(int *fd, int link, char *rest, size_t size,
		       uid_t *link_uid)
{
	char target[PATH_MAX];
	struct stat dst, lst;
	ssize_t n;

	if (fstat(*fd, &dst) || fstat(link, &lst))
		return -errno;
	if (!may_follow_link(&dst, &lst, geteuid())) {
		*link_uid = lst.st_uid;
		return -EPERM;
	}
	n = readlinkat(link, "", target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	if (!n)
		return -ENOENT;
	target[n] = '\0';
	if (target[0] == '/') {
		int err = restart_at_root(fd);

		if (err)
			return err;
	}
	return splice_link(rest, size, target);
}

/* Takes the next component off the front of REST into COMP. */
static int next_component(char *rest, char *comp, size_t size)
{
	size_t skip = strspn(rest, "/"), len = strcspn(rest + skip, "/");

	if (len >= size)
		return -ENAMETOOLONG;
	memcpy(comp, rest + skip, len);
	comp[len] = '\0';
	memmove(rest, rest + skip + len, strlen(rest + skip + len) + 1);
	return len;
}

/* One step from the directory *FD into COMP; returns 0 or -errno. */
static int step(int *fd, const char *comp, char *rest, size_t size,
		int *links, uid_t *link_uid)
{
	int next = openat(*fd, comp, O_PATH | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int err = 0;

	if (next < 0)
		return -errno;
	if (fstat(next, &st))
		err = -errno;
	else if (S_ISLNK(st.st_mode))
		err = ++*links > MAX_LINKS ? -ELOOP :
		      follow_link(fd, next, rest, size, link_uid);
	else if (!S_ISDIR(st.st_mode))
		err = -ENOTDIR;
	else {
		close(*fd);
		*fd = next;
		return 0;
	}
	close(next);
	return err;
}

int open_dir_safely(const char *dir, uid_t *link_uid)
{
	char rest[2 * PATH_MAX], comp[NAME_MAX + 1];
	int fd, len, links = 0, err = 0;

	if (strlen(dir) >= PATH_MAX)
		return -ENAMETOOLONG;
	snprintf(rest, sizeof(rest), "%s", dir);
	fd = open(dir[0] == '/' ? "/" : ".", O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	while (!err && (len = next_component(rest, comp, sizeof(comp))) != 0) {
		if (len < 0)
			err = len;
		else if (strcmp(comp, "."))
			err = step(&fd, comp, rest, sizeof(rest), &links,
				   link_uid);
	}
	if (err) {
		close(fd);
		return err;
	}
	return fd;
}
