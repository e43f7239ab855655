/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Whole user stacks of the kernel events (--stacks): rows of identical
 * stacks, merged across processes, each weighted by the exact counts.
 * The kernel side copies a sample of the stacks (clocktrace.h, stack
 * rule); each process's exact count of a kind of event (stat, open,
 * clock_gettime, ...) is shared among the rows its copies fell in, in
 * proportion, so the weights sum to the exact counts.  A process whose
 * events had no copy at all gives them to a row without frames.
 */
#ifndef CLOCKTRACE_STACK_H
#define CLOCKTRACE_STACK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "clocktrace.h"

struct model;
struct lang_site_stat;

struct stack_frame {
	char *function;		/* NULL: unknown */
	char *file;		/* source file, NULL: unknown */
	unsigned int line;
	char *module;		/* the mapped file's name; NULL: not in a file */
	char *build_id;		/* hex, NULL: none */
	uint64_t offset;	/* file offset of the pc (a return address) */
	bool inlined;		/* a call inlined into the next frame */
	uint32_t lang;		/* enum lang: a script's frame (--lang); 0: native */
};

struct stack_row {
	uint32_t kind;		/* enum kind of its events; KIND_MAX: none copied */
	char comm[COMM_LEN + 1];	/* of the first process seen */
	struct stack_frame *frames;	/* innermost first */
	size_t nframes;
	char *key;		/* its identity, for merging; NULL: none */
	/*
	 * KIND_MAX rows: the --lang chain (stack_table.chains index + 1)
	 * whose events had no copy of their own; 0: none.
	 */
	uint32_t chain;
	bool not_unwound;	/* the copy gave no native frame */
	/* Filled by stack_table_weigh(): */
	uint64_t tz_accesses;
	uint64_t clock_syscalls;
	size_t processes;
	bool sampled;		/* weighted up from a sample */
	pid_t counted;		/* weighing: the last process in processes */
};

struct stack_table {
	struct stack_row *rows;
	size_t nrows, cap;
	/* --lang: the chains of script frames the copies carried. */
	struct lang_site_stat *chains;
	size_t nchains;
};

/*
 * copies of process pid's events of a kind that fell in rows[row], under
 * script chain chain (stack_table.chains index + 1; 0: none).
 */
struct stack_share {
	size_t row;
	pid_t pid;
	uint32_t kind;		/* enum kind */
	uint32_t chain;
	struct lang_site_key lang;	/* the site the copies carried; lang 0: none */
	uint64_t copies;
};

struct stack_row *stack_table_add(struct stack_table *t);
/* The id of chain s (its index + 1) in t->chains, added if new. */
uint32_t stack_table_chain(struct stack_table *t,
			   const struct lang_site_stat *s);
/*
 * A --lang site and the frames that called it as stack frames, innermost
 * first, with their lang set.  Returns how many (*out malloc'd).
 */
size_t stack_script_frames(const struct lang_site_stat *s,
			   struct stack_frame **out);
/*
 * Weights and process counts from the shares (sorted here) and the exact
 * counts of m; rows keep their places (shares name them by index).  Once
 * m has its --lang sites, a process's events of a class under a script
 * chain weigh by the chain's exact count, not the process's.
 */
void stack_table_weigh(struct stack_table *t, struct stack_share *s,
		       size_t n, const struct model *m);
/* Indexes of the rows with a weight, heaviest first; malloc'd. */
size_t *stack_table_order(const struct stack_table *t, size_t *n);
/* The strings of one frame. */
void stack_frame_free(struct stack_frame *f);
void stack_table_free(struct stack_table *t);

uint32_t stack_class_of(uint32_t kind);
uint64_t stack_row_weight(const struct stack_row *r);
/*
 * The event a row ends in: "stat", or for a row of events no copy was
 * made of, "[no stack copied]", or "[no native stack copied]" when it
 * holds a --lang chain's script frames.
 */
const char *stack_row_event(const struct stack_row *r);
/*
 * "do_work (tzloop.c:165)", "run_simple (tzloop.c:214, inlined)",
 * "[libc.so.6+0x8a3c]" or "[unknown]"; without the line an inlined call
 * is "run_simple_[i]", as flame graph tools know it, and a script's
 * frame "work (pool.py)".  malloc'd.
 */
char *stack_frame_label(const struct stack_frame *f, bool with_line);

#endif /* CLOCKTRACE_STACK_H */
