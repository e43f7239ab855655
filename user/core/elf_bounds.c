// SPDX-License-Identifier: GPL-2.0
/* Caps on what is read of an ELF file: see elf_bounds.h. */
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "elf_bounds.h"

static bool strtab_valid(Elf *elf, size_t ndx, size_t budget,
			 struct elf_symtab *t)
{
	Elf_Scn *scn = elf_getscn(elf, ndx);
	Elf_Data *data;
	GElf_Shdr sh;

	if (!ndx || !scn || !gelf_getshdr(scn, &sh) ||
	    sh.sh_type != SHT_STRTAB || (sh.sh_flags & SHF_COMPRESSED) ||
	    sh.sh_size > budget)
		return false;
	data = elf_getdata(scn, NULL);
	if (!data || !data->d_buf || data->d_size != sh.sh_size)
		return false;
	t->strs = data->d_buf;
	t->strs_size = data->d_size;
	return true;
}

/*
 * A table whose entries are not the class's Sym size is not one a linker
 * wrote: readers that trust sh_entsize count 24 times too many entries.
 */
static bool symtab_valid(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh,
			 struct elf_symtab *t)
{
	size_t entsize = gelf_fsize(elf, ELF_T_SYM, 1, EV_CURRENT);

	if (!entsize || sh->sh_entsize != entsize || sh->sh_size % entsize ||
	    (sh->sh_flags & SHF_COMPRESSED) || sh->sh_size > ELF_READ_MAX)
		return false;
	if (!strtab_valid(elf, sh->sh_link, ELF_READ_MAX - sh->sh_size, t))
		return false;
	t->syms = elf_getdata(scn, NULL);
	if (!t->syms || !t->syms->d_buf || t->syms->d_size != sh->sh_size)
		return false;
	t->count = sh->sh_size / entsize;
	if (t->count > ELF_SYMS_MAX)
		t->count = ELF_SYMS_MAX;
	t->dynamic = sh->sh_type == SHT_DYNSYM;
	t->ndx = elf_ndxscn(scn);
	return true;
}

static int first_valid(Elf *elf, Elf64_Word type, struct elf_symtab *t)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == type &&
		    symtab_valid(elf, scn, &sh, t))
			return 0;
	}
	return -1;
}

int elf_symtab_pick(Elf *elf, struct elf_symtab *t)
{
	memset(t, 0, sizeof(*t));
	if (!first_valid(elf, SHT_SYMTAB, t) || !first_valid(elf, SHT_DYNSYM, t))
		return 0;
	memset(t, 0, sizeof(*t));
	return -1;
}

/*
 * Not elf_strptr(): it checks that a name ends by scanning from the name
 * to the end of the table, once per name, when the table does not end in
 * a NUL.  Here a name costs at most ELF_NAME_MAX bytes.
 */
bool elf_symtab_get(const struct elf_symtab *t, size_t i, GElf_Sym *sym,
		    const char **name, size_t *len)
{
	size_t room, n;

	if (i >= t->count || !gelf_getsym(t->syms, i, sym) ||
	    !sym->st_name || sym->st_name >= t->strs_size)
		return false;
	room = t->strs_size - sym->st_name;
	n = strnlen(t->strs + sym->st_name,
		    room < ELF_NAME_MAX ? room : ELF_NAME_MAX);
	if (!n || n == room)
		return false;
	*name = t->strs + sym->st_name;
	*len = n;
	return true;
}

static uint64_t be64(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | p[i];
	return v;
}

/*
 * The size of the section once inflated, and whether it is compressed at
 * all; false when it claims to be and its header cannot be read.
 */
static bool inflated_size(Elf_Scn *scn, const GElf_Shdr *sh,
			  const char *name, int fd, uint64_t *size,
			  bool *compressed)
{
	unsigned char gnu[12];
	GElf_Chdr ch;

	*compressed = false;
	*size = sh->sh_type == SHT_NOBITS ? 0 : sh->sh_size;
	if (sh->sh_flags & SHF_COMPRESSED) {
		if (!gelf_getchdr(scn, &ch))
			return false;
		*size = ch.ch_size;
		*compressed = true;
	} else if (name && !strncmp(name, ".zdebug", 7) && *size) {
		if (pread(fd, gnu, sizeof(gnu), sh->sh_offset) != sizeof(gnu))
			return false;
		if (!memcmp(gnu, "ZLIB", 4)) {
			*size = be64(gnu + 4);
			*compressed = true;
		}
	}
	return true;
}

static bool is_debug(const char *name)
{
	return name && (!strncmp(name, ".debug", 6) ||
			!strncmp(name, ".zdebug", 7));
}

/*
 * Section names are looked up with elf_strptr(), by libdw too: a table
 * that does not end in a NUL costs a scan of it per name.
 */
static bool names_end(Elf *elf, size_t shstrndx)
{
	Elf_Data *data = elf_getdata(elf_getscn(elf, shstrndx), NULL);

	return data && data->d_buf && data->d_size &&
	       !((const char *)data->d_buf)[data->d_size - 1];
}

bool elf_dwarf_within_caps(Elf *elf, int fd)
{
	uint64_t total = 0, size;
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool compressed;
	GElf_Shdr sh;

	if (elf_getshdrstrndx(elf, &shstrndx) || !names_end(elf, shstrndx))
		return false;
	while ((scn = elf_nextscn(elf, scn))) {
		const char *name;

		if (!gelf_getshdr(scn, &sh))
			return false;
		name = elf_strptr(elf, shstrndx, sh.sh_name);
		if (!inflated_size(scn, &sh, name, fd, &size, &compressed))
			return false;
		if (compressed && (size > DWARF_ZSECTION_MAX ||
				   size / DWARF_ZRATIO_MAX > sh.sh_size))
			return false;
		if (is_debug(name))
			total += size;
		if (total > DWARF_READ_MAX)
			return false;
	}
	return true;
}
