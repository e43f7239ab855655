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

struct libc_lib {
	dev_t dev;
	ino_t ino;
	char *path;
	char attach_path[32];		/* /proc/self/fd/N of the file read */
	int link_fds[LIBC_LINK_SLOTS];		/* uprobe-multi: entry, return */
	struct bpf_link **links;	/* classic uprobes */
	size_t nlinks;
	uint8_t probe[LIBC_FN_MAX];	/* LIBC_PROBE_* */
	uint64_t attached_ns;		/* CLOCK_MONOTONIC: calls seen from then */
};

struct clocktrace_bpf;

/*
 * Before the skeleton loads: which --libc programs load (none without
 * libc), and for which kind of link this kernel has.
 */
void libc_attach_prepare(struct clocktrace_bpf *skel, bool libc);
/* The kind of links the loaded programs were prepared for. */
enum libc_links libc_attach_links(struct tracer *t);
/* Attaches every probe of lib->path; 0 when at least one is in place. */
int libc_lib_attach(struct libc_lib *lib, struct tracer *t, bool verbose);
/* Closes what is still open (see libc_probe_close for the fast path). */
void libc_lib_detach(struct libc_lib *lib);

#endif /* CLOCKTRACE_LIBC_ATTACH_H */
