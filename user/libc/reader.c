// SPDX-License-Identifier: GPL-2.0
/* The tracer's side of the file reader: see reader.h. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>

#include "reader.h"
#include "sandbox.h"
#include "util.h"

/* Files and devices found hostile: never asked for again. */
#define HOSTILE_MAX	1024
#define ZOMBIES_MAX	16

struct identity {
	uint32_t major, minor;
	uint64_t ino;			/* 0: the whole device */
};

static struct {
	pid_t pid;
	int sock;
	int wake_fd;
	uint32_t next_id;
	bool unavailable;		/* could not be started: do not retry */
	struct identity hostile[HOSTILE_MAX];
	size_t nhostile;
	char *hostile_paths[HOSTILE_MAX];	/* no identity known */
	size_t nhostile_paths;
	pid_t zombies[ZOMBIES_MAX];
	size_t nzombies;
	uint64_t losses[LOSS_MAX];
} rd = { .sock = -1, .wake_fd = -1 };

void reader_file_id(struct reader_file *f, dev_t dev, uint64_t ino)
{
	f->dev_major = major(dev);
	f->dev_minor = minor(dev);
	f->ino = ino;
}

void reader_set_wake_fd(int fd)
{
	rd.wake_fd = fd;
}

void reader_losses(uint64_t losses[LOSS_MAX])
{
	for (int i = LOSS_READER_STALLED; i <= LOSS_READER_SKIPPED; i++)
		losses[i] = rd.losses[i];
}

static bool has_identity(const struct reader_file *f)
{
	return f->ino || f->dev_major || f->dev_minor;
}

/* By identity, or by the path of a request that had none. */
static bool is_hostile(const struct reader_file *f)
{
	for (size_t i = 0; has_identity(f) && i < rd.nhostile; i++) {
		const struct identity *h = &rd.hostile[i];

		if (h->major == f->dev_major && h->minor == f->dev_minor &&
		    (!h->ino || h->ino == f->ino))
			return true;
	}
	for (size_t i = 0; i < rd.nhostile_paths; i++)
		if (!strcmp(rd.hostile_paths[i], f->path))
			return true;
	return false;
}

/* f: the request's file, asked reports whether it came with an identity. */
static void mark_hostile(const struct reader_file *f, bool asked_by_identity,
			 bool whole_device)
{
	if (has_identity(f) && rd.nhostile < HOSTILE_MAX)
		rd.hostile[rd.nhostile++] = (struct identity){
			f->dev_major, f->dev_minor, whole_device ? 0 : f->ino,
		};
	if (!asked_by_identity && rd.nhostile_paths < HOSTILE_MAX)
		rd.hostile_paths[rd.nhostile_paths++] = xstrdup(f->path);
}

static void reap_zombies(void)
{
	size_t kept = 0;

	for (size_t i = 0; i < rd.nzombies; i++)
		if (waitpid(rd.zombies[i], NULL, WNOHANG) == 0)
			rd.zombies[kept++] = rd.zombies[i];
	rd.nzombies = kept;
}

/*
 * SIGKILL ends a reader blocked in a FUSE request too (the kernel waits
 * for those killably); it is reaped later, never waited for here.
 */
static void kill_worker(void)
{
	if (rd.pid > 0) {
		kill(rd.pid, SIGKILL);
		if (waitpid(rd.pid, NULL, WNOHANG) == 0 &&
		    rd.nzombies < ZOMBIES_MAX)
			rd.zombies[rd.nzombies++] = rd.pid;
	}
	if (rd.sock >= 0)
		close(rd.sock);
	rd.pid = 0;
	rd.sock = -1;
	reap_zombies();
}

/*
 * Waited for 200 ms at most: a reader stuck in a FUSE request sleeps in
 * the kernel until its server answers, SIGKILL or not.  What is left is
 * reaped by init once we are gone.
 */
void reader_stop(void)
{
	kill_worker();
	for (int i = 0; i < 40 && rd.nzombies; i++) {
		usleep(5000);
		reap_zombies();
	}
	rd.nzombies = 0;
}

/* The child: only the socket stays open, as READER_FD. */
static void exec_worker(int sock)
{
	static char arg0[] = "clocktrace-reader", arg1[] = READER_ARGV1;
	char *argv[] = { arg0, arg1, NULL };
	sigset_t none;

	int null;

	if (dup2(sock, READER_FD) < 0)
		_exit(127);
	/* stderr stays: a sanitizer's report. */
	null = open("/dev/null", O_RDWR);
	if (null <= READER_FD || dup2(null, 0) < 0 || dup2(null, 1) < 0)
		_exit(127);
	syscall(SYS_close_range, READER_FD + 1, ~0U, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGPIPE, SIG_DFL);
	sandbox_prepare_exec();
	execv("/proc/self/exe", argv);
	_exit(127);
}

static int start_worker(void)
{
	int sv[2];
	pid_t pid;

	if (rd.unavailable)
		return -1;
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv))
		goto fail;
	pid = fork();
	if (pid < 0) {
		close(sv[0]);
		close(sv[1]);
		goto fail;
	}
	if (pid == 0) {
		close(sv[0]);
		exec_worker(sv[1]);
	}
	close(sv[1]);
	rd.pid = pid;
	rd.sock = sv[0];
	return 0;
fail:
	ct_warn("cannot start the file reader: %s", strerror(errno));
	rd.unavailable = true;
	return -1;
}

static int deadline_ms(void)
{
	const char *s = getenv("CLOCKTRACE_READER_DEADLINE_MS");
	int ms = s ? atoi(s) : 0;

	return ms > 0 ? ms : READER_DEADLINE_MS;
}

/* One message and the descriptor it may carry (closed if not wanted). */
static ssize_t recv_reply(struct reader_reply *rep, void *data, size_t size,
			  int *fd)
{
	char buf[sizeof(*rep) + RD_DATA_MAX];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { buf, sizeof(buf) };
	struct msghdr msg = {
		.msg_iov = &iov, .msg_iovlen = 1,
		.msg_control = ctl.buf, .msg_controllen = sizeof(ctl.buf),
	};
	struct cmsghdr *c;
	ssize_t n = recvmsg(rd.sock, &msg, MSG_CMSG_CLOEXEC);

	if (fd)
		*fd = -1;
	if (n < (ssize_t)sizeof(*rep))
		return -1;
	for (c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
		int got;

		if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
			continue;
		memcpy(&got, CMSG_DATA(c), sizeof(got));
		if (fd && *fd < 0)
			*fd = got;
		else
			close(got);
	}
	memcpy(rep, buf, sizeof(*rep));
	if (rep->len > (size_t)n - sizeof(*rep) || rep->len > size)
		rep->len = 0;
	if (data && rep->len)
		memcpy(data, buf + sizeof(*rep), rep->len);
	return n;
}

/* The request's file as the reader found it, for marking it hostile. */
static void note_opened(struct reader_file *f, const struct reader_reply *rep)
{
	f->dev_major = rep->dev_major;
	f->dev_minor = rep->dev_minor;
	f->ino = rep->ino;
}

/* Gave up on a request: the reader goes, and its file is not asked again. */
static int give_up(const struct reader_req *req, struct reader_file *f,
		   bool opened, int loss)
{
	kill_worker();
	rd.losses[loss]++;
	mark_hostile(f, has_identity(&req->file), !opened);
	return loss == LOSS_READER_CRASHED ? -EIO : -ETIMEDOUT;
}

static int wait_reply(const struct reader_req *req, struct reader_reply *rep,
		      void *data, size_t size, int *fd)
{
	struct reader_file f = req->file;
	uint64_t end = now_ns() + deadline_ms() * 1000000ULL;
	bool opened = false;

	for (;;) {
		struct pollfd p[2] = {
			{ .fd = rd.sock, .events = POLLIN },
			{ .fd = rd.wake_fd, .events = POLLIN },
		};
		uint64_t now = now_ns();
		int n;

		if (now >= end)
			return give_up(req, &f, opened, opened ? LOSS_READER_TIMEOUT :
						   LOSS_READER_STALLED);
		n = poll(p, rd.wake_fd >= 0 ? 2 : 1,
			 (int)((end - now) / 1000000) + 1);
		if (n < 0 && errno != EINTR)
			return give_up(req, &f, opened, LOSS_READER_CRASHED);
		/* The loop has a signal to act on: this answer can wait. */
		if (n > 0 && (p[1].revents & POLLIN)) {
			give_up(req, &f, opened, LOSS_READER_SKIPPED);
			return -EINTR;
		}
		if (n <= 0 || !(p[0].revents & (POLLIN | POLLHUP | POLLERR)))
			continue;
		if (recv_reply(rep, data, size, fd) < 0)
			return give_up(req, &f, opened, LOSS_READER_CRASHED);
		if (rep->id != req->id)
			continue;
		if (rep->kind == RD_OPENED) {
			opened = true;
			note_opened(&f, rep);
			continue;
		}
		return rep->status;
	}
}

/*
 * One request, answered or given up within the deadline.  The reply's
 * data (size bytes at most) and descriptor, when wanted, are the caller's.
 */
static int call_len(struct reader_req *req, size_t len,
		    struct reader_reply *rep, void *data, size_t size, int *fd)
{
	if (fd)
		*fd = -1;
	if (is_hostile(&req->file)) {
		rd.losses[LOSS_READER_SKIPPED]++;
		return -EPERM;
	}
	if (rd.sock < 0 && start_worker())
		return -ENOSYS;
	req->id = ++rd.next_id;
	if (send(rd.sock, req, len, MSG_NOSIGNAL) != (ssize_t)len) {
		/* Died between two requests: once more with a new one. */
		kill_worker();
		if (start_worker() ||
		    send(rd.sock, req, len, MSG_NOSIGNAL) != (ssize_t)len)
			return -EIO;
	}
	memset(rep, 0, sizeof(*rep));
	return wait_reply(req, rep, data, size, fd);
}

static int call(struct reader_req *req, struct reader_reply *rep, void *data,
		size_t size, int *fd)
{
	return call_len(req, sizeof(*req), rep, data, size, fd);
}

static struct reader_req *new_req(enum reader_op op,
				  const struct reader_file *f)
{
	struct reader_req *req = xcalloc(1, sizeof(*req));

	req->op = op;
	req->file = *f;
	req->file.path[sizeof(req->file.path) - 1] = '\0';
	return req;
}

int reader_libc_plan(const struct reader_file *f, struct reader_libc_plan *p,
		     int *fd)
{
	struct reader_req *req = new_req(RD_LIBC_PLAN, f);
	struct reader_reply rep;
	int err = call(req, &rep, p, sizeof(*p), fd);

	free(req);
	if (!err && (rep.len != sizeof(*p) || *fd < 0))
		err = -EPROTO;
	p->dev = makedev(rep.dev_major, rep.dev_minor);
	p->ino = rep.ino;
	p->flags = rep.flags;
	if (err && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	p->path[sizeof(p->path) - 1] = '\0';
	return err;
}

int reader_elf_info(pid_t pid, const char *path, struct reader_elf_info *out)
{
	struct reader_file f = { .pid = pid };
	struct reader_req *req;
	struct reader_reply rep;
	int err;

	snprintf(f.path, sizeof(f.path), "%s", path);
	req = new_req(RD_ELF_INFO, &f);
	err = call(req, &rep, out, sizeof(*out), NULL);
	free(req);
	if (!err && rep.len != sizeof(*out))
		err = -EPROTO;
	out->interp[sizeof(out->interp) - 1] = '\0';
	return err;
}

int reader_lang_file(const struct reader_file *f, uint32_t lang,
		     struct reader_lang_file *out, int *fd, dev_t *dev,
		     uint64_t *ino)
{
	struct reader_req *req = new_req(RD_LANG_FILE, f);
	struct reader_reply rep;
	int err;

	req->arg = lang;
	err = call(req, &rep, out, sizeof(*out), fd);
	free(req);
	if (!err && (rep.len != sizeof(*out) || *fd < 0))
		err = -EPROTO;
	if (err && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	*dev = makedev(rep.dev_major, rep.dev_minor);
	*ino = rep.ino;
	out->flags = rep.flags;
	return err;
}

int reader_hold(const struct reader_file *f)
{
	struct reader_req *req = new_req(RD_HOLD, f);
	struct reader_reply rep;
	int err = call(req, &rep, NULL, 0, NULL);

	free(req);
	return err;
}

/* The next NUL-terminated string of data[*at..len), or NULL past it. */
static char *next_str(const char *data, size_t len, size_t *at)
{
	const char *s = data + *at, *end;

	if (*at >= len)
		return NULL;
	end = memchr(s, '\0', len - *at);
	if (!end)
		return NULL;
	*at += end - s + 1;
	return end > s ? xstrdup(s) : NULL;
}

/* The next string, NULL when empty; false past the data's end. */
static bool take_str(const char *data, size_t len, size_t *at, char **out)
{
	size_t was = *at;

	*out = next_str(data, len, at);
	return *at > was;
}

static void drop_frames(struct reader_names *out, size_t i)
{
	for (size_t k = 0; k < RD_INLINE_MAX; k++) {
		free(out->frames[i][k].function);
		free(out->frames[i][k].file);
	}
	memset(out->frames[i], 0, sizeof(out->frames[i]));
	out->nframes[i] = 0;
	free(out->symbol[i]);
	out->symbol[i] = NULL;
}

/*
 * Offset i's frames (RD_SYM_FRAMES); false when the reply ends or lies,
 * and then none of offset i's names are kept.
 */
static bool take_frames(const char *data, size_t len, size_t *at,
			struct reader_names *out, size_t i)
{
	uint8_t n;

	if (*at >= len)
		return false;
	n = (uint8_t)data[(*at)++];
	for (uint8_t k = 0; k < n; k++) {
		struct reader_frame *f = &out->frames[i][k];

		if (k >= RD_INLINE_MAX ||
		    !take_str(data, len, at, &f->function) ||
		    !take_str(data, len, at, &f->file) ||
		    *at + sizeof(f->line) > len) {
			drop_frames(out, i);
			return false;
		}
		memcpy(&f->line, data + *at, sizeof(f->line));
		*at += sizeof(f->line);
	}
	out->nframes[i] = n;
	return true;
}

static int symbolize(const struct reader_file *f, const uint64_t *offs,
		     size_t n, struct reader_names *out, uint32_t arg)
{
	struct reader_req *req = new_req(RD_SYMBOLIZE, f);
	char *data = xcalloc(1, RD_DATA_MAX);
	struct reader_reply rep;
	size_t at = 0;
	int err;

	memset(out, 0, sizeof(*out));
	if (n > RD_OFFS_MAX)
		n = RD_OFFS_MAX;
	req->noffs = n;
	req->arg = arg;
	memcpy(req->offs, offs, n * sizeof(*offs));
	err = call(req, &rep, data, RD_DATA_MAX, NULL);
	if (!err) {
		out->build_id = next_str(data, rep.len, &at);
		for (size_t i = 0; i < n; i++) {
			out->symbol[i] = next_str(data, rep.len, &at);
			if (!(arg & RD_SYM_FRAMES))
				out->source[i] = next_str(data, rep.len, &at);
			else if (!take_frames(data, rep.len, &at, out, i))
				break;
		}
	}
	free(data);
	free(req);
	return err;
}

int reader_symbolize(const struct reader_file *f, const uint64_t *offs,
		     size_t n, struct reader_names *out)
{
	return symbolize(f, offs, n, out, 0);
}

int reader_symbolize_frames(const struct reader_file *f, const uint64_t *offs,
			    size_t n, struct reader_names *out)
{
	return symbolize(f, offs, n, out, RD_SYM_FRAMES);
}

void reader_names_free(struct reader_names *n)
{
	free(n->build_id);
	for (size_t i = 0; i < RD_OFFS_MAX; i++) {
		free(n->symbol[i]);
		free(n->source[i]);
		for (size_t k = 0; k < n->nframes[i]; k++) {
			free(n->frames[i][k].function);
			free(n->frames[i][k].file);
		}
	}
	memset(n, 0, sizeof(*n));
}

int reader_unwind(struct reader_unwind_req *u, uint64_t (*pcs)[RD_UNWIND_FRAMES],
		  uint32_t *nframes)
{
	char *data = xcalloc(1, RD_DATA_MAX);
	struct reader_reply rep;
	size_t at = 0;
	int err;

	u->req.op = RD_UNWIND;
	u->req.file.path[sizeof(u->req.file.path) - 1] = '\0';
	err = call_len(&u->req, sizeof(*u), &rep, data, RD_DATA_MAX, NULL);
	for (uint32_t i = 0; i < u->nstacks; i++) {
		uint32_t n = 0;

		if (!err && at + sizeof(n) <= rep.len)
			memcpy(&n, data + at, sizeof(n));
		at += sizeof(n);
		if (n > RD_UNWIND_FRAMES || at + n * sizeof(uint64_t) > rep.len)
			n = 0;
		memcpy(pcs[i], data + at, n * sizeof(uint64_t));
		at += n * sizeof(uint64_t);
		nframes[i] = n;
	}
	free(data);
	return err;
}
