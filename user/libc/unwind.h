/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Unwinding copies of user stacks (RD_UNWIND), in the file reader only:
 * the copies and the files are the traced program's.  elfutils' libdwfl
 * unwinder over the copy, with the CFI (.eh_frame, .debug_frame) of the
 * files the process mapped; where a file has none, libdwfl's own
 * frame-pointer step (x86_64, aarch64 backends) takes over.
 */
#ifndef CLOCKTRACE_UNWIND_H
#define CLOCKTRACE_UNWIND_H

#include <stddef.h>
#include <stdint.h>

#include "reader_proto.h"

/* An open descriptor of files[i] of the request (checked by identity), or -1. */
typedef int (*unwind_open_fn)(const struct reader_unwind_req *u, uint32_t i,
			      void *ctx);

/*
 * Each stack of u unwound into out (RD_UNWIND's reply data); stacks left
 * when deadline_ns (CLOCK_MONOTONIC) passes get no frames.  Returns the
 * bytes of out used.
 */
size_t unwind_batch(const struct reader_unwind_req *u, unwind_open_fn open,
		    void *ctx, uint64_t deadline_ns, char *out, size_t cap);

#endif /* CLOCKTRACE_UNWIND_H */
