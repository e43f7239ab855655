/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the running kernel offers to clocktrace, probed rather than assumed.
 * Shared by `clocktrace doctor` (one line per feature) and `--version`
 * (all of it on one line).  Probes that need privilege are only tried when
 * we have it; otherwise the kernel's BTF answers, or the answer is unknown.
 */
#ifndef CLOCKTRACE_KFEATURES_H
#define CLOCKTRACE_KFEATURES_H

#include <stdbool.h>
#include <sys/types.h>

#include "attach_mode.h"
#include "bpf_features.h"

enum feat_state { FEAT_NO, FEAT_YES, FEAT_UNKNOWN };

struct feature {
	enum feat_state state;
	char how[128];		/* how we know, or why not */
};

/* The raw tracepoints (tp_btf) the tracer attaches to. */
#define FEAT_NR_TRACEPOINTS 5
extern const char *const feature_tracepoints[FEAT_NR_TRACEPOINTS];

struct kernel_features {
	char release[65];
	char machine[65];
	int major, minor;
	bool btf;			/* /sys/kernel/btf/vmlinux parses */
	unsigned int btf_types;
	uid_t euid;
	bool cap_sys_admin, cap_bpf, cap_perfmon;
	bool privileged;		/* root, or CAP_BPF + CAP_PERFMON */
	struct feature tracepoint[FEAT_NR_TRACEPOINTS];
	struct feature skeleton;	/* our real BPF object loads */
	struct feature uprobe;
	struct feature uprobe_multi;
	struct feature kprobe;
	struct feature fentry;
	struct feature ringbuf;
	/* What --attach auto picks here (with privilege), and why. */
	enum attach_mode attach;
	char attach_why[128];
	/* The variant of our object this kernel runs; NULL: not probed. */
	const struct bpf_features *bpf;
};

/* The effective capabilities that decide whether we may trace. */
struct trace_caps {
	bool sys_admin, bpf, perfmon;
};

/* 0 when they could be read (all false otherwise). */
int trace_caps_read(struct trace_caps *c);
/* The one rule: root's CAP_SYS_ADMIN, or CAP_BPF with CAP_PERFMON. */
bool trace_caps_enough(const struct trace_caps *c);

/*
 * Fills kf.  With try_load (and privilege), also loads our BPF object and
 * attaches its tracepoint programs, then takes everything down again.
 */
void features_probe(struct kernel_features *kf, bool try_load);

/* "yes", "no" or "?" */
const char *feat_word(enum feat_state s);

#endif /* CLOCKTRACE_KFEATURES_H */
