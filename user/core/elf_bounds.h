/* SPDX-License-Identifier: GPL-2.0 */
/*
 * How much of an ELF file clocktrace reads when the traced program chose
 * the file (its executable, its libraries, an interpreter): the caps, in
 * one place, and the checks that hold them before libelf or libdw does the
 * work.  A file over a cap is read in part (symbols) or not at all (DWARF);
 * it still runs and is still counted.  Listed in the README ("Files the
 * traced program chooses").  Pure libelf: the fuzzers and unit tests link it.
 */
#ifndef CLOCKTRACE_ELF_BOUNDS_H
#define CLOCKTRACE_ELF_BOUNDS_H

#include <gelf.h>
#include <stdbool.h>
#include <stddef.h>

/*
 * Symbols: one table per file (the first valid SHT_SYMTAB, else the first
 * valid SHT_DYNSYM; a linker writes one of each, and .symtab holds what
 * .dynsym does), its entries sh_entsize the class's Sym size, and no more
 * than ELF_SYMS_MAX of them read (the largest libraries have a few 10^5).
 */
#define ELF_SYMS_MAX		500000
/* Bytes of one name kept; a longer one (C++ templates) is cut there. */
#define ELF_NAME_MAX		1024
/* Bytes of names kept per file, over all its symbols. */
#define ELF_NAME_BYTES_MAX	(16u << 20)
/* Bytes of symbol, string and note sections examined per file. */
#define ELF_READ_MAX		(128u << 20)

/*
 * DWARF: every section of the file is looked at before libdw opens it.  A
 * compressed one (SHF_COMPRESSED, or the older .zdebug_ with its "ZLIB"
 * header) is inflated whole by libdw, so its inflated size and its ratio
 * to the bytes on disk are capped (real DWARF inflates 3 to 10 times;
 * zeros, 1,000 times); and the debug sections together, as inflated.
 */
#define DWARF_ZSECTION_MAX	(128ull << 20)
#define DWARF_ZRATIO_MAX	32
#define DWARF_READ_MAX		(512ull << 20)
/*
 * Scopes looked through to the code of one address (compilers nest a few
 * dozen: functions, blocks, inlined calls), and DIEs examined on the way.
 */
#define DWARF_SCOPE_DEPTH_MAX	128
#define DWARF_SCOPE_DIES_MAX	200000

/* The one symbol table read, checked against the caps above. */
struct elf_symtab {
	Elf_Data *syms;
	size_t count;		/* entries read: at most ELF_SYMS_MAX */
	bool dynamic;		/* SHT_DYNSYM */
	size_t ndx;		/* its section index */
	const char *strs;	/* its string table, strs_size bytes */
	size_t strs_size;
};

/* 0 when the file has a symbol table within the caps. */
int elf_symtab_pick(Elf *elf, struct elf_symtab *t);

/*
 * Symbol i and its name, *len bytes at *name (not NUL-terminated when cut
 * at ELF_NAME_MAX).  false for a symbol out of the table or unnamed, or
 * whose name runs past the end of the string table.
 */
bool elf_symtab_get(const struct elf_symtab *t, size_t i, GElf_Sym *sym,
		    const char **name, size_t *len);

/*
 * Whether libdw may open the file: no compressed section over
 * DWARF_ZSECTION_MAX or DWARF_ZRATIO_MAX, no more than DWARF_READ_MAX of
 * debug sections.  fd is the file elf was read from (for .zdebug_ headers).
 */
bool elf_dwarf_within_caps(Elf *elf, int fd);

#endif /* CLOCKTRACE_ELF_BOUNDS_H */
