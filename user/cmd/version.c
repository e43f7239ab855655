// SPDX-License-Identifier: GPL-2.0
#include <bpf/libbpf.h>

#include "kfeatures.h"
#include "version.h"

/*
 * One line, so that a bug report can paste it: what we are, what libbpf
 * we carry, and what this kernel offers us (the facts doctor checks).
 * No BPF object is loaded here: --version must stay instant.
 */
int print_version(FILE *f)
{
	struct kernel_features kf;
	enum feat_state tp = FEAT_YES;

	features_probe(&kf, false);
	for (int i = 0; i < FEAT_NR_TRACEPOINTS; i++)
		if (kf.tracepoint[i].state != FEAT_YES)
			tp = kf.tracepoint[i].state;
	fprintf(f, "clocktrace %s (libbpf %u.%u built in); kernel %s %s: "
		"btf=%s tp_btf=%s uprobe=%s uprobe_multi=%s ringbuf=%s "
		"kprobe=%s fentry=%s",
		CLOCKTRACE_VERSION, libbpf_major_version(),
		libbpf_minor_version(), kf.release, kf.machine,
		kf.btf ? "yes" : "no",
		feat_word(tp), feat_word(kf.uprobe.state),
		feat_word(kf.uprobe_multi.state), feat_word(kf.ringbuf.state),
		feat_word(kf.kprobe.state), feat_word(kf.fentry.state));
	/* The variant of our BPF object this kernel runs (root only). */
	for (int i = 0; i < BPF_FEAT_MAX; i++)
		fprintf(f, " %s=%s", bpf_feature_name(i),
			!kf.bpf ? "?" : kf.bpf->has[i] ? "yes" : "no");
	fputc('\n', f);
	return 0;
}
