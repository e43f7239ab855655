/* SPDX-License-Identifier: GPL-2.0 */
/* --vdso: a sampling cpu-clock event per CPU running vdso_sample. */
#ifndef CLOCKTRACE_VDSO_SAMPLE_H
#define CLOCKTRACE_VDSO_SAMPLE_H

struct bpf_program;
struct bpf_link;

struct vdso_sampler {
	struct bpf_link **links;
	int nlinks;
	double period_ns;
};

/* 0, or -1 after one line on stderr (and nothing left attached). */
int vdso_sampler_attach(struct vdso_sampler *s, struct bpf_program *prog,
			unsigned int hz);
void vdso_sampler_detach(struct vdso_sampler *s);

#endif /* CLOCKTRACE_VDSO_SAMPLE_H */
