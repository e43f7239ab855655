// SPDX-License-Identifier: GPL-2.0
/*
 * The file reader: clocktrace re-executed as READER_ARGV1, caged
 * (sandbox.h), answering one request at a time on READER_FD.  Everything
 * that opens, stats or parses a file a traced program chose happens here,
 * where a hang costs a deadline and a crash costs a restart.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <linux/magic.h>
#include <sys/sysmacros.h>

#include "libc_plan.h"
#include "reader.h"
#include "sandbox.h"
#include "srcline.h"
#include "symbolize.h"
#include "unwind.h"
#include "util.h"

/* Debian's multiarch directory for this build's architecture. */
#if defined(__x86_64__)
#define MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH	"aarch64-linux-gnu"
#else
#error "clocktrace: name this architecture's multiarch triplet"
#endif

/* Where a library of a process that is gone may still be found by name. */
static const char *const lib_dirs[] = {
	"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
};

/* Files kept open and parsed, by identity; the oldest goes first. */
#define CACHE_MAX	(SANDBOX_FILES_MAX / 2)

struct wfile {
	uint32_t major, minor;
	uint64_t ino;
	int fd;
	uint32_t flags;			/* RD_FLAG_* */
	char *path;			/* from our view */
	struct elf_syms *syms;
	bool syms_tried;
	struct srcline *lines;
	bool lines_tried;
};

static struct wfile cache[CACHE_MAX];
static size_t ncache, cache_next;

static void wfile_clear(struct wfile *w)
{
	elf_syms_free(w->syms);
	srcline_close(w->lines);
	if (w->fd >= 0)
		close(w->fd);
	free(w->path);
	memset(w, 0, sizeof(*w));
	w->fd = -1;
}

static struct wfile *cached(const struct reader_file *f)
{
	if (!f->ino)
		return NULL;
	for (size_t i = 0; i < ncache; i++)
		if (cache[i].ino == f->ino && cache[i].major == f->dev_major &&
		    cache[i].minor == f->dev_minor)
			return &cache[i];
	return NULL;
}

static struct wfile *cache_add(int fd, const struct stat *st, const char *path)
{
	struct statfs sfs;
	struct wfile *w;

	if (ncache < CACHE_MAX) {
		w = &cache[ncache++];
	} else {
		w = &cache[cache_next];
		cache_next = (cache_next + 1) % CACHE_MAX;
		wfile_clear(w);
	}
	memset(w, 0, sizeof(*w));
	w->major = major(st->st_dev);
	w->minor = minor(st->st_dev);
	w->ino = st->st_ino;
	w->fd = fd;
	w->path = xstrdup(path);
	if (!fstatfs(fd, &sfs) && sfs.f_type == FUSE_SUPER_MAGIC)
		w->flags |= RD_FLAG_FUSE;
	return w;
}

static int send_reply(const struct reader_reply *rep, const void *data,
		      int fd)
{
	static char buf[sizeof(*rep) + RD_DATA_MAX];
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} ctl;
	struct iovec iov = { buf, sizeof(*rep) + rep->len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };

	memcpy(buf, rep, sizeof(*rep));
	if (rep->len)
		memcpy(buf + sizeof(*rep), data, rep->len);
	if (fd >= 0) {
		struct cmsghdr *c;

		memset(&ctl, 0, sizeof(ctl));
		msg.msg_control = ctl.buf;
		msg.msg_controllen = sizeof(ctl.buf);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	}
	return sendmsg(READER_FD, &msg, MSG_NOSIGNAL) < 0 ? -1 : 0;
}

static void say_opened(const struct reader_req *req, const struct wfile *w)
{
	struct reader_reply rep = {
		.id = req->id, .kind = RD_OPENED,
		.dev_major = w->major, .dev_minor = w->minor, .ino = w->ino,
		.flags = w->flags,
	};

	send_reply(&rep, NULL, -1);
}

static bool same_file(const struct reader_file *f, const struct stat *st)
{
	if (!f->ino && !f->dev_major && !f->dev_minor)
		return true;
	return st->st_ino == f->ino && major(st->st_dev) == f->dev_major &&
	       minor(st->st_dev) == f->dev_minor;
}

/* path opened if it is a regular file and the one asked for. */
static struct wfile *try_path(const struct reader_file *f, const char *path)
{
	struct stat st;
	int fd = open_regular(path);

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !same_file(f, &st)) {
		close(fd);
		return NULL;
	}
	for (size_t i = 0; i < ncache; i++)
		if (cache[i].ino == st.st_ino &&
		    cache[i].major == major(st.st_dev) &&
		    cache[i].minor == minor(st.st_dev)) {
			close(fd);
			return &cache[i];
		}
	return cache_add(fd, &st, path);
}

/*
 * The file from here: under its own name, through the process's root
 * (another mount namespace), or, for a library of a process that is gone,
 * by its name in the library directories (checked by identity).
 */
/*
 * CLOCKTRACE_READER_FAULT=KIND:TEXT, for the tests: on a file whose path
 * holds TEXT, behave as a hostile file or file system would make us.
 * stall: never open it (a FUSE server that does not answer); spin: burn
 * CPU once it is open (a parser bomb); crash: fault once it is open;
 * lie: answer RD_SYM_FRAMES with more frames than RD_INLINE_MAX (a
 * reader taken over by the file it parsed).
 */
static bool fault_is(const char *kind, const char *path)
{
	const char *spec = getenv("CLOCKTRACE_READER_FAULT");
	const char *colon = spec ? strchr(spec, ':') : NULL;

	return colon && colon[1] && strstr(path, colon + 1) &&
	       (size_t)(colon - spec) == strlen(kind) &&
	       !strncmp(spec, kind, colon - spec);
}

static void inject_fault(const char *path, bool opened)
{
	if (!opened && fault_is("stall", path))
		for (;;)
			sleep(1000);
	if (opened && fault_is("spin", path))
		for (volatile unsigned long i = 0;; i++)
			;
	if (opened && fault_is("crash", path))
		raise(SIGSEGV);
}

static struct wfile *resolve(const struct reader_req *req, bool by_name)
{
	const struct reader_file *f = &req->file;
	struct wfile *w;
	char path[PATH_MAX + 64];

	inject_fault(f->path, false);
	w = cached(f);

	if (!w && f->path[0] == '/')
		w = try_path(f, f->path);
	if (!w && f->pid > 0 && f->path[0] == '/') {
		snprintf(path, sizeof(path), "/proc/%d/root%s", f->pid, f->path);
		w = try_path(f, path);
	}
	for (size_t i = 0; !w && by_name && f->ino && i < ARRAY_SIZE(lib_dirs);
	     i++) {
		snprintf(path, sizeof(path), "%s/%s", lib_dirs[i],
			 path_base_name(f->path));
		w = try_path(f, path);
	}
	if (w) {
		say_opened(req, w);
		inject_fault(w->path, true);
	}
	return w;
}

static struct elf_syms *syms_of(struct wfile *w)
{
	if (!w->syms_tried) {
		w->syms_tried = true;
		w->syms = elf_syms_load_fd(dup(w->fd));
	}
	return w->syms;
}

static struct srcline *lines_of(struct wfile *w)
{
	struct elf_syms *syms = syms_of(w);

	if (!w->lines_tried && syms) {
		w->lines_tried = true;
		w->lines = srcline_open(elf_syms_fd(syms), w->path);
	}
	return w->lines;
}

static void reply(const struct reader_req *req, const struct wfile *w,
		  int status, const void *data, size_t len, int fd)
{
	struct reader_reply rep = {
		.id = req->id, .kind = RD_DONE, .status = status,
		.len = status ? 0 : len,
	};

	if (w) {
		rep.dev_major = w->major;
		rep.dev_minor = w->minor;
		rep.ino = w->ino;
		rep.flags = w->flags;
	}
	send_reply(&rep, data, status ? -1 : fd);
}

static void do_libc_plan(const struct reader_req *req)
{
	static struct reader_libc_plan p;
	struct wfile *w = resolve(req, false);
	struct elf_syms *syms = w ? syms_of(w) : NULL;

	memset(&p, 0, sizeof(p));
	if (!syms) {
		reply(req, w, -ENOEXEC, NULL, 0, -1);
		return;
	}
	libc_plan(syms, &p);
	snprintf(p.path, sizeof(p.path), "%s", w->path);
	reply(req, w, 0, &p, sizeof(p), w->fd);
}

/* PT_INTERP: dynamic (1) with its loader, static (0), or not ELF (-1). */
static void elf_info(int fd, struct reader_elf_info *out)
{
	size_t n = 0;
	Elf *elf;

	out->dynamic = -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n)) {
		out->dynamic = 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP)
				continue;
			out->dynamic = 1;
			if (!ph.p_filesz || ph.p_filesz >= sizeof(out->interp) ||
			    pread(fd, out->interp, ph.p_filesz, ph.p_offset) !=
			    (ssize_t)ph.p_filesz)
				out->interp[0] = '\0';
			out->interp[sizeof(out->interp) - 1] = '\0';
		}
	}
	elf_end(elf);
}

static void do_elf_info(const struct reader_req *req)
{
	struct reader_elf_info out = { .dynamic = -1 };
	struct wfile *w = resolve(req, false);

	if (!w) {
		reply(req, w, -ENOENT, NULL, 0, -1);
		return;
	}
	elf_info(w->fd, &out);
	out.interp[strnlen(out.interp, sizeof(out.interp) - 1)] = '\0';
	reply(req, w, 0, &out, sizeof(out), -1);
}

/* python3-config and friends are scripts. */
static bool is_elf(int fd)
{
	char magic[4];

	return pread(fd, magic, sizeof(magic), 0) == sizeof(magic) &&
	       !memcmp(magic, "\177ELF", 4);
}

/*
 * CPython 3.11-3.13 and Ruby 3.1 are read at the kernel events instead
 * (unless --lang=usdt, or CLOCKTRACE_NO_PYFRAME for Python): their probes
 * would trap on every line or method call.
 */
static void do_lang_file(const struct reader_req *req)
{
	struct reader_lang_file out = { .lang = req->arg & ~RD_LANG_USDT };
	bool frames = !(req->arg & RD_LANG_USDT);
	struct wfile *w = resolve(req, false);

	if (!w || !is_elf(w->fd)) {
		reply(req, w, -ENOEXEC, NULL, 0, -1);
		return;
	}
	if (out.lang == LANG_PYTHON)
		out.frame = frames && !getenv("CLOCKTRACE_NO_PYFRAME") &&
			    !pyframe_binary(w->fd, &out.py);
	else if (out.lang == LANG_RUBY)
		out.frame = frames && !rbframe_binary(w->fd, &out.rb);
	reply(req, w, 0, &out, sizeof(out), w->fd);
}

static void do_hold(const struct reader_req *req)
{
	struct wfile *w = resolve(req, false);

	reply(req, w, w ? 0 : -ENOENT, NULL, 0, -1);
}

/* s and its NUL at data[*at], cut to RD_NAME_MAX; false when full. */
static bool put_str(char *data, size_t *at, const char *s)
{
	size_t len = s ? strnlen(s, RD_NAME_MAX - 1) : 0;

	if (*at + len + 1 > RD_DATA_MAX)
		return false;
	memcpy(data + *at, s ? s : "", len);
	data[*at + len] = '\0';
	*at += len + 1;
	return true;
}

static bool put_site(char *data, size_t *at, struct wfile *w, uint64_t off)
{
	char *sym = off ? elf_syms_name_ret_addr(w->syms, off) : NULL;
	struct srcline *lines = off ? lines_of(w) : NULL;
	char *src = NULL;
	uint64_t vaddr;
	bool ok;

	if (lines && !elf_syms_call_vaddr(w->syms, off, &vaddr)) {
		src = srcline_lookup(lines, vaddr);
		if (!sym)
			sym = srcline_function(lines, vaddr);
	}
	ok = put_str(data, at, sym) && put_str(data, at, src);
	free(sym);
	free(src);
	return ok;
}

/* n, each frame's strings and line, as RD_SYM_FRAMES says. */
static bool put_frames(char *data, size_t *at, const struct srcline_frame *fr,
		       int n)
{
	uint8_t count = (uint8_t)n;

	if (*at + 1 > RD_DATA_MAX)
		return false;
	data[(*at)++] = (char)count;
	for (int i = 0; i < n; i++) {
		uint32_t line = fr[i].line;

		if (!put_str(data, at, fr[i].function) ||
		    !put_str(data, at, fr[i].file) ||
		    *at + sizeof(line) > RD_DATA_MAX)
			return false;
		memcpy(data + *at, &line, sizeof(line));
		*at += sizeof(line);
	}
	return true;
}

static bool put_site_frames(char *data, size_t *at, struct wfile *w,
			    uint64_t off)
{
	struct srcline_frame fr[RD_INLINE_MAX];
	char *sym = off ? elf_syms_name_ret_addr(w->syms, off) : NULL;
	struct srcline *lines = off ? lines_of(w) : NULL;
	uint64_t vaddr;
	int n = 0;
	bool ok;

	if (lines && !elf_syms_call_vaddr(w->syms, off, &vaddr))
		n = srcline_frames(lines, vaddr, fr, RD_INLINE_MAX);
	ok = put_str(data, at, sym) && put_frames(data, at, fr, n);
	free(sym);
	srcline_frames_free(fr, n);
	return ok;
}

/* The lie fault: each offset RD_INLINE_MAX + 1 well-formed frames. */
static size_t lie_frames(const struct reader_req *req, char *data)
{
	size_t at = 0;

	put_str(data, &at, "lie");
	for (uint32_t i = 0; i < req->noffs && i < RD_OFFS_MAX; i++) {
		struct srcline_frame fr[RD_INLINE_MAX + 1];

		for (int k = 0; k <= RD_INLINE_MAX; k++)
			fr[k] = (struct srcline_frame){ .function = "lie",
							.file = "/lie.c",
							.line = 1 };
		if (!put_str(data, &at, "lie") ||
		    !put_frames(data, &at, fr, RD_INLINE_MAX + 1))
			break;
	}
	return at;
}

static void do_symbolize(const struct reader_req *req)
{
	static char data[RD_DATA_MAX];
	struct wfile *w = resolve(req, true);
	size_t at = 0;

	if (!w || !syms_of(w)) {
		reply(req, w, -ENOEXEC, NULL, 0, -1);
		return;
	}
	if ((req->arg & RD_SYM_FRAMES) && fault_is("lie", w->path)) {
		reply(req, w, 0, data, lie_frames(req, data), -1);
		return;
	}
	put_str(data, &at, elf_syms_build_id(w->syms));
	for (uint32_t i = 0; i < req->noffs && i < RD_OFFS_MAX; i++)
		if (req->arg & RD_SYM_FRAMES ?
		    !put_site_frames(data, &at, w, req->offs[i]) :
		    !put_site(data, &at, w, req->offs[i]))
			break;
	reply(req, w, 0, data, at, -1);
}

/* files[i] of an RD_UNWIND request, opened as any other request's file. */
static int open_unwind_file(const struct reader_unwind_req *u, uint32_t i,
			    void *ctx)
{
	static struct reader_req one;
	const struct rd_unwind_file *f = &u->files[i];
	struct wfile *w;

	(void)ctx;
	if (f->path_off >= RD_UNWIND_PATHS)
		return -1;
	memset(&one, 0, sizeof(one));
	one.id = u->req.id;
	one.file.pid = u->pid;
	one.file.dev_major = f->dev_major;
	one.file.dev_minor = f->dev_minor;
	one.file.ino = f->ino;
	snprintf(one.file.path, sizeof(one.file.path), "%s",
		 u->paths + f->path_off);
	w = resolve(&one, true);
	return w ? dup(w->fd) : -1;
}

/* Half the tracer's deadline (reader.c): the reply must reach it in time. */
static void do_unwind(const struct reader_unwind_req *u)
{
	static char data[RD_DATA_MAX];
	const char *s = getenv("CLOCKTRACE_READER_DEADLINE_MS");
	uint64_t ms = s && atoi(s) > 0 ? (uint64_t)atoi(s) : READER_DEADLINE_MS;
	uint64_t deadline = now_ns() + ms * 1000000ULL / 2;
	size_t len = unwind_batch(u, open_unwind_file, NULL, deadline, data,
				  sizeof(data));

	reply(&u->req, NULL, 0, data, len, -1);
}

static void serve(const struct reader_req *req)
{
	switch (req->op) {
	case RD_LIBC_PLAN:
		do_libc_plan(req);
		break;
	case RD_ELF_INFO:
		do_elf_info(req);
		break;
	case RD_LANG_FILE:
		do_lang_file(req);
		break;
	case RD_SYMBOLIZE:
		do_symbolize(req);
		break;
	case RD_HOLD:
		do_hold(req);
		break;
	default:
		reply(req, NULL, -EINVAL, NULL, 0, -1);
	}
}

void reader_worker_main(void)
{
	static union {
		struct reader_req req;
		struct reader_unwind_req unwind;
	} msg;
	struct reader_req *req = &msg.req;

	/* Gone with the tracer, whatever it was doing. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (sandbox_enter())
		_exit(EXIT_TOOL_FAILURE);
	for (size_t i = 0; i < CACHE_MAX; i++)
		cache[i].fd = -1;
	for (;;) {
		ssize_t n = recv(READER_FD, &msg, sizeof(msg), 0);

		if (n == 0 || (n < 0 && errno != EINTR))
			_exit(0);
		req->file.path[sizeof(req->file.path) - 1] = '\0';
		if (n == sizeof(msg.unwind) && req->op == RD_UNWIND) {
			msg.unwind.paths[RD_UNWIND_PATHS - 1] = '\0';
			do_unwind(&msg.unwind);
		} else if (n == sizeof(*req)) {
			serve(req);
		}
	}
}
