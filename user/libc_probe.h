/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --libc: find the C library each traced process maps, attach the time-API
 * probes to each distinct library once, and symbolize call sites.
 */
#ifndef CLOCKTRACE_LIBC_PROBE_H
#define CLOCKTRACE_LIBC_PROBE_H

#include <stdbool.h>

#include "model.h"

struct tracer;
struct libc_lib;

struct libc_probe {
	struct libc_lib *libs;		/* every library probed so far */
	size_t nlibs;
	bool verbose;
};

void libc_probe_init(struct libc_probe *lp, bool verbose);
/* Probes the C library p maps, if not probed yet; notes it in p. */
void libc_probe_process(struct libc_probe *lp, struct tracer *t,
			struct proc_model *p);
/* Symbolizes call sites and marks processes with no C library. */
void libc_probe_finish(struct libc_probe *lp, struct model *m);
void libc_probe_close(struct libc_probe *lp);

#endif /* CLOCKTRACE_LIBC_PROBE_H */
