/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Probe what the running kernel's BPF can do and set the object up for it
 * before load: which sys_exit and sched_process_exec programs (with or
 * without compare-and-swap, bpf_loop or a bounded loop), which map type
 * holds per-thread state.  doctor and run both go through
 * here, so what doctor loads is what run loads.
 */
#ifndef CLOCKTRACE_VARIANT_H
#define CLOCKTRACE_VARIANT_H

#include "bpf_features.h"

struct clocktrace_bpf;
struct bpf_program;
struct bpf_link;

/*
 * The kernel's features, probed once per process (needs privilege); the
 * CLOCKTRACE_NO_* knobs turn a feature off to test its fallback.
 */
const struct bpf_features *bpf_features_probe(void);
/* How a feature was found missing, for doctor; "" when present. */
const char *bpf_feature_why(enum bpf_feature f);

/* Before load: rodata, the thread map's type and size, autoloads. */
void variant_apply(struct clocktrace_bpf *skel, const struct bpf_features *bf,
		   unsigned int max_procs);

#define VARIANT_TRACEPOINTS	5

/* A program the variant loads, and the skeleton's slot for its link. */
struct variant_tracepoint {
	struct bpf_program *prog;
	struct bpf_link **link;
};

/*
 * After variant_apply: sys_enter, sys_exit, sched_process_fork, _exec and
 * _exit, in the order of kfeatures.h's feature_tracepoints.
 */
void variant_tracepoints(struct clocktrace_bpf *skel,
			 struct variant_tracepoint tp[VARIANT_TRACEPOINTS]);

#endif /* CLOCKTRACE_VARIANT_H */
