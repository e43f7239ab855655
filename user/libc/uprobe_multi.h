/* SPDX-License-Identifier: GPL-2.0 */
/*
 * BPF_TRACE_UPROBE_MULTI links (Linux >= 6.6) through the raw bpf(2)
 * syscall: libbpf 1.1 has no API for them.  One link carries many probe
 * points of one file, and detaches in one step (a classic uprobe link costs
 * ~100 ms each to detach on our reference VM; see shared/NOTES.md).
 */
#ifndef CLOCKTRACE_UPROBE_MULTI_H
#define CLOCKTRACE_UPROBE_MULTI_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* From Linux's uapi bpf.h, newer than the headers we build against. */
#define UPROBE_MULTI_ATTACH_TYPE	48	/* BPF_TRACE_UPROBE_MULTI */
#define UPROBE_MULTI_F_RETURN		1u	/* BPF_F_UPROBE_MULTI_RETURN */
#define UPROBE_SESSION_ATTACH_TYPE	57	/* BPF_TRACE_UPROBE_SESSION */

enum uprobe_link_kind {
	UPROBE_LINK_ENTRY,
	UPROBE_LINK_RETURN,
	UPROBE_LINK_SESSION,	/* Linux >= 6.13: entry, and return on request */
};

/*
 * Whether this kernel creates uprobe-multi links.  Decided once, without
 * attaching anything: the answer is cached.
 */
bool uprobe_multi_supported(void);
/* The same for uprobe session links (CLOCKTRACE_NO_UPROBE_SESSION=1: no). */
bool uprobe_session_supported(void);
/*
 * The probe behind both, asked afresh (doctor): 0 when the kernel knows the
 * link type, else -errno of the step that failed, named in *step.
 */
int uprobe_multi_try(enum uprobe_link_kind kind, const char **step);

/*
 * Attaches prog_fd (loaded with expected attach type
 * UPROBE_MULTI_ATTACH_TYPE, or UPROBE_SESSION_ATTACH_TYPE for a session)
 * at cnt file offsets of path, for every process (pid 0), or for process
 * pid only: the kernel then writes its breakpoints into that process's
 * memory alone, and other processes mapping the file never trap.
 * Returns the link fd, or -errno.  Close it to detach.
 */
int uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			const uint64_t *cookies, uint32_t cnt,
			enum uprobe_link_kind kind, pid_t pid);

/*
 * Closes every link fd >= 0 of fds at once and sets it to -1.  Each
 * detach waits for grace periods (25-75 ms apiece here); in parallel
 * threads the waits overlap instead of adding up.
 */
void uprobe_multi_close_all(int *fds, size_t n);

#endif /* CLOCKTRACE_UPROBE_MULTI_H */
