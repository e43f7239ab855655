/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The keeper of a report's temporary files: a process forked while
 * clocktrace is still privileged that creates them in the report's
 * directory, renames them into place, and removes the one left over when
 * clocktrace ends, however it ends.  Its only input is a one-byte command.
 */
#ifndef CLOCKTRACE_REPORT_KEEPER_H
#define CLOCKTRACE_REPORT_KEEPER_H

#include <limits.h>
#include <stdbool.h>
#include <sys/types.h>

struct keeper_target {
	int dirfd;			/* the directory, resolved safely */
	char name[NAME_MAX + 1];	/* the report's name in it */
	bool replace;			/* a file is there: keep its owner, mode */
	bool give;			/* a new file: give it to give_uid */
	uid_t uid;
	gid_t gid;
	mode_t mode;
};

/* Returns the socket to the keeper, or -errno.  t->dirfd stays ours. */
int keeper_start(const struct keeper_target *t);
/* A new, empty temporary file, open for writing; or -errno. */
int keeper_new_temp(int sock);
/* The temporary file becomes the report: 0 or -errno. */
int keeper_commit(int sock);
/* Removes an uncommitted temporary file, waits for it, closes sock. */
void keeper_stop(int sock);

#endif /* CLOCKTRACE_REPORT_KEEPER_H */
