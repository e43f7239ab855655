// SPDX-License-Identifier: GPL-2.0
/*
 * core_btf_equal: load clocktrace's BPF object twice, CO-RE-relocated
 * against the small BTF of user/trace/core_btf.c and against the whole kernel
 * BTF, and compare every program's instructions, map fds aside.  Prints
 * "N programs, M instructions identical" and exits 0, or names the first
 * difference and exits 1.  Needs root (the programs are loaded).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_vmlinux.h"
#include "clocktrace.core_roots.h"
#include "clocktrace.skel.h"
#include "core_btf.h"
#include "attach_mode.h"
#include "libc_attach.h"
#include "variant.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

static struct clocktrace_bpf *load(const char *core_btf)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .btf_custom_path = core_btf);
	struct clocktrace_bpf *skel = clocktrace_bpf__open_opts(&o);

	/* This kernel may refuse fentry: compare what the tracepoints load. */
	if (skel) {
		libc_attach_prepare(skel, true);
		attach_mode_apply(skel, vmlinux_btf_keep(), ATTACH_TRACEPOINT,
				  bpf_features_probe());
	}
	if (!skel || clocktrace_bpf__load(skel)) {
		fprintf(stderr, "core_btf_equal: cannot load with %s: %s\n",
			core_btf ? core_btf : "the whole BTF", strerror(errno));
		exit(2);
	}
	return skel;
}

/* ld_imm64 of a map: the kernel fds differ from one load to the other. */
static bool is_map_ref(const struct bpf_insn *in)
{
	return in->code == (BPF_LD | BPF_DW | BPF_IMM) &&
	       (in->src_reg == BPF_PSEUDO_MAP_FD ||
		in->src_reg == BPF_PSEUDO_MAP_VALUE);
}

static long compare(const struct bpf_program *a, const struct bpf_program *b)
{
	const struct bpf_insn *x = bpf_program__insns(a);
	const struct bpf_insn *y = bpf_program__insns(b);
	size_t i, n = bpf_program__insn_cnt(a);

	if (n != bpf_program__insn_cnt(b)) {
		printf("%s: %zu instructions against %zu\n",
		       bpf_program__name(a), n, bpf_program__insn_cnt(b));
		return -1;
	}
	for (i = 0; i < n; i++) {
		if (is_map_ref(&x[i]) && is_map_ref(&y[i]) &&
		    x[i].src_reg == y[i].src_reg) {
			i++;	/* its second half holds the value offset */
			if (x[i].imm == y[i].imm)
				continue;
		} else if (!memcmp(&x[i], &y[i], sizeof(x[i]))) {
			continue;
		}
		printf("%s: instruction %zu differs\n", bpf_program__name(a), i);
		return -1;
	}
	return n;
}

int main(void)
{
	struct clocktrace_bpf *small, *whole;
	struct bpf_program *p, *q;
	long n, insns = 0;
	char path[64];
	struct btf *btf;
	int fd, progs = 0;

	btf = core_btf_build(vmlinux_btf_keep(), core_roots,
			     ARRAY_SIZE(core_roots));
	fd = btf ? core_btf_memfd(btf, path, sizeof(path)) : -1;
	if (fd < 0) {
		fprintf(stderr, "core_btf_equal: no small BTF\n");
		return 2;
	}
	printf("small BTF: %u types\n", btf__type_cnt(btf) - 1);
	small = load(path);
	whole = load(NULL);
	q = bpf_object__next_program(whole->obj, NULL);
	bpf_object__for_each_program(p, small->obj) {
		n = compare(p, q);
		if (n < 0)
			return 1;
		insns += n;
		progs++;
		q = bpf_object__next_program(whole->obj, q);
	}
	printf("%d programs, %ld instructions identical\n", progs, insns);
	return 0;
}
