// SPDX-License-Identifier: GPL-2.0
/*
 * Why a separate process: clocktrace drops its capabilities once tracing
 * starts, and without CAP_DAC_OVERRIDE uid 0 may not create or rename a
 * file in a directory it does not own (a user's home under sudo).  The
 * keeper, forked before the drop, does exactly three things on request
 * and nothing else: create a temporary file, rename it over the report,
 * remove it.  It is double-forked (not a child clocktrace would wait for,
 * not PROG's sibling) and in a session of its own, ignoring the terminal's
 * signals: only the end of clocktrace, seen as end-of-file, ends it.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/random.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "report_keeper.h"
#include "util.h"

enum { CMD_NEW = 'n', CMD_COMMIT = 'c', CMD_STOP = 's' };

#define KEEPER_SOCK	3
#define KEEPER_DIR	4

struct keeper {
	const struct keeper_target *t;
	char temp[NAME_MAX + 1];	/* "" when there is none */
};

static void remove_temp(struct keeper *k)
{
	if (k->temp[0])
		unlinkat(KEEPER_DIR, k->temp, 0);
	k->temp[0] = '\0';
}

/* Owner and mode: the replaced file's, or the invoking user's for a new one. */
static void set_owner(int fd, const struct keeper_target *t)
{
	if (t->replace) {
		/* Not as root, a file of someone else's cannot stay theirs. */
		if (fchown(fd, t->uid, t->gid) && errno != EPERM)
			return;
		fchmod(fd, t->mode & 0777);
	} else if (t->give && fchown(fd, t->uid, t->gid)) {
		/* The parent sees the owner and says so. */
	}
}

/* A hidden name that no collector's *.prom glob matches. */
static int create_temp(struct keeper *k)
{
	const struct keeper_target *t = k->t;

	remove_temp(k);
	for (int tries = 0; tries < 64; tries++) {
		unsigned int r = 0;
		int fd;

		if (getrandom(&r, sizeof(r), GRND_NONBLOCK) != sizeof(r))
			r ^= (unsigned int)getpid() * 2654435761u + tries;
		snprintf(k->temp, sizeof(k->temp), ".%.200s.%08x.tmp",
			 t->name, r);
		fd = openat(KEEPER_DIR, k->temp, O_WRONLY | O_CREAT | O_EXCL |
			    O_NOFOLLOW | O_CLOEXEC, t->replace ? 0600 : 0644);
		if (fd >= 0) {
			set_owner(fd, t);
			return fd;
		}
		if (errno != EEXIST)
			break;
	}
	k->temp[0] = '\0';
	return -errno;
}

static int commit(struct keeper *k)
{
	if (!k->temp[0])
		return -ENOENT;
	if (renameat(KEEPER_DIR, k->temp, KEEPER_DIR, k->t->name))
		return -errno;
	k->temp[0] = '\0';
	return 0;
}

/* The status, and with it the file when there is one (SCM_RIGHTS). */
static void reply(int sock, int status, int fd)
{
	char ctl[CMSG_SPACE(sizeof(int))] = {};
	struct iovec iov = { .iov_base = &status, .iov_len = sizeof(status) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	if (fd >= 0) {
		struct cmsghdr *c;

		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(int));
	}
	sendmsg(sock, &msg, MSG_NOSIGNAL);
}

static void serve(struct keeper *k)
{
	char cmd;

	while (recv(KEEPER_SOCK, &cmd, 1, 0) == 1) {
		int fd = -1, status = 0;

		if (cmd == CMD_NEW) {
			fd = create_temp(k);
			status = fd < 0 ? fd : 0;
		} else if (cmd == CMD_COMMIT) {
			status = commit(k);
		} else {
			remove_temp(k);
			reply(KEEPER_SOCK, 0, -1);
			return;
		}
		reply(KEEPER_SOCK, status, fd);
		if (fd >= 0)
			close(fd);
	}
	/* clocktrace is gone without a word: nothing half-written stays. */
	remove_temp(k);
}

/* Only the socket and the directory, at known numbers; 0-2 on /dev/null. */
static int settle_fds(int sock, int dirfd)
{
	int null = open("/dev/null", O_RDWR), s, d;

	/* Nothing is written to 0-2; without /dev/null (a bare chroot) they just close. */
	for (int fd = 0; fd <= 2; fd++)
		if (null < 0 || dup2(null, fd) < 0)
			close(fd);
	s = fcntl(sock, F_DUPFD, 16);
	d = fcntl(dirfd, F_DUPFD, 16);
	if (s < 0 || d < 0 || dup2(s, KEEPER_SOCK) < 0 ||
	    dup2(d, KEEPER_DIR) < 0)
		return -1;
	/* Everything else: bats, for one, waits for every holder of fd 3. */
	if (close_range(KEEPER_DIR + 1, ~0u, 0))
		for (int fd = KEEPER_DIR + 1; fd < 4096; fd++)
			close(fd);
	return 0;
}

static void __attribute__((noreturn))
keeper_main(int sock, const struct keeper_target *t)
{
	static const int ignored[] = { SIGINT, SIGQUIT, SIGHUP, SIGTERM,
				       SIGPIPE, SIGTSTP, SIGTTIN, SIGTTOU };
	struct keeper k = { .t = t };
	sigset_t none;

	if (settle_fds(sock, t->dirfd))
		_exit(1);
	setsid();
	for (size_t i = 0; i < ARRAY_SIZE(ignored); i++)
		signal(ignored[i], SIG_IGN);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_NAME, "clocktrace-keep", 0, 0, 0);
	serve(&k);
	_exit(0);
}

int keeper_start(const struct keeper_target *t)
{
	int sv[2], status;
	pid_t pid;

	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		return -errno;
	pid = fork();
	if (pid == 0) {
		close(sv[0]);
		if (fork() == 0)
			keeper_main(sv[1], t);
		_exit(0);
	}
	close(sv[1]);
	if (pid < 0 || waitpid(pid, &status, 0) != pid) {
		close(sv[0]);
		return -EAGAIN;
	}
	return sv[0];
}

/* Sends CMD and reads the status, and a file when one comes with it. */
static int ask(int sock, char cmd, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	int status;
	struct iovec iov = { .iov_base = &status, .iov_len = sizeof(status) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl, .msg_controllen = sizeof(ctl),
	};
	struct cmsghdr *c;

	if (send(sock, &cmd, 1, MSG_NOSIGNAL) != 1)
		return -errno;
	if (recvmsg(sock, &msg, MSG_CMSG_CLOEXEC) != sizeof(status))
		return -EPIPE;
	c = CMSG_FIRSTHDR(&msg);
	if (fd && c && c->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(c), sizeof(int));
	return status;
}

int keeper_new_temp(int sock)
{
	int fd = -1, status = ask(sock, CMD_NEW, &fd);

	if (status) {
		if (fd >= 0)
			close(fd);
		return status;
	}
	return fd >= 0 ? fd : -EPIPE;
}

int keeper_commit(int sock)
{
	return ask(sock, CMD_COMMIT, NULL);
}

void keeper_stop(int sock)
{
	if (sock < 0)
		return;
	ask(sock, CMD_STOP, NULL);
	close(sock);
}
