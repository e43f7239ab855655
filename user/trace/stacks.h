/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stacks, the tracer's side: stack copies from the kernel
 * (bpf/stacks.bpf.c) queued with the mappings of their process image,
 * read from /proc/PID/maps when the image's first copy arrives (no file
 * of the process is touched here); unwound and named by the file reader
 * (reader_unwind, reader_symbolize) in batches when the session collects;
 * rows of identical stacks weighted by the exact counts (core/stack.h).
 */
#ifndef CLOCKTRACE_STACKS_H
#define CLOCKTRACE_STACKS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "stack.h"

struct tracer;
struct model;
struct lang_probe;
struct stack_image;
struct stack_record;

/* Copies waiting to be unwound at most: 8 KiB each. */
#define STACKS_QUEUE_MAX	4096
/* A copy whose process was gone waits this long for its fork notice. */
#define STACKS_WAIT_NS		(2 * 1000000000ULL)
/* Copies are unwound at a report, or once the oldest is this old. */
#define STACKS_UNWIND_NS	(5 * 1000000000ULL)

struct stack_fork {
	pid_t pid, ppid;
	bool execed;
};

struct stacks {
	struct tracer *tracer;
	struct lang_probe *lang;	/* --lang: names copies' script frames */
	struct stack_image **images;	/* every image seen, by id */
	size_t nimages;
	struct stack_record **queue;
	size_t nqueue;
	struct stack_table table;
	struct stack_share *shares;
	size_t nshares, shares_cap;
	struct stack_fork *forks;	/* fork notices, oldest first */
	size_t nforks;
	bool flush;			/* a report's collect: no copy waits */
};

/* Listens to the kernel's stack copies (the tracer's ring buffer). */
int stacks_init(struct stacks *st, struct tracer *t);
/* pid was forked by ppid: its image is ppid's until it execs. */
void stacks_note_fork(struct stacks *st, pid_t pid, pid_t ppid);
/* pid has a new image: its next copy reads its maps again. */
void stacks_note_exec(struct stacks *st, pid_t pid);
/*
 * Unwinds what is queued (at a report, flush, or when the queue is half
 * full or old); m->stacks is the table, weighed by m's counts.
 */
void stacks_collect(struct stacks *st, struct model *m);
/* The same once m has --lang's sites: each chain weighs its exact count. */
void stacks_collect_lang(struct stacks *st, struct model *m);
void stacks_free(struct stacks *st);

#endif /* CLOCKTRACE_STACKS_H */
