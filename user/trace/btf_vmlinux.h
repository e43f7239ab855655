/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_BTF_VMLINUX_H
#define CLOCKTRACE_BTF_VMLINUX_H

struct btf;

/*
 * The running kernel's BTF, or NULL.  It stays valid until libbpf next
 * loads the kernel's BTF (a skeleton's load), which takes it over.
 */
const struct btf *vmlinux_btf_keep(void);

#endif
