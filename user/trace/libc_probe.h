/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --libc: find the C library each traced process maps, attach the time-API
 * probes to each distinct library once, and symbolize call sites.
 *
 * For run and top, probes are system-wide on the library file (the BPF
 * side filters by the traced set), so a library probed once covers every
 * process, present and future, that maps it, and every other process on
 * the machine traps too: clocktrace says so, with the cost, at start.
 * attach, where the kernel has uprobe-multi links (Linux >= 6.6), gives
 * each traced process links of its own (their pid filter): nothing else
 * traps.  A child forked by a target gets its links when its fork is
 * seen, so its first calls may be missed, and its counts are marked
 * incomplete.  Past LIBC_REACH_MAX such processes, system-wide again.  The system's default C library (the one we map) is
 * probed before PROG runs, and so is the one PROG's ELF interpreter is
 * (musl); any other one is probed when a traced process is seen mapping it
 * (at exec and on each rescan): calls it served before that are not seen,
 * and the report says so for each process that may have made some.
 */
#ifndef CLOCKTRACE_LIBC_PROBE_H
#define CLOCKTRACE_LIBC_PROBE_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"

struct tracer;
struct libc_lib;
struct known_file;

struct libc_probe {
	struct libc_lib *libs;		/* every library probed so far */
	size_t nlibs;
	struct known_file *files;	/* mapped files seen: for call sites */
	size_t nfiles;
	size_t files_cap;		/* a hash table of that many slots */
	struct tracer *tracer;
	struct libc_run run;		/* copied into the model at finish */
	uint64_t last_scan_ns;
	size_t reached;			/* processes given links of their own */
	bool per_process;		/* links per process, not system-wide */
	bool verbose;
};

/*
 * Probes the system's default C library: call before PROG runs.  With
 * per_process (attach), in the processes given by libc_probe_process only,
 * where the kernel allows.
 */
void libc_probe_init(struct libc_probe *lp, struct tracer *t, bool verbose,
		     bool per_process);
/*
 * Before PROG runs, the library its ELF interpreter is, when that is a C
 * library (musl): then PROG's first call is seen too.
 */
void libc_probe_prog(struct libc_probe *lp, const char *prog);
/* A process forked by a traced one: per-process links follow it. */
void libc_probe_fork(struct libc_probe *lp, struct proc_model *child);
/* Probes the C library p maps, if not probed yet; notes it in p. */
void libc_probe_process(struct libc_probe *lp, struct tracer *t,
			struct proc_model *p);
/* Every few hundred ms: libraries mapped since exec (dlopen, the loader). */
void libc_probe_rescan(struct libc_probe *lp, struct tracer *t,
		       struct model *m);
/* Symbolizes call sites and marks processes with no C library. */
void libc_probe_finish(struct libc_probe *lp, struct model *m);
void libc_probe_close(struct libc_probe *lp);

#endif /* CLOCKTRACE_LIBC_PROBE_H */
