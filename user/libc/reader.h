/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Every file a traced program names (the libraries and executables it
 * maps, its interpreters) is opened, stat'ed and parsed by the file
 * reader, a separate sandboxed process (reader_worker.c, sandbox.h), never
 * by the tracing loop.  Each call here waits for its answer at most
 * READER_DEADLINE_MS, and less when the loop has something to do (a
 * signal: reader_set_wake_fd).  What does not come back in time, or kills
 * the reader, is counted in the losses and not asked for again:
 *   reader_stalled   the file system did not answer opening it: every
 *                    file of that device is skipped from then on;
 *   reader_timeout   the file opened but took too long to parse;
 *   reader_crashed   the reader died on the file (a fault, or a limit);
 *   reader_skipped   a request not made: its file or device was one of
 *                    the above; or abandoned for a signal the loop had
 *                    to act on (its file is then not asked for again:
 *                    the session is ending).
 * The reader is restarted after each, so one hostile file costs one
 * deadline and nothing else.
 */
#ifndef CLOCKTRACE_READER_H
#define CLOCKTRACE_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "reader_proto.h"

/* A request's deadline; CLOCKTRACE_READER_DEADLINE_MS overrides it. */
#define READER_DEADLINE_MS	1000

/* The kernel's identity of a file (dev_t as stat gives it). */
void reader_file_id(struct reader_file *f, dev_t dev, uint64_t ino);

/* A wait for the reader ends early when fd is readable (the signalfd). */
void reader_set_wake_fd(int fd);

/* 0 and the plan, with the file open in *fd; or a negative errno. */
int reader_libc_plan(const struct reader_file *f, struct reader_libc_plan *p,
		     int *fd);
int reader_elf_info(pid_t pid, const char *path, struct reader_elf_info *out);
/* lang: from the name; 0 with the file open in *fd (ELF checked). */
int reader_lang_file(const struct reader_file *f, uint32_t lang,
		     struct reader_lang_file *out, int *fd, dev_t *dev,
		     uint64_t *ino);
/* The reader keeps the file open: naming its code later needs no pid. */
int reader_hold(const struct reader_file *f);

/* One frame of an offset's (reader_symbolize_frames). */
struct reader_frame {
	char *function;			/* by DWARF; NULL when unknown */
	char *file;			/* NULL when unknown */
	uint32_t line;
};

struct reader_names {
	char *build_id;			/* NULL when it has none */
	char *symbol[RD_OFFS_MAX];	/* NULL when unknown */
	char *source[RD_OFFS_MAX];	/* reader_symbolize() only */
	/*
	 * reader_symbolize_frames() only: innermost first, each frame but
	 * the last inlined into the next; 0 frames when no line is known.
	 */
	uint8_t nframes[RD_OFFS_MAX];
	struct reader_frame frames[RD_OFFS_MAX][RD_INLINE_MAX];
};

/*
 * Symbols and source lines of return addresses at file offsets offs[n]
 * (n <= RD_OFFS_MAX): 0 when the file's symbols were read.
 */
int reader_symbolize(const struct reader_file *f, const uint64_t *offs,
		     size_t n, struct reader_names *out);
/* The same with each inlined call a frame of its own (RD_SYM_FRAMES). */
int reader_symbolize_frames(const struct reader_file *f, const uint64_t *offs,
			    size_t n, struct reader_names *out);
void reader_names_free(struct reader_names *n);

/*
 * RD_UNWIND: the return addresses of each of u's stacks, innermost first
 * (u->nstacks of pcs and nframes filled; 0 frames where none came back).
 */
int reader_unwind(struct reader_unwind_req *u, uint64_t (*pcs)[RD_UNWIND_FRAMES],
		  uint32_t *nframes);

/* The LOSS_READER_* entries of a model's losses, brought up to date. */
void reader_losses(uint64_t losses[LOSS_MAX]);
/* Ends the reader (at the end, and in a child that must not keep it). */
void reader_stop(void);

/* argv[1] == READER_ARGV1: the worker's main; never returns. */
void reader_worker_main(void) __attribute__((noreturn));

#endif /* CLOCKTRACE_READER_H */
