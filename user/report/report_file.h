/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a report goes (-o FILE), written so that a reader never sees half
 * a report and a failed run leaves an existing file as it was.
 *
 * A regular file is written as a temporary file in the same directory and
 * renamed into place when the report is complete.  The directory is
 * resolved without following a symbolic link planted by another user in a
 * world-writable sticky directory (the rule of fs.protected_symlinks, which
 * may be off), and a symbolic link at FILE itself is never followed.  "-",
 * /dev/stdout, /dev/stderr, /dev/fd/N and files that are not regular files
 * (a device, a FIFO) are written directly.
 *
 * The temporary files are created and renamed by a small keeper process
 * forked while clocktrace still has its privileges: after they are dropped
 * clocktrace may no longer write the directory.  The keeper removes an
 * uncommitted temporary file when clocktrace ends, even by SIGKILL.
 */
#ifndef CLOCKTRACE_REPORT_FILE_H
#define CLOCKTRACE_REPORT_FILE_H

#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>

struct report_file {
	FILE *f;		/* write the report here */
	int fd;			/* under f when it is a temporary file */
	const char *path;	/* -o as given; NULL: the default stream */
	int keeper;		/* socket to the keeper; -1: written directly */
	int write_errno;	/* the first failed write's errno */
	bool published;		/* the temporary file is FILE already */
	bool failed;		/* a write, flush or rename failed */
	bool std_closed;	/* the stream was closed at start */
	int std;		/* 1, 2: it is stdout, stderr; 0: neither */
};

/*
 * -o PATH, or dflt when PATH is NULL.  Returns 0, or EXIT_TOOL_FAILURE
 * after one line on stderr (nothing is created then).
 */
int report_file_open(struct report_file *r, const char *path, FILE *dflt);
/*
 * The stream to write to: after a snapshot, a new temporary file.  NULL
 * once a write failed (said already; the commit will fail).
 */
FILE *report_file_stream(struct report_file *r);
/*
 * A snapshot is complete (OpenMetrics): it replaces the file now, and the
 * next one starts afresh.  Written directly, it is only flushed.  Returns 0
 * or EXIT_TOOL_FAILURE after one line.
 */
int report_file_snapshot(struct report_file *r);
/*
 * A report of a log is complete (text or JSON with -i, top): the file is
 * renamed into place at the first one, and the next ones are appended to
 * it, each flushed whole.  Returns 0 or EXIT_TOOL_FAILURE after one line.
 */
int report_file_publish(struct report_file *r);
/*
 * The report is complete: every write checked, flushed, synced and closed,
 * renamed into place.  Returns 0 or EXIT_TOOL_FAILURE after one line.
 */
int report_file_commit(struct report_file *r);
/* No report after all: an existing file is left as it was. */
void report_file_discard(struct report_file *r);

/*
 * Standard output or error was closed when clocktrace started (its number
 * now holds /dev/null, for PROG and so that no file takes it): the stream
 * that replaces it fails every write, so a report sent there is an error,
 * not a success that reached nowhere.
 */
FILE *report_file_closed_std(int fd);
/*
 * The final flush of a standard stream that carried a report (doctor,
 * --help, --version): 0, or EXIT_TOOL_FAILURE after one line when it
 * could not be written whole (a pipe whose reader left is no failure).
 */
int report_file_finish_std(FILE *f);

#endif /* CLOCKTRACE_REPORT_FILE_H */
