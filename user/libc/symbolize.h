/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Function symbols of one ELF file, read with libelf: by name (to place
 * probes) and by file offset (to name call sites).  Pure userspace: no BPF,
 * so the unit tests link it.
 */
#ifndef CLOCKTRACE_SYMBOLIZE_H
#define CLOCKTRACE_SYMBOLIZE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct elf_syms;

struct elf_func {
	const char *name;
	uint64_t vaddr;
	uint64_t size;
	uint64_t file_off;	/* of vaddr: what uprobes take */
	bool ifunc;		/* STT_GNU_IFUNC: the address is a resolver's */
};

/*
 * NULL when the file is not a readable ELF file.  The path is opened with
 * open_regular(): a traced program may have put a FIFO or a device there.
 */
struct elf_syms *elf_syms_load(const char *path);
/* The same from an open descriptor, which it owns from then on. */
struct elf_syms *elf_syms_load_fd(int fd);
void elf_syms_free(struct elf_syms *s);

/*
 * The function called name, preferring the default version of a versioned
 * symbol (clock_gettime@@GLIBC_2.17 over clock_gettime@GLIBC_2.2.5).
 * 0 on success, -1 when there is none.
 */
int elf_syms_find(const struct elf_syms *s, const char *name,
		  struct elf_func *out);

/* Reads len bytes of the file at off: the code a probe will sit on. */
int elf_syms_read(const struct elf_syms *s, uint64_t off, void *buf,
		  size_t len);

/*
 * Names the code at a file offset: "main+0x1c", or "main" at the start.
 * A return address belongs to the call before it, so off - 1 is looked
 * up.  Returns a malloc'd string, or NULL when no function holds it.
 */
char *elf_syms_name_ret_addr(const struct elf_syms *s, uint64_t off);

/* The GNU build-id as lowercase hex, or NULL: valid while s is. */
const char *elf_syms_build_id(const struct elf_syms *s);
/* The open file, for readers of its other sections (DWARF). */
int elf_syms_fd(const struct elf_syms *s);
/*
 * The link-time address of the call instruction whose return address is
 * at file offset ret_off (it ends at ret_off, so ret_off - 1 is inside it).
 */
int elf_syms_call_vaddr(const struct elf_syms *s, uint64_t ret_off,
			uint64_t *vaddr);

#endif /* CLOCKTRACE_SYMBOLIZE_H */
