/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The file reader's cage (reader_worker.c): what it may do once it has
 * started, written down once.  The files it parses belong to the traced
 * programs; a parser bug they trigger must find nothing worth taking.
 */
#ifndef CLOCKTRACE_SANDBOX_H
#define CLOCKTRACE_SANDBOX_H

/* Limits the worker starts under (set before it runs any parser). */
#define SANDBOX_AS_MAX		(256ULL << 20)	/* address space: RLIMIT_AS */
#define SANDBOX_CPU_S		60		/* its whole life: RLIMIT_CPU */
#define SANDBOX_STACK_MAX	(64ULL << 20)	/* libdw recurses: RLIMIT_STACK */
#define SANDBOX_FILES_MAX	256		/* open files: RLIMIT_NOFILE */

/* Before exec: the stack the new image gets. */
void sandbox_prepare_exec(void);
/*
 * In the worker, before the first request: capabilities down to reading
 * (DAC_READ_SEARCH, SYS_PTRACE for /proc/PID/root), no new privileges,
 * the limits above, and a seccomp filter of read-only system calls.
 * 0, or -1 when any of it could not be done (the worker then exits).
 */
int sandbox_enter(void);

#endif /* CLOCKTRACE_SANDBOX_H */
