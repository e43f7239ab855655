/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --lang for CPython 3.11, 3.12 and 3.13 without a trap per line: each
 * thread's current frame is read by the BPF side at each kernel event
 * (bpf/lang.bpf.c).  Here: which interpreter files qualify, where their
 * _PyRuntime and type objects are, each version's struct offsets, and the
 * decoding of a code object's location table into the line.
 */
#ifndef CLOCKTRACE_PYFRAME_H
#define CLOCKTRACE_PYFRAME_H

#include <stdbool.h>
#include <stdint.h>

#include <linux/types.h>

#include "clocktrace.h"
#include "interp_elf.h"
#include "procfs.h"

/* An interpreter file whose frames can be read: addresses as linked. */
struct py_binary {
	uint64_t runtime;
	uint64_t code_type;
	uint64_t str_type;
	uint64_t bytes_type;
	uint64_t exec_delta;	/* p_vaddr - p_offset of the code segment */
	uint32_t version;	/* 0x030b for 3.11 */
	struct py_offsets off;	/* that version's */
	struct interp_start starts[INTERP_STARTS];
};

/* 0 when the ELF open at fd is CPython 3.11-3.13 with the symbols needed. */
int pyframe_binary(int fd, struct py_binary *b);
/* What the BPF side needs for a process whose load bias is bias. */
void pyframe_proc_at(const struct py_binary *b, uint64_t bias,
		     struct py_proc *out);
/* The same for a process mapping b's code at e. */
void pyframe_proc(const struct py_binary *b, const struct maps_entry *e,
		  struct py_proc *out);
/*
 * The line of the instruction at byte offset instr of a code object whose
 * location table starts with table[0..len) of size bytes: -1 when the
 * copied part ends before it, 0 when the instruction has no line.
 */
int pyframe_line(const uint8_t *table, uint32_t len, uint32_t size,
		 int32_t firstlineno, uint32_t instr);

#endif /* CLOCKTRACE_PYFRAME_H */
