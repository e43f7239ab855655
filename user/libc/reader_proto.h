/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The messages between clocktrace and its file reader (reader.c, the
 * client; reader_worker.c, the sandboxed process).  One request or reply
 * per datagram of a SOCK_SEQPACKET pair, so a message is never split and
 * never merged with the next; an open file comes back as SCM_RIGHTS.
 */
#ifndef CLOCKTRACE_READER_PROTO_H
#define CLOCKTRACE_READER_PROTO_H

#include <limits.h>
#include <stdint.h>
#include <linux/types.h>

#include "clocktrace.h"
#include "pyframe.h"
#include "rbframe.h"

/* argv[1] of the re-executed binary that becomes the worker. */
#define READER_ARGV1	"--clocktrace-file-reader"
/* The socket's number in the worker. */
#define READER_FD	3

enum reader_op {
	/* The probe plan of a C library, and the file open (for uprobes). */
	RD_LIBC_PLAN = 1,
	/* PT_INTERP of an executable: dynamic or static, and its loader. */
	RD_ELF_INFO,
	/* An interpreter file: ELF?  CPython 3.11 frames?  The file open. */
	RD_LANG_FILE,
	/* Names, build-id and source lines of return addresses in a file. */
	RD_SYMBOLIZE,
	/* Open a file of another mount namespace now, name it later. */
	RD_HOLD,
	/* Unwind stack copies (struct reader_unwind_req): return addresses. */
	RD_UNWIND,
};

#define RD_OFFS_MAX	64

/* A file as a process saw it: its path there, and the kernel's identity. */
struct reader_file {
	int32_t pid;			/* whose view path is in; 0: ours */
	uint32_t dev_major;		/* 0 and ino 0: not known yet */
	uint32_t dev_minor;
	uint64_t ino;
	char path[PATH_MAX];
};

struct reader_req {
	uint32_t op;
	uint32_t id;
	struct reader_file file;
	uint32_t arg;			/* RD_LANG_FILE: enum lang, RD_LANG_USDT;
					   RD_SYMBOLIZE: RD_SYM_FRAMES */
	uint32_t noffs;
	uint64_t offs[RD_OFFS_MAX];	/* RD_SYMBOLIZE: file offsets */
};

enum reader_reply_kind {
	/* The file is open and is the one asked for: what follows is parsing. */
	RD_OPENED = 1,
	RD_DONE,
};

struct reader_reply {
	uint32_t id;
	uint32_t kind;
	int32_t status;			/* 0, or a negative errno */
	uint32_t dev_major;		/* of the file opened */
	uint32_t dev_minor;
	uint64_t ino;
	uint32_t flags;			/* RD_FLAG_* of the file opened */
	uint32_t len;			/* bytes of data[] used */
};

/*
 * On a FUSE file system: its server sees who reads and can stall anyone
 * but the reader.  Neither the kernel (uprobes) nor libbpf (USDT notes)
 * is then given the file to read in the tracer.
 */
#define RD_FLAG_FUSE	(1u << 0)

/* RD_DONE's data for RD_LIBC_PLAN (and RD_OPENED's path for all). */
struct reader_libc_plan {
	uint8_t probe[LIBC_FN_MAX];	/* LIBC_PROBE_* */
	uint64_t off[LIBC_FN_MAX];	/* where each probe goes */
	char path[PATH_MAX];		/* the file, from our view */
	/* Filled by reader.c from the reply: */
	uint64_t dev;			/* dev_t */
	uint64_t ino;
	uint32_t flags;			/* RD_FLAG_* */
};

struct reader_elf_info {
	int32_t dynamic;		/* 1, 0, or -1: not ELF */
	char interp[256];		/* "" when none */
};

/* RD_LANG_FILE's arg: USDT asked for (--lang=usdt), frames not read. */
#define RD_LANG_USDT	(1u << 16)

struct reader_lang_file {
	uint32_t lang;			/* enum lang from the name */
	uint32_t frame;			/* CPython 3.11-3.13, Ruby 3.1: frames read */
	struct py_binary py;
	struct rb_binary rb;
	uint32_t flags;			/* RD_FLAG_*, filled by reader.c */
};

/*
 * RD_SYMBOLIZE's data: "build-id\0", then for each offset asked
 * "symbol\0source\0" (empty: unknown), cut where RD_DATA_MAX ends.
 */
#define RD_DATA_MAX	(60 * 1024)
/* Each string of a reply: longer names are cut. */
#define RD_NAME_MAX	512

/*
 * RD_SYMBOLIZE's arg: each offset's frames, inlined calls each a frame of
 * their own (addr2line -i).  Its data is then "build-id\0", and for each
 * offset "symbol\0", one byte n (0: no line; at most RD_INLINE_MAX), n
 * frames innermost first, each "function\0file\0" and its line (uint32_t,
 * host order); every frame but the last was inlined into the next.
 */
#define RD_SYM_FRAMES	(1u << 0)
#define RD_INLINE_MAX	8

/*
 * RD_UNWIND: a batch of stack copies of one process image, with the files
 * it mapped (each by its lowest mapping: the module's load address is
 * start - pgoff there).  req.file is the first of them, the one a stall
 * or a crash is blamed on.  RD_DONE's data: for each stack, a uint32_t
 * count n, then n uint64_t pcs, innermost first.
 */
#define RD_UNWIND_FILES		64
#define RD_UNWIND_BATCH		8
#define RD_UNWIND_FRAMES	64
#define RD_UNWIND_PATHS		(16 * 1024)

struct rd_unwind_file {
	uint64_t start;			/* of its lowest mapping */
	uint64_t end;			/* of its highest */
	uint64_t pgoff;			/* of its lowest mapping */
	uint64_t ino;
	uint32_t dev_major, dev_minor;
	uint32_t path_off;		/* into paths[] */
	uint32_t pad;
};

struct rd_unwind_stack {
	uint64_t regs[STACK_REGS];	/* enum stack_reg */
	uint32_t len;			/* bytes of stack[] */
	uint32_t pad;
	uint8_t stack[STACK_COPY_LEN];
};

struct reader_unwind_req {
	struct reader_req req;
	int32_t pid;			/* whose maps these are */
	uint32_t image;			/* the tracer's id of this image */
	uint32_t nfiles;
	uint32_t nstacks;
	struct rd_unwind_file files[RD_UNWIND_FILES];
	char paths[RD_UNWIND_PATHS];
	struct rd_unwind_stack stacks[RD_UNWIND_BATCH];
};

#endif /* CLOCKTRACE_READER_PROTO_H */
