// SPDX-License-Identifier: GPL-2.0
/* --lang's frame mode: see interp_elf.h. */
#include <string.h>
#include <unistd.h>

#include "elf_bounds.h"
#include "interp_elf.h"

void interp_symbols(Elf *elf, struct interp_symbol *w, size_t n)
{
	struct elf_symtab t;

	if (elf_symtab_pick(elf, &t))
		return;
	for (size_t i = 0; i < t.count; i++) {
		const char *name;
		GElf_Sym sym;
		size_t len;

		if (!elf_symtab_get(&t, i, &sym, &name, &len) ||
		    (GELF_ST_TYPE(sym.st_info) != STT_OBJECT &&
		     GELF_ST_TYPE(sym.st_info) != STT_FUNC) ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		for (size_t k = 0; k < n; k++)
			if (!*w[k].vaddr && strlen(w[k].name) == len &&
			    !memcmp(name, w[k].name, len))
				*w[k].vaddr = sym.st_value;
	}
}

int interp_segments(Elf *elf, uint64_t vaddr, uint64_t *off, uint64_t *delta)
{
	size_t n = 0;
	int found = 0;

	if (elf_getphdrnum(elf, &n))
		return -1;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if ((ph.p_flags & PF_X) && !(found & 2)) {
			*delta = ph.p_vaddr - ph.p_offset;
			found |= 2;
		}
		if (vaddr >= ph.p_vaddr && vaddr + 8 <= ph.p_vaddr + ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			found |= 1;
		}
	}
	return found == 3 ? 0 : -1;
}

/* vaddr's file offset where an executable segment holds it: a uprobe's place. */
static bool code_offset(Elf *elf, uint64_t vaddr, uint64_t *off)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n))
		return false;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_LOAD &&
		    (ph.p_flags & PF_X) && vaddr >= ph.p_vaddr &&
		    vaddr - ph.p_vaddr + 8 <= ph.p_filesz) {
			*off = vaddr - ph.p_vaddr + ph.p_offset;
			return true;
		}
	}
	return false;
}

void interp_starts(Elf *elf, const char *const *names, size_t n,
		   struct interp_start *out)
{
	struct interp_symbol w[INTERP_STARTS];

	n = n < INTERP_STARTS ? n : INTERP_STARTS;
	memset(out, 0, n * sizeof(*out));
	for (size_t i = 0; i < n; i++)
		w[i] = (struct interp_symbol){ names[i], &out[i].vaddr };
	interp_symbols(elf, w, n);
	for (size_t i = 0; i < n; i++)
		if (out[i].vaddr && !code_offset(elf, out[i].vaddr, &out[i].off))
			out[i] = (struct interp_start){ 0, 0 };
}

int interp_read(Elf *elf, int fd, uint64_t vaddr, void *buf, size_t len)
{
	uint64_t off = 0, end = 0, delta;

	if (len < 8 || interp_segments(elf, vaddr, &off, &delta) ||
	    interp_segments(elf, vaddr + len - 8, &end, &delta) ||
	    end - off != len - 8)
		return -1;
	return pread(fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/* A file's relocations are fewer than its symbols: the same cap. */
bool interp_has_rela(Elf *elf, uint64_t vaddr, uint32_t type)
{
	size_t seen = 0;
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA ||
		    sh.sh_entsize != sizeof(Elf64_Rela))
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize &&
				   seen < ELF_SYMS_MAX; i++, seen++) {
			GElf_Rela r;

			if (gelf_getrela(d, i, &r) && r.r_offset == vaddr &&
			    GELF_R_TYPE(r.r_info) == type)
				return true;
		}
	}
	return false;
}

/* LP64 on a machine whose layouts are known (x86_64, arm64). */
static bool interp_is_lp64(const GElf_Ehdr *eh)
{
	return eh->e_ident[EI_CLASS] == ELFCLASS64 &&
	       (eh->e_machine == EM_X86_64 || eh->e_machine == EM_AARCH64);
}

Elf *interp_elf_open(int fd, struct interp_symbol *w, size_t n)
{
	GElf_Ehdr eh;
	Elf *elf;

	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return NULL;
	if (!gelf_getehdr(elf, &eh) || !interp_is_lp64(&eh)) {
		elf_end(elf);
		return NULL;
	}
	interp_symbols(elf, w, n);
	return elf;
}
