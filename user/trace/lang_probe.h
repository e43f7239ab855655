/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --lang: each interpreter file read once (frame mode: CPython 3.11-3.13,
 * Ruby 3.1, whose processes the BPF side is told where to read) or given
 * its USDT probes (system-wide, like --libc's: the BPF side filters by the
 * traced set), and the script frames the kernel events were counted
 * under, read back into the model.
 */
#ifndef CLOCKTRACE_LANG_PROBE_H
#define CLOCKTRACE_LANG_PROBE_H

#include <sys/types.h>

#include "model.h"

struct tracer;
struct lang_file;

/* Images whose first event asked for a look, kept until the loop looks. */
#define LANG_KICKS_MAX	64

struct lang_probe {
	struct lang_file *files;	/* every interpreter file looked at */
	size_t nfiles;
	struct tracer *tracer;
	struct lang_run run;		/* copied into the model at finish */
	uint64_t pending;		/* events of interpreters before they were read */
	pid_t kicked[LANG_KICKS_MAX];	/* lang_kicks' tgids (bpf/lang.bpf.c) */
	size_t nkicked;
	bool verbose;
	bool usdt;			/* --lang=usdt: no frames read */
	bool no_look;			/* CLOCKTRACE_LANG_NO_LOOK: lang_start alone */
};

/* The system's interpreters: call before PROG runs. */
void lang_probe_init(struct lang_probe *lp, struct tracer *t, bool verbose,
		     bool usdt);
/* The interpreter files pid maps: true when one is read or probed. */
bool lang_probe_process(struct lang_probe *lp, pid_t pid);
/*
 * At an exec: now, and if no interpreter is mapped yet (a shared
 * libpython, an embedding program's, which the loader maps after exec),
 * at once when the image's first kernel event asks (lang_kicks), and again
 * 2, 10, 50 ms ... 2 s later, until one is.
 */
void lang_probe_exec(struct lang_probe *lp, struct proc_model *p);
/* In the loop: the images the BPF side asked for, and the rescans due. */
void lang_probe_rescan(struct lang_probe *lp, struct model *m);
/* How long the loop may sleep before the next rescan is due. */
int lang_probe_wait_ms(const struct lang_probe *lp, const struct model *m,
		       int idle_ms);
/* The frames the BPF side counted, into every process of m. */
void lang_probe_collect(struct lang_probe *lp, struct model *m);
/*
 * Site k (the model's, or the one a stack copy carries) named, with the
 * frames that called it; false: its Python line is unknown (0).
 */
bool lang_probe_site(struct lang_probe *lp, const struct model *m,
		     const struct lang_site_key *k, struct lang_site_stat *s);
void lang_probe_close(struct lang_probe *lp);

#endif /* CLOCKTRACE_LANG_PROBE_H */
