// SPDX-License-Identifier: GPL-2.0
/*
 * -o FILE for every command.  Every write is checked (through a stdio
 * cookie that keeps the first error), and so are the flush, the sync and
 * the close: a report that could not be written whole is a failure, said
 * in one line, never a success with half a file.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "report_file.h"
#include "report_keeper.h"
#include "safe_path.h"
#include "util.h"

struct sink {
	int fd;
	struct report_file *r;
};

static ssize_t sink_write(void *cookie, const char *buf, size_t size)
{
	struct sink *k = cookie;
	size_t done = 0;

	while (done < size) {
		ssize_t n = write(k->fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			if (!k->r->write_errno)
				k->r->write_errno = n < 0 ? errno : ENOSPC;
			/* stdio sets the stream's error flag on -1. */
			return -1;
		}
		done += n;
	}
	return size;
}

static int sink_close(void *cookie)
{
	struct sink *k = cookie;
	int err = close(k->fd);

	if (err && !k->r->write_errno)
		k->r->write_errno = errno;
	free(k);
	return err;
}

/* A stream over FD whose write errors are remembered in r. */
static FILE *checked_stream(struct report_file *r, int fd)
{
	static const cookie_io_functions_t io = {
		.write = sink_write, .close = sink_close,
	};
	struct sink *k = xcalloc(1, sizeof(*k));
	FILE *f;

	k->fd = fd;
	k->r = r;
	f = fopencookie(k, "w", io);
	if (!f) {
		close(fd);
		free(k);
	}
	return f;
}

/* The streams that stand for a standard output or error closed at start. */
static FILE *closed_std[2];
/* A report on stdout or stderr that failed, said already: once is enough. */
static bool std_failure_said[2];

static bool is_closed_std(FILE *f)
{
	return f && (f == closed_std[0] || f == closed_std[1]);
}

static ssize_t closed_write(void *cookie, const char *buf, size_t size)
{
	(void)cookie;
	(void)buf;
	(void)size;
	errno = EBADF;
	return -1;
}

FILE *report_file_closed_std(int fd)
{
	static const cookie_io_functions_t io = { .write = closed_write };
	FILE *f = fopencookie(NULL, "w", io);

	if (f && (fd == 1 || fd == 2))
		closed_std[fd - 1] = f;
	return f;
}

static int fail(struct report_file *r, int err, const char *why)
{
	char safe[256];

	if (!why && r->std_closed)
		why = r->std == 1 ?
		      "standard output was closed when clocktrace started" :
		      "standard error was closed when clocktrace started";

	ct_warn("cannot write %s: %s",
	     r->path ? escape_arg(safe, sizeof(safe), r->path) : "the report",
	     why ? why : strerror(err));
	r->failed = true;
	if (r->std)
		std_failure_said[r->std - 1] = true;
	return EXIT_TOOL_FAILURE;
}

/* "-", /dev/stdout, /dev/stderr, /dev/fd/N: a descriptor we already hold. */
static int std_stream(struct report_file *r, const char *path)
{
	uint64_t fd;
	int dup;

	if (!strcmp(path, "-") || !strcmp(path, "/dev/stdout")) {
		r->f = stdout;
		return 1;
	}
	if (!strcmp(path, "/dev/stderr")) {
		r->f = stderr;
		return 1;
	}
	if (strncmp(path, "/dev/fd/", 8) || parse_u64(path + 8, 0, INT32_MAX, &fd))
		return 0;
	if (fd == 1 || fd == 2) {
		r->f = fd == 1 ? stdout : stderr;
		return 1;
	}
	dup = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dup < 0)
		return -errno;
	r->f = checked_stream(r, dup);
	return r->f ? 1 : -ENOMEM;
}

/* PATH split at its last slash; the name must be a file's name. */
static int split_path(const char *path, char *dir, size_t size, char *name)
{
	const char *slash = strrchr(path, '/');
	const char *base = slash ? slash + 1 : path;

	if (!*base || !strcmp(base, ".") || !strcmp(base, ".."))
		return -EISDIR;
	if (strlen(base) > NAME_MAX)
		return -ENAMETOOLONG;
	strcpy(name, base);
	if (!slash)
		snprintf(dir, size, ".");
	else if (slash == path)
		snprintf(dir, size, "/");
	else if ((size_t)(slash - path) >= size)
		return -ENAMETOOLONG;
	else
		snprintf(dir, size, "%.*s", (int)(slash - path), path);
	return 0;
}

/* Under sudo, a new report belongs to the user who asked for it. */
static void sudo_owner(struct keeper_target *t)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	uint64_t uid, gid;

	if (geteuid() || !u || !g || parse_u64(u, 0, UINT32_MAX - 1, &uid) ||
	    parse_u64(g, 0, UINT32_MAX - 1, &gid))
		return;
	t->give = true;
	t->uid = uid;
	t->gid = gid;
}

/* A device or a FIFO someone named: written directly, never renamed. */
static int open_special(struct report_file *r, int dirfd, const char *name)
{
	int fd = openat(dirfd, name, O_WRONLY | O_NOFOLLOW | O_NOCTTY |
			O_CLOEXEC);

	if (fd < 0)
		return fail(r, errno, NULL);
	r->f = checked_stream(r, fd);
	return r->f ? 0 : fail(r, ENOMEM, NULL);
}

/* The first temporary file, now: a directory we cannot write fails early. */
static int start_temp(struct report_file *r, const struct keeper_target *t)
{
	struct stat st;
	int fd;

	r->keeper = keeper_start(t);
	if (r->keeper < 0)
		return fail(r, -r->keeper, NULL);
	fd = keeper_new_temp(r->keeper);
	if (fd < 0)
		return fail(r, -fd, NULL);
	if (t->give && !fstat(fd, &st) && st.st_uid != t->uid) {
		char safe[256];

		ct_warn("cannot give %s to uid %u",
		     escape_arg(safe, sizeof(safe), r->path),
		     (unsigned int)t->uid);
	}
	r->fd = fd;
	r->f = checked_stream(r, fd);
	return r->f ? 0 : fail(r, ENOMEM, NULL);
}

/*
 * fs.protected_regular's rule: in a world-writable sticky directory, a
 * file that neither we, the directory's owner nor the sudo user own was
 * put there by someone else, to be handed our report (it would keep its
 * owner).  Refused whatever the sysctl says.
 */
static bool planted(struct report_file *r, int dirfd, const struct stat *st)
{
	const char *sudo_uid = getenv("SUDO_UID");
	struct stat dir;
	uint64_t uid;
	char why[128];

	if (fstat(dirfd, &dir) || !(dir.st_mode & S_ISVTX) ||
	    !(dir.st_mode & S_IWOTH) || st->st_uid == geteuid() ||
	    st->st_uid == dir.st_uid)
		return false;
	if (sudo_uid && !parse_u64(sudo_uid, 0, UINT32_MAX - 1, &uid) &&
	    st->st_uid == uid)
		return false;
	snprintf(why, sizeof(why), "it belongs to uid %u and sits in a "
		 "world-writable sticky directory (not replaced)",
		 (unsigned int)st->st_uid);
	fail(r, EPERM, why);
	return true;
}

static int open_in_dir(struct report_file *r, int dirfd, const char *name)
{
	struct keeper_target t = { .dirfd = dirfd };
	struct stat st;

	snprintf(t.name, sizeof(t.name), "%s", name);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (errno != ENOENT)
			return fail(r, errno, NULL);
		sudo_owner(&t);
		return start_temp(r, &t);
	}
	if (S_ISLNK(st.st_mode))
		return fail(r, 0, "it is a symbolic link (not followed)");
	if (planted(r, dirfd, &st))
		return EXIT_TOOL_FAILURE;
	if (S_ISDIR(st.st_mode))
		return fail(r, EISDIR, NULL);
	if (!S_ISREG(st.st_mode))
		return open_special(r, dirfd, name);
	t.replace = true;
	t.uid = st.st_uid;
	t.gid = st.st_gid;
	t.mode = st.st_mode;
	return start_temp(r, &t);
}

int report_file_open(struct report_file *r, const char *path, FILE *dflt)
{
	char dir[PATH_MAX], name[NAME_MAX + 1], why[128];
	uid_t link_uid = 0;
	int err, dirfd;

	memset(r, 0, sizeof(*r));
	r->keeper = r->fd = -1;
	r->path = path;
	r->f = dflt;
	if (!path)
		return 0;
	err = std_stream(r, path);
	if (err)
		return err > 0 ? 0 : fail(r, -err, NULL);
	err = split_path(path, dir, sizeof(dir), name);
	if (err)
		return fail(r, -err, NULL);
	dirfd = open_dir_safely(dir, &link_uid);
	if (dirfd == -EPERM) {
		snprintf(why, sizeof(why), "a symbolic link on its path belongs "
			 "to uid %u and sits in a world-writable sticky "
			 "directory (not followed)", (unsigned int)link_uid);
		return fail(r, EPERM, why);
	}
	if (dirfd < 0)
		return fail(r, -dirfd, NULL);
	err = open_in_dir(r, dirfd, name);
	close(dirfd);
	return err;
}

/*
 * A pipe whose reader went away (| head): it stopped reading by choice;
 * that is no report we failed to write, and no reason for status 125.
 */
static bool reader_left(FILE *f, int write_errno)
{
	struct pollfd p = { .fd = fileno(f), .events = POLLOUT };
	struct stat st;

	if (write_errno == EPIPE)
		return true;
	return p.fd >= 0 && !fstat(p.fd, &st) &&
	       (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode)) &&
	       poll(&p, 1, 0) == 1 && (p.revents & (POLLERR | POLLHUP));
}

/*
 * Every write and the flush of the stream: 0, or the error the report was
 * lost to (a reader of a pipe or socket that left is no error).
 */
static int flush_stream(struct report_file *r)
{
	int err = 0;

	if (fflush(r->f) && !r->write_errno)
		r->write_errno = errno;
	if (ferror(r->f) && !reader_left(r->f, r->write_errno))
		err = r->write_errno ? r->write_errno : EIO;
	r->std_closed = is_closed_std(r->f);
	r->std = r->f == stdout ? 1 : r->f == stderr ? 2 : 0;
	return err;
}

/* Every write, the flush, the sync and the close of the stream. */
static int close_stream(struct report_file *r)
{
	bool std = r->f == stdout || r->f == stderr;
	int err = flush_stream(r);

	if (!std) {
		/* On a file system that reports errors late, fsync does. */
		if (!err && r->fd >= 0 && fsync(r->fd) && errno != EINVAL)
			err = errno;
		if (fclose(r->f) && !err)
			err = r->write_errno ? r->write_errno : EIO;
	} else {
		clearerr(r->f);
	}
	r->f = NULL;
	r->fd = -1;
	return err;
}

/* A new temporary file for the next snapshot (the last one was renamed). */
static int next_temp(struct report_file *r)
{
	int fd = keeper_new_temp(r->keeper);

	if (fd < 0)
		return fail(r, -fd, NULL);
	r->published = false;
	r->fd = fd;
	r->f = checked_stream(r, fd);
	return r->f ? 0 : fail(r, ENOMEM, NULL);
}

FILE *report_file_stream(struct report_file *r)
{
	if (r->failed)
		return NULL;
	if (!r->f && r->keeper >= 0 && next_temp(r))
		return NULL;
	return r->f;
}

int report_file_snapshot(struct report_file *r)
{
	int err;

	if (r->failed)
		return EXIT_TOOL_FAILURE;
	if (!r->f)
		return 0;
	if (r->keeper < 0) {
		fflush(r->f);
		return 0;
	}
	err = close_stream(r);
	if (!err)
		err = -keeper_commit(r->keeper);
	return err ? fail(r, err, NULL) : 0;
}

int report_file_publish(struct report_file *r)
{
	int err;

	if (r->failed)
		return EXIT_TOOL_FAILURE;
	if (!r->f)
		return 0;
	err = flush_stream(r);
	if (err || r->keeper < 0 || r->published)
		return err ? fail(r, err, NULL) : 0;
	/* The open stream goes on writing the same inode, now at FILE. */
	if (fsync(r->fd) && errno != EINVAL)
		err = errno;
	if (!err)
		err = -keeper_commit(r->keeper);
	if (err)
		return fail(r, err, NULL);
	r->published = true;
	return 0;
}

int report_file_commit(struct report_file *r)
{
	int err = 0;

	if (r->failed) {
		report_file_discard(r);
		return EXIT_TOOL_FAILURE;
	}
	/* After an OpenMetrics snapshot nothing may be pending: all is in place. */
	if (r->f) {
		bool pending = r->keeper >= 0 && !r->published;

		err = close_stream(r);
		if (!err && pending)
			err = -keeper_commit(r->keeper);
	}
	keeper_stop(r->keeper);
	r->keeper = -1;
	return err ? fail(r, err, NULL) : 0;
}

void report_file_discard(struct report_file *r)
{
	if (r->f && r->f != stdout && r->f != stderr)
		fclose(r->f);
	else if (r->f)
		fflush(r->f);
	r->f = NULL;
	keeper_stop(r->keeper);
	r->keeper = -1;
}

int report_file_finish_std(FILE *f)
{
	const char *name = f == stdout ? "standard output" : "standard error";
	int err = fflush(f) ? errno : 0;

	if (!ferror(f) || reader_left(f, err))
		return 0;
	clearerr(f);
	if (std_failure_said[f == stderr])
		return EXIT_TOOL_FAILURE;
	if (is_closed_std(f))
		ct_warn("cannot write %s: it was closed when clocktrace started",
			name);
	else
		ct_warn("cannot write %s: %s", name,
			err ? strerror(err) : "a write failed");
	return EXIT_TOOL_FAILURE;
}
