/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --lang for Ruby 3.1 and 3.3 without a trap per method call: the BPF side reads
 * the running thread's control frames at each kernel event
 * (bpf/lang_ruby.bpf.h).  Here: which interpreter files qualify, where
 * their ruby_current_vm_ptr is, and the version's struct offsets.
 */
#ifndef CLOCKTRACE_RBFRAME_H
#define CLOCKTRACE_RBFRAME_H

#include <stdint.h>

#include <linux/types.h>

#include "clocktrace.h"
#include "interp_elf.h"
#include "procfs.h"

/* An interpreter file (libruby) whose frames can be read. */
struct rb_binary {
	uint64_t vm_ptr;	/* &ruby_current_vm_ptr as linked (3.1) */
	uint64_t tls_module;	/* 3.3: ruby_current_ec's tls_index as linked */
	uint64_t tls_ec;	/* 3.3: its offset in libruby's TLS block */
	uint64_t exec_delta;	/* p_vaddr - p_offset of the code segment */
	uint32_t version;	/* 0x0301 for 3.1, 0x0303 for 3.3 */
	uint32_t pad;
	struct rb_offsets off;	/* that version's */
	struct interp_start starts[INTERP_STARTS];
};

/* 0 when the ELF open at fd is a Ruby whose layout is known. */
int rbframe_binary(int fd, struct rb_binary *b);
/* What the BPF side needs for a process whose load bias is bias. */
void rbframe_proc_at(const struct rb_binary *b, uint64_t bias,
		     struct rb_proc *out);
/* The same for a process mapping b's code at e. */
void rbframe_proc(const struct rb_binary *b, const struct maps_entry *e,
		  struct rb_proc *out);

#endif /* CLOCKTRACE_RBFRAME_H */
