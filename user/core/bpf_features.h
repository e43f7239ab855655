/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which variant of the BPF object a kernel can run.  Each feature a newer
 * kernel has and an older one lacks has a fallback; this header names them
 * and says what each fallback costs.  Probing the kernel is user/trace/variant.c.
 */
#ifndef CLOCKTRACE_BPF_FEATURES_H
#define CLOCKTRACE_BPF_FEATURES_H

#include <stdbool.h>
#include <stddef.h>

enum bpf_feature {
	BPF_FEAT_TASK_STORAGE,	/* task storage for tracing programs, 5.11 */
	BPF_FEAT_BPF_LOOP,	/* the bpf_loop helper, 5.17 */
	BPF_FEAT_CMPXCHG,	/* BPF compare-and-swap, 5.12 */
	BPF_FEAT_LIBC_HELPERS,	/* attach cookies 5.15, bpf_find_vma 5.17 */
	BPF_FEAT_RUNTIME_ALLOC,	/* the BPF memory allocator for hash maps, 6.1 */
	BPF_FEAT_MAX,
};

struct bpf_features {
	bool has[BPF_FEAT_MAX];
	bool forced_off[BPF_FEAT_MAX];	/* by a CLOCKTRACE_NO_* knob */
};

/* Threads the per-thread hash map holds where task storage is missing. */
#define THREAD_MAP_MIN	65536

/*
 * The JSON name: "task_storage", "bpf_loop", "cmpxchg", "libc_helpers",
 * "runtime_alloc".
 */
const char *bpf_feature_name(enum bpf_feature f);
/* The environment variable that forces the fallback, or NULL. */
const char *bpf_feature_knob(enum bpf_feature f);
/* What clocktrace does with the feature, or without it. */
const char *bpf_feature_effect(enum bpf_feature f, bool has);
/* "task storage, bpf_loop, ..." of the fallbacks in use, "" if none. */
void bpf_features_fallbacks(const struct bpf_features *bf, char *buf,
			    size_t len);

#endif /* CLOCKTRACE_BPF_FEATURES_H */
