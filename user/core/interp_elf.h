/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What --lang's frame mode reads of an interpreter file (CPython, libruby):
 * the addresses of named data symbols, and where the file keeps an
 * address's bytes.  Called inside the sandboxed file reader only.
 */
#ifndef CLOCKTRACE_INTERP_ELF_H
#define CLOCKTRACE_INTERP_ELF_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct interp_symbol {
	const char *name;
	uint64_t *vaddr;	/* left as it is when not found */
};

/*
 * Each data or function symbol's address as linked, in the one table
 * elf_bounds.h reads.
 */
void interp_symbols(Elf *elf, struct interp_symbol *w, size_t n);
/*
 * The file offset of the 8 bytes at vaddr, and the code segment's
 * p_vaddr - p_offset: 0, or -1 when the file has no such bytes.
 */
int interp_segments(Elf *elf, uint64_t vaddr, uint64_t *off, uint64_t *delta);
/*
 * fd's ELF with w's symbols looked up (interp_symbols), or NULL when it is
 * no ELF of a layout we know; the caller elf_end()s it.
 */
Elf *interp_elf_open(int fd, struct interp_symbol *w, size_t n);
/*
 * An interpreter's start-up functions, probed once a process (a uprobe's
 * address: the file offset): as linked, 0 where the file has none.
 */
#define INTERP_STARTS	2

struct interp_start {
	uint64_t vaddr;
	uint64_t off;
};

/* names[i]'s address and file offset into out[i], for i < n <= INTERP_STARTS. */
void interp_starts(Elf *elf, const char *const *names, size_t n,
		   struct interp_start *out);
/* The len (>= 8) bytes at vaddr, from one segment's file bytes: 0, or -1. */
int interp_read(Elf *elf, int fd, uint64_t vaddr, void *buf, size_t len);
/* Whether a relocation of that type applies at vaddr (SHT_RELA only). */
bool interp_has_rela(Elf *elf, uint64_t vaddr, uint32_t type);

#endif /* CLOCKTRACE_INTERP_ELF_H */
