// SPDX-License-Identifier: GPL-2.0
/*
 * fusestall - a FUSE server that never answers the tracer (issue 23).
 *
 *   fusestall [-t SECONDS] -p PID [-p PID]... MOUNTPOINT NAME=FILE...
 *
 * Mounts a read-only file system at MOUNTPOINT holding a copy of each FILE
 * under NAME (read once at start: a library built for the test, named
 * libc-stall.so, libruby-x.so or python3.11).  Requests made by a PID or
 * one of its descendants are answered; every other request is read and
 * never answered: the kernel keeps its caller waiting, uninterruptibly once
 * the request has been read here, even through SIGKILL, until this server
 * replies or its connection goes (this process ends).  What any local user
 * can do through fusermount.
 *
 * Speaks the kernel's protocol on /dev/fuse itself (linux/fuse.h), no
 * libfuse.  Entry and attribute timeouts are 0: every lookup and stat
 * reaches this server, the tracer's included.
 *
 * Prints "mounted" on stdout once mounted, and on stderr one line per
 * request held.  SIGTERM, SIGINT, SIGHUP or -t SECONDS (the attacker giving
 * up) detach the mount and end it; the held callers then fail (ENOTCONN).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fuse.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/uio.h>

#define MAX_FILES	32
#define MAX_ALLOWED	32
#define MAX_FILE_SIZE	(64 << 20)
/* Room for any request: a WRITE of max_write plus its headers. */
#define MAX_WRITE	(128 << 10)
#define BUF_SIZE	(MAX_WRITE + 4096)
/* Node ids: 1 is the root, file i is FIRST_FILE_NODE + i. */
#define FIRST_FILE_NODE	2

struct served_file {
	const char *name;
	char *data;
	size_t size;
};

struct server {
	int fd;
	const char *mountpoint;
	struct served_file files[MAX_FILES];
	int nfiles;
	pid_t allowed[MAX_ALLOWED];
	int nallowed;
	time_t started;
	unsigned long held;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

__attribute__((noreturn)) static void usage(void)
{
	fputs("usage: fusestall [-t SECONDS] -p PID [-p PID]... MOUNTPOINT "
	      "NAME=FILE...\n", stderr);
	exit(2);
}

__attribute__((noreturn)) static void die(const char *what)
{
	fprintf(stderr, "fusestall: %s: %s\n", what, strerror(errno));
	exit(1);
}

static long number_arg(const char *s)
{
	char *end;
	long v;

	errno = 0;
	v = strtol(s, &end, 10);
	if (errno || !*s || *end || v <= 0)
		usage();
	return v;
}

static void read_whole(const char *path, struct served_file *f)
{
	struct stat st;
	size_t done = 0;
	ssize_t n;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0 || fstat(fd, &st))
		die(path);
	if (!S_ISREG(st.st_mode) || st.st_size > MAX_FILE_SIZE) {
		fprintf(stderr, "fusestall: %s: not a regular file of at most "
			"%d bytes\n", path, MAX_FILE_SIZE);
		exit(1);
	}
	f->size = st.st_size;
	f->data = malloc(f->size ? f->size : 1);
	if (!f->data)
		die("malloc");
	while (done < f->size) {
		n = read(fd, f->data + done, f->size - done);
		if (n <= 0)
			die(path);
		done += n;
	}
	close(fd);
}

/* NAME=FILE: one name of the root directory, no '/', not . or .. */
static void add_file(struct server *s, char *arg)
{
	char *eq = strchr(arg, '=');
	struct served_file *f;

	if (!eq || eq == arg || s->nfiles == MAX_FILES)
		usage();
	*eq = '\0';
	if (memchr(arg, '/', eq - arg) || !strcmp(arg, ".") ||
	    !strcmp(arg, ".."))
		usage();
	f = &s->files[s->nfiles++];
	f->name = arg;
	read_whole(eq + 1, f);
}

static void parse_args(int argc, char **argv, struct server *s, long *limit)
{
	int c;

	while ((c = getopt(argc, argv, "p:t:")) != -1) {
		switch (c) {
		case 'p':
			if (s->nallowed == MAX_ALLOWED)
				usage();
			s->allowed[s->nallowed++] = number_arg(optarg);
			break;
		case 't':
			*limit = number_arg(optarg);
			break;
		default:
			usage();
		}
	}
	if (!s->nallowed || argc - optind < 2)
		usage();
	s->mountpoint = argv[optind++];
	while (optind < argc)
		add_file(s, argv[optind++]);
}

/* Field "Name:" of /proc/PID/status (Tgid, PPid); -1 when gone. */
static long status_field(pid_t pid, const char *name)
{
	char path[64], line[256];
	size_t len = strlen(name);
	long v = -1;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] == ':') {
			v = strtol(line + len + 1, NULL, 10);
			break;
		}
	fclose(f);
	return v;
}

/*
 * The kernel gives the calling thread's id (0 when the caller is in
 * another pid namespace or is the kernel: never allowed).  Allowed: a
 * thread of an allowed process or of one of its descendants.
 */
static int is_allowed(const struct server *s, pid_t tid)
{
	long pid = tid > 0 ? status_field(tid, "Tgid") : -1;

	for (int depth = 0; pid > 0 && depth < 64; depth++) {
		for (int i = 0; i < s->nallowed; i++)
			if (s->allowed[i] == pid)
				return 1;
		pid = status_field(pid, "PPid");
	}
	return 0;
}

static void reply(struct server *s, const struct fuse_in_header *in,
		  int error, const void *data, size_t size)
{
	struct fuse_out_header out = {
		.len = sizeof(out) + (error ? 0 : size),
		.error = -error,
		.unique = in->unique,
	};
	struct iovec iov[2] = {
		{ &out, sizeof(out) },
		{ (void *)data, error ? 0 : size },
	};

	/* ENOENT: the caller went away (an interrupted request). */
	if (writev(s->fd, iov, 2) < 0 && errno != ENOENT)
		fprintf(stderr, "fusestall: reply to %u: %s\n", in->opcode,
			strerror(errno));
}

static const struct served_file *file_of(const struct server *s,
					 uint64_t node)
{
	if (node < FIRST_FILE_NODE || node >= FIRST_FILE_NODE + (uint64_t)s->nfiles)
		return NULL;
	return &s->files[node - FIRST_FILE_NODE];
}

static void fill_attr(const struct server *s, uint64_t node,
		      struct fuse_attr *a)
{
	const struct served_file *f = file_of(s, node);

	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->atime = a->mtime = a->ctime = s->started;
	a->blksize = 4096;
	if (f) {
		a->mode = S_IFREG | 0555;
		a->nlink = 1;
		a->size = f->size;
		a->blocks = (f->size + 511) / 512;
	} else {
		a->mode = S_IFDIR | 0555;
		a->nlink = 2;
	}
}

static int known_node(const struct server *s, uint64_t node)
{
	return node == FUSE_ROOT_ID || file_of(s, node);
}

static void do_init(struct server *s, const struct fuse_in_header *in,
		    const void *arg)
{
	const struct fuse_init_in *ii = arg;
	struct fuse_init_out out = {
		.major = FUSE_KERNEL_VERSION,
		.minor = FUSE_KERNEL_MINOR_VERSION,
		.max_readahead = ii->max_readahead,
		.max_background = 16,
		.congestion_threshold = 12,
		.max_write = MAX_WRITE,
		.time_gran = 1,
	};

	if (ii->major != FUSE_KERNEL_VERSION) {
		reply(s, in, EPROTO, NULL, 0);
		return;
	}
	reply(s, in, 0, &out, sizeof(out));
}

/* Timeouts 0: nothing cached, the next stat asks again. */
static void do_lookup(struct server *s, const struct fuse_in_header *in,
		      const char *name)
{
	struct fuse_entry_out out = { .generation = 1 };

	for (int i = 0; in->nodeid == FUSE_ROOT_ID && i < s->nfiles; i++) {
		if (strcmp(s->files[i].name, name))
			continue;
		out.nodeid = FIRST_FILE_NODE + i;
		fill_attr(s, out.nodeid, &out.attr);
		reply(s, in, 0, &out, sizeof(out));
		return;
	}
	reply(s, in, ENOENT, NULL, 0);
}

static void do_getattr(struct server *s, const struct fuse_in_header *in)
{
	struct fuse_attr_out out = { 0 };

	if (!known_node(s, in->nodeid)) {
		reply(s, in, ENOENT, NULL, 0);
		return;
	}
	fill_attr(s, in->nodeid, &out.attr);
	reply(s, in, 0, &out, sizeof(out));
}

static void do_open(struct server *s, const struct fuse_in_header *in,
		    const void *arg, int dir)
{
	const struct fuse_open_in *oi = arg;
	struct fuse_open_out out = { .fh = in->nodeid };

	if ((oi->flags & O_ACCMODE) != O_RDONLY)
		reply(s, in, EROFS, NULL, 0);
	else if (dir ? in->nodeid != FUSE_ROOT_ID : !file_of(s, in->nodeid))
		reply(s, in, dir ? ENOTDIR : EISDIR, NULL, 0);
	else
		reply(s, in, 0, &out, sizeof(out));
}

static void do_read(struct server *s, const struct fuse_in_header *in,
		    const void *arg)
{
	const struct fuse_read_in *ri = arg;
	const struct served_file *f = file_of(s, in->nodeid);
	size_t n;

	if (!f) {
		reply(s, in, EISDIR, NULL, 0);
		return;
	}
	if (ri->offset >= f->size) {
		reply(s, in, 0, NULL, 0);
		return;
	}
	n = f->size - ri->offset;
	if (n > ri->size)
		n = ri->size;
	reply(s, in, 0, f->data + ri->offset, n);
}

/* Entry i (0 ".", 1 "..", then the files) at buf + len, if it fits. */
static size_t put_dirent(const struct server *s, int i, char *buf,
			 size_t len, size_t size)
{
	const char *name = i == 0 ? "." : i == 1 ? ".." :
			   s->files[i - 2].name;
	struct fuse_dirent *d = (struct fuse_dirent *)(buf + len);
	size_t namelen = strlen(name);
	size_t rec = FUSE_DIRENT_ALIGN(FUSE_NAME_OFFSET + namelen);

	if (len + rec > size)
		return 0;
	memset(d, 0, rec);
	d->ino = i < 2 ? FUSE_ROOT_ID : (uint64_t)FIRST_FILE_NODE + i - 2;
	d->off = i + 1;
	d->namelen = namelen;
	d->type = i < 2 ? DT_DIR : DT_REG;
	memcpy(d->name, name, namelen);
	return rec;
}

static void do_readdir(struct server *s, const struct fuse_in_header *in,
		       const void *arg)
{
	const struct fuse_read_in *ri = arg;
	static char buf[BUF_SIZE];
	size_t size = ri->size < sizeof(buf) ? ri->size : sizeof(buf);
	size_t len = 0, rec;

	for (uint64_t i = ri->offset; i < 2 + (uint64_t)s->nfiles; i++) {
		rec = put_dirent(s, i, buf, len, size);
		if (!rec)
			break;
		len += rec;
	}
	reply(s, in, 0, buf, len);
}

static void do_statfs(struct server *s, const struct fuse_in_header *in)
{
	struct fuse_statfs_out out = {
		.st = {
			.blocks = 1, .files = 1 + s->nfiles, .bsize = 4096,
			.namelen = 255, .frsize = 4096,
		},
	};

	reply(s, in, 0, &out, sizeof(out));
}

static const char *opcode_name(uint32_t op)
{
	switch (op) {
	case FUSE_LOOKUP:	return "LOOKUP";
	case FUSE_GETATTR:	return "GETATTR";
	case FUSE_OPEN:		return "OPEN";
	case FUSE_READ:		return "READ";
	case FUSE_RELEASE:	return "RELEASE";
	case FUSE_FLUSH:	return "FLUSH";
	case FUSE_STATFS:	return "STATFS";
	case FUSE_GETXATTR:	return "GETXATTR";
	case FUSE_OPENDIR:	return "OPENDIR";
	case FUSE_READDIR:	return "READDIR";
	case FUSE_ACCESS:	return "ACCESS";
	default:		return "other";
	}
}

/* The tracer's: read, never answered, one line each. */
static void hold(struct server *s, const struct fuse_in_header *in,
		 const void *arg)
{
	s->held++;
	fprintf(stderr, "fusestall: held %s (%u)%s%s%s from pid %u\n",
		opcode_name(in->opcode), in->opcode,
		in->opcode == FUSE_LOOKUP ? " of '" : "",
		in->opcode == FUSE_LOOKUP ? (const char *)arg : "",
		in->opcode == FUSE_LOOKUP ? "'" : "", in->pid);
}

static void answer(struct server *s, const struct fuse_in_header *in,
		   const void *arg)
{
	switch (in->opcode) {
	case FUSE_LOOKUP:
		do_lookup(s, in, arg);
		break;
	case FUSE_GETATTR:
		do_getattr(s, in);
		break;
	case FUSE_OPEN:
		do_open(s, in, arg, 0);
		break;
	case FUSE_OPENDIR:
		do_open(s, in, arg, 1);
		break;
	case FUSE_READ:
		do_read(s, in, arg);
		break;
	case FUSE_READDIR:
		do_readdir(s, in, arg);
		break;
	case FUSE_STATFS:
		do_statfs(s, in);
		break;
	case FUSE_RELEASE:
	case FUSE_RELEASEDIR:
	case FUSE_FLUSH:
		reply(s, in, 0, NULL, 0);
		break;
	default:
		/* xattrs, access, statx, locks...: the kernel stops asking. */
		reply(s, in, ENOSYS, NULL, 0);
	}
}

/*
 * Nobody waits for a RELEASE (often sent by the kernel, pid 0): holding it
 * would only fill the kernel's queue of background requests, and then
 * stall the victim's own readahead.  Answering it tells the tracer nothing.
 */
static int is_background(const struct fuse_in_header *in)
{
	return in->opcode == FUSE_RELEASE || in->opcode == FUSE_RELEASEDIR;
}

static void dispatch(struct server *s, const char *buf, size_t len)
{
	const struct fuse_in_header *in = (const void *)buf;
	const char *arg = buf + sizeof(*in);

	if (len < sizeof(*in) || in->len != len)
		return;
	/* Neither has a reply, and a held request stays held. */
	if (in->opcode == FUSE_FORGET || in->opcode == FUSE_BATCH_FORGET ||
	    in->opcode == FUSE_INTERRUPT)
		return;
	if (in->opcode == FUSE_INIT)
		do_init(s, in, arg);
	else if (is_background(in) || is_allowed(s, in->pid))
		answer(s, in, arg);
	else
		hold(s, in, arg);
}

static void do_mount(struct server *s)
{
	char opts[128];

	s->fd = open("/dev/fuse", O_RDWR | O_NONBLOCK | O_CLOEXEC);
	if (s->fd < 0)
		die("/dev/fuse");
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,"
		 "group_id=0,allow_other", s->fd);
	if (mount("fusestall", s->mountpoint, "fuse",
		  MS_RDONLY | MS_NOSUID | MS_NODEV, opts))
		die(s->mountpoint);
	printf("mounted\n");
	fflush(stdout);
}

/* The signals wait blocked, so that ppoll() alone lets them in. */
static void catch_signals(sigset_t *during_poll)
{
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGALRM };
	struct sigaction sa = { .sa_handler = on_signal };
	sigset_t block;

	sigemptyset(&block);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++) {
		sigaction(sigs[i], &sa, NULL);
		sigaddset(&block, sigs[i]);
	}
	sigprocmask(SIG_BLOCK, &block, during_poll);
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		sigdelset(during_poll, sigs[i]);
}

/* Returns when a signal came or the file system went (umount). */
static void serve(struct server *s, const sigset_t *during_poll)
{
	static char buf[BUF_SIZE];
	struct pollfd pfd = { .fd = s->fd, .events = POLLIN };
	ssize_t n;

	while (!stop_signal) {
		if (ppoll(&pfd, 1, NULL, during_poll) < 0) {
			if (errno == EINTR)
				continue;
			die("ppoll");
		}
		n = read(s->fd, buf, sizeof(buf));
		if (n < 0 && (errno == EAGAIN || errno == EINTR ||
			      errno == ENOENT))
			continue;
		if (n < 0 && errno == ENODEV)
			return;
		if (n < 0)
			die("read /dev/fuse");
		dispatch(s, buf, n);
	}
}

int main(int argc, char **argv)
{
	static struct server s;
	sigset_t during_poll;
	long limit = 0;

	parse_args(argc, argv, &s, &limit);
	s.started = time(NULL);
	catch_signals(&during_poll);
	do_mount(&s);
	if (limit)
		alarm(limit);
	serve(&s, &during_poll);
	/* Detached first: no new caller reaches a server that is going. */
	umount2(s.mountpoint, MNT_DETACH);
	close(s.fd);
	fprintf(stderr, "fusestall: ended (%s), %lu request(s) held\n",
		stop_signal == SIGALRM ? "gave up" :
		stop_signal ? strsignal(stop_signal) : "unmounted", s.held);
	return 0;
}
