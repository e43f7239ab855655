/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The probes on one C library file: symbols to file offsets, placement,
 * and one uprobe session link (Linux >= 6.13), or one uprobe-multi link
 * per program (>= 6.6), or classic uprobes.
 */
#ifndef CLOCKTRACE_LIBC_ATTACH_H
#define CLOCKTRACE_LIBC_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "model.h"

struct tracer;
struct bpf_link;

#define LIBC_LINK_SLOTS 2

/* Offsets and cookies of one program's probes in a library. */
struct libc_probe_set {
	uint64_t offs[LIBC_FN_MAX];
	uint64_t cookies[LIBC_FN_MAX];
	uint32_t n;
};

struct libc_lib {
	dev_t dev;
	ino_t ino;
	pid_t pid;			/* whose view path was first in */
	char *path;			/* from our view, once attached */
	char attach_path[32];		/* /proc/self/fd/N of the file read */
	int link_fds[LIBC_LINK_SLOTS];		/* uprobe-multi: entry, return */
	struct bpf_link **links;	/* classic uprobes */
	size_t nlinks;
	uint8_t probe[LIBC_FN_MAX];	/* LIBC_PROBE_* */
	uint64_t attached_ns;		/* CLOCK_MONOTONIC: calls seen from then */
	/* Per-process links (uprobe-multi with a pid): */
	struct libc_probe_set sets[LIBC_LINK_SLOTS];	/* planned, kept */
	pid_t *procs;			/* the processes they reach */
	size_t nprocs;
	int *proc_fds;			/* LIBC_LINK_SLOTS per process, or -1 */
	int fd;				/* the file, for per-process links later */
	bool systemwide;		/* link_fds reach every process */
};

struct clocktrace_bpf;

/*
 * Before the skeleton loads: which --libc programs load (none without
 * libc), and for which kind of link this kernel has.
 */
void libc_attach_prepare(struct clocktrace_bpf *skel, bool libc);
/* The kind of links the loaded programs were prepared for. */
enum libc_links libc_attach_links(struct tracer *t);
/*
 * Attaches every probe of lib->path, in every process (systemwide), or
 * plans them for libc_lib_reach; 0 when at least one is (to be) in place.
 */
int libc_lib_attach(struct libc_lib *lib, struct tracer *t, bool verbose,
		    bool systemwide);
/*
 * Links of uprobe-multi kind (libc_attach_links) only: the probes in
 * process pid alone; in every process (once).  0 or -1.
 */
int libc_lib_reach(struct libc_lib *lib, struct tracer *t, pid_t pid);
int libc_lib_reach_all(struct libc_lib *lib, struct tracer *t);
bool libc_lib_reaches(const struct libc_lib *lib, pid_t pid);
/* Closes what is still open (see libc_probe_close for the fast path). */
void libc_lib_detach(struct libc_lib *lib);

#endif /* CLOCKTRACE_LIBC_ATTACH_H */
