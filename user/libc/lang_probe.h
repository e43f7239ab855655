/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --lang: the Ruby and Python interpreters' USDT probes, attached to each
 * interpreter file once (system-wide, like --libc's: the BPF side filters
 * by the traced set), and the script frames the kernel events were
 * counted under, read back into the model.
 */
#ifndef CLOCKTRACE_LANG_PROBE_H
#define CLOCKTRACE_LANG_PROBE_H

#include <sys/types.h>

#include "model.h"

struct tracer;
struct lang_file;

struct lang_probe {
	struct lang_file *files;	/* every interpreter file looked at */
	size_t nfiles;
	struct tracer *tracer;
	struct lang_run run;		/* copied into the model at finish */
	bool verbose;
};

/* The system's interpreters: call before PROG runs. */
void lang_probe_init(struct lang_probe *lp, struct tracer *t, bool verbose);
/* The interpreter files pid maps (an exec, an attach target). */
void lang_probe_process(struct lang_probe *lp, pid_t pid);
/* The frames the BPF side counted, into every process of m. */
void lang_probe_collect(struct lang_probe *lp, struct model *m);
void lang_probe_close(struct lang_probe *lp);

#endif /* CLOCKTRACE_LANG_PROBE_H */
