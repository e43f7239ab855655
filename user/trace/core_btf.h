/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_CORE_BTF_H
#define CLOCKTRACE_CORE_BTF_H

#include <stddef.h>

struct btf;

/*
 * The kernel types named in roots (sorted, C locale) and everything they
 * embed, as a new BTF; NULL if a type cannot be copied.
 */
struct btf *core_btf_build(const struct btf *vmlinux, const char *const *roots,
			   size_t nr_roots);
/* btf's raw data in a memfd, named in path for libbpf; -1 on failure. */
int core_btf_memfd(const struct btf *btf, char *path, size_t len);

#endif
