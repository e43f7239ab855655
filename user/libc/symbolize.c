// SPDX-License-Identifier: GPL-2.0
/* Function symbols, segments and build-id of an ELF file, with libelf. */
#include <fcntl.h>
#include <gelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "elf_bounds.h"
#include "symbolize.h"
#include "util.h"

#define VERSYM_HIDDEN	0x8000	/* not the default version of the name */

struct sym {
	char *name;
	uint64_t vaddr;
	uint64_t size;
	bool ifunc;
	bool hidden;		/* a non-default version */
};

struct segment {
	uint64_t vaddr;
	uint64_t offset;
	uint64_t filesz;
};

struct elf_syms {
	int fd;
	char *build_id;		/* hex, NULL when the file has none */
	struct sym *syms;	/* sorted by vaddr */
	size_t nsyms;
	struct segment *segs;	/* PT_LOAD */
	size_t nsegs;
};

static bool is_func(unsigned char info)
{
	int type = GELF_ST_TYPE(info);

	return type == STT_FUNC || type == STT_GNU_IFUNC;
}

static Elf_Data *versym_data(Elf *elf, size_t dynsym)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(elf, scn))) {
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym &&
		    sh.sh_link == dynsym)
			return elf_getdata(scn, NULL);
	}
	return NULL;
}

static void add_sym(struct elf_syms *s, size_t *cap, const char *name,
		    size_t len, const GElf_Sym *sym, bool hidden)
{
	struct sym *n;

	if (s->nsyms == *cap) {
		*cap = *cap ? *cap * 2 : 256;
		s->syms = xrealloc(s->syms, *cap, sizeof(*s->syms));
	}
	n = &s->syms[s->nsyms++];
	n->name = xcalloc(len + 1, 1);
	memcpy(n->name, name, len);
	n->vaddr = sym->st_value;
	n->size = sym->st_size;
	n->ifunc = GELF_ST_TYPE(sym->st_info) == STT_GNU_IFUNC;
	n->hidden = hidden;
}

/*
 * .symtab names a versioned symbol "name@@VER" (the default) or "name@VER"
 * where .dynsym has the name and a version table: *len cut to the name
 * alone, and true for a version other than the default.
 */
static bool cut_version(const char *name, size_t *len)
{
	const char *at = memchr(name, '@', *len);

	if (!at || at == name)
		return false;
	*len = at - name;
	return at[1] != '@';
}

/*
 * The functions of the one table elf_symtab_pick() chose, until
 * ELF_NAME_BYTES_MAX of names are kept: the caps of elf_bounds.h.
 */
static void read_symtab(struct elf_syms *s, Elf *elf)
{
	struct elf_symtab t;
	Elf_Data *vers;
	size_t cap = 0, kept = 0;

	if (elf_symtab_pick(elf, &t))
		return;
	vers = t.dynamic ? versym_data(elf, t.ndx) : NULL;
	for (size_t i = 0; i < t.count; i++) {
		GElf_Versym vs = 0;
		const char *name;
		GElf_Sym sym;
		bool hidden;
		size_t len;

		if (!elf_symtab_get(&t, i, &sym, &name, &len) ||
		    !is_func(sym.st_info) || sym.st_shndx == SHN_UNDEF ||
		    !sym.st_value)
			continue;
		kept += len + 1;
		if (kept > ELF_NAME_BYTES_MAX)
			break;
		if (vers)
			gelf_getversym(vers, i, &vs);
		hidden = vs & VERSYM_HIDDEN;
		if (!t.dynamic)
			hidden = cut_version(name, &len);
		add_sym(s, &cap, name, len, &sym, hidden);
	}
}

static void read_segments(struct elf_syms *s, Elf *elf)
{
	size_t n = 0;

	if (elf_getphdrnum(elf, &n))
		return;
	s->segs = xcalloc(n ? n : 1, sizeof(*s->segs));
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		s->segs[s->nsegs++] = (struct segment){
			.vaddr = ph.p_vaddr, .offset = ph.p_offset,
			.filesz = ph.p_filesz,
		};
	}
}

/* A build-id longer than this is not one a linker wrote. */
#define BUILD_ID_MAX	64

static char *hex_of(const unsigned char *p, size_t n)
{
	char *out = xcalloc(2 * n + 1, 1);

	for (size_t i = 0; i < n; i++)
		sprintf(out + 2 * i, "%02x", p[i]);
	return out;
}

static char *note_build_id(Elf_Data *data)
{
	size_t off = 0, name_off, desc_off;
	GElf_Nhdr nh;

	while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off))) {
		if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 &&
		    !memcmp((char *)data->d_buf + name_off, "GNU", 4) &&
		    nh.n_descsz && nh.n_descsz <= BUILD_ID_MAX)
			return hex_of((unsigned char *)data->d_buf + desc_off,
				      nh.n_descsz);
	}
	return NULL;
}

/* Notes looked through: at most ELF_READ_MAX bytes of them. */
static void read_build_id(struct elf_syms *s, Elf *elf)
{
	Elf_Scn *scn = NULL;
	uint64_t examined = 0;
	GElf_Shdr sh;

	while (!s->build_id && (scn = elf_nextscn(elf, scn))) {
		Elf_Data *data;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE ||
		    (sh.sh_flags & SHF_COMPRESSED))
			continue;
		examined += sh.sh_size;
		if (examined > ELF_READ_MAX)
			return;
		data = elf_getdata(scn, NULL);
		if (data && data->d_buf)
			s->build_id = note_build_id(data);
	}
}

static int by_vaddr(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	/* At one address, a sized symbol names the code best. */
	return (x->size < y->size) - (x->size > y->size);
}

static void read_elf(struct elf_syms *s, Elf *elf)
{
	/* .symtab when not stripped (it holds .dynsym's too), else .dynsym. */
	read_symtab(s, elf);
	read_segments(s, elf);
	read_build_id(s, elf);
	if (s->nsyms)
		qsort(s->syms, s->nsyms, sizeof(*s->syms), by_vaddr);
}

struct elf_syms *elf_syms_load_fd(int fd)
{
	struct elf_syms *s;
	Elf *elf;

	if (fd < 0)
		return NULL;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		close(fd);
		return NULL;
	}
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf || elf_kind(elf) != ELF_K_ELF) {
		elf_end(elf);
		close(fd);
		return NULL;
	}
	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	read_elf(s, elf);
	elf_end(elf);
	return s;
}

struct elf_syms *elf_syms_load(const char *path)
{
	return elf_syms_load_fd(open_regular(path));
}

void elf_syms_free(struct elf_syms *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nsyms; i++)
		free(s->syms[i].name);
	free(s->syms);
	free(s->segs);
	free(s->build_id);
	close(s->fd);
	free(s);
}

static bool vaddr_to_off(const struct elf_syms *s, uint64_t vaddr,
			 uint64_t *off)
{
	for (size_t i = 0; i < s->nsegs; i++) {
		const struct segment *g = &s->segs[i];

		if (vaddr >= g->vaddr && vaddr < g->vaddr + g->filesz) {
			*off = vaddr - g->vaddr + g->offset;
			return true;
		}
	}
	return false;
}

static bool off_to_vaddr(const struct elf_syms *s, uint64_t off,
			 uint64_t *vaddr)
{
	for (size_t i = 0; i < s->nsegs; i++) {
		const struct segment *g = &s->segs[i];

		if (off >= g->offset && off < g->offset + g->filesz) {
			*vaddr = off - g->offset + g->vaddr;
			return true;
		}
	}
	return false;
}

/* Default versions and unversioned symbols first, then the rest. */
static const struct sym *best_named(const struct elf_syms *s, const char *name)
{
	const struct sym *hidden = NULL;

	for (size_t i = 0; i < s->nsyms; i++) {
		if (strcmp(s->syms[i].name, name))
			continue;
		if (!s->syms[i].hidden)
			return &s->syms[i];
		hidden = hidden ? hidden : &s->syms[i];
	}
	return hidden;
}

int elf_syms_find(const struct elf_syms *s, const char *name,
		  struct elf_func *out)
{
	const struct sym *y = best_named(s, name);

	if (!y || !vaddr_to_off(s, y->vaddr, &out->file_off))
		return -1;
	out->name = y->name;
	out->vaddr = y->vaddr;
	out->size = y->size;
	out->ifunc = y->ifunc;
	return 0;
}

int elf_syms_read(const struct elf_syms *s, uint64_t off, void *buf,
		  size_t len)
{
	return pread(s->fd, buf, len, off) == (ssize_t)len ? 0 : -1;
}

/*
 * The function holding vaddr: the nearest symbol below that contains it,
 * looking a little further back for one that encloses others (aliases and
 * local labels sit inside).  An unsized symbol counts when it is nearest.
 */
static const struct sym *containing(const struct elf_syms *s, uint64_t vaddr)
{
	size_t lo = 0, hi = s->nsyms;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (s->syms[mid].vaddr <= vaddr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	for (size_t i = lo, seen = 0; i-- > 0 && seen < 64; seen++)
		if (vaddr < s->syms[i].vaddr + s->syms[i].size)
			return &s->syms[i];
	return s->syms[lo - 1].size ? NULL : &s->syms[lo - 1];
}

char *elf_syms_name_ret_addr(const struct elf_syms *s, uint64_t off)
{
	const struct sym *y;
	uint64_t vaddr;
	char *out;

	if (!off || !off_to_vaddr(s, off - 1, &vaddr))
		return NULL;
	y = containing(s, vaddr);
	if (!y)
		return NULL;
	vaddr++;	/* back to the return address itself */
	if (vaddr == y->vaddr)
		return xstrdup(y->name);
	if (asprintf(&out, "%s+0x%llx", y->name,
		     (unsigned long long)(vaddr - y->vaddr)) < 0)
		return NULL;
	return out;
}

const char *elf_syms_build_id(const struct elf_syms *s)
{
	return s->build_id;
}

int elf_syms_fd(const struct elf_syms *s)
{
	return s->fd;
}

int elf_syms_call_vaddr(const struct elf_syms *s, uint64_t ret_off,
			uint64_t *vaddr)
{
	return ret_off && off_to_vaddr(s, ret_off - 1, vaddr) ? 0 : -1;
}
