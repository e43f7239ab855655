/* SPDX-License-Identifier: GPL-2.0 */
/* Opening a directory the way a root-owned writer must: no planted links. */
#ifndef CLOCKTRACE_SAFE_PATH_H
#define CLOCKTRACE_SAFE_PATH_H

#include <sys/types.h>

/*
 * The directory DIR as an O_PATH descriptor.  Symbolic links on the way are
 * followed only where fs.protected_symlinks would follow them: a link in a
 * world-writable sticky directory (/tmp) is followed only when it belongs
 * to us or to the directory's owner, so another user cannot redirect a
 * report into a directory of root's.  The rule is applied here whatever
 * the sysctl says.
 *
 * Returns the descriptor, or -errno; -EPERM when such a link was refused,
 * with its owner in *link_uid.
 */
int open_dir_safely(const char *dir, uid_t *link_uid);

#endif /* CLOCKTRACE_SAFE_PATH_H */
