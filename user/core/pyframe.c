// SPDX-License-Identifier: GPL-2.0
/* --lang, Python frame mode: see pyframe.h. */
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "elf_bounds.h"
#include "pyframe.h"

/*
 * CPython 3.11 on LP64, from offsetof() against Debian's python3.11-dev
 * headers (Include/internal/pycore_runtime.h, pycore_frame.h,
 * cpython/code.h, cpython/unicodeobject.h); checked again by
 * tests/unit/pyframe_test.c.  Only _PyRuntime's field moves with the
 * machine: the GIL's pthread mutexes before it are 40 bytes on x86_64 and
 * 48 on arm64 (aarch64-linux-gnu-gcc against the same headers: 592).
 */
#define TSTATE_CURRENT_X86_64	576
#define TSTATE_CURRENT_AARCH64	592

static const struct py_offsets py311 = {
	.tstate_current = TSTATE_CURRENT_X86_64,
	.native_thread_id = 160,
	.cframe = 56,
	.current_frame = 8,
	.f_code = 32,
	.previous = 48,
	.prev_instr = 56,
	.owner = 69,
	.co_filename = 112,
	.co_name = 120,
	.co_firstlineno = 72,
	.co_linetable = 136,
	.co_firsttraceable = 168,
	.co_code_adaptive = 184,
	.ob_type = 8,
	.ob_size = 16,
	.str_state = 32,
	.str_data = 48,
	.bytes_data = 32,
};

#define PY_VERSION_MAJOR_MINOR(v)	((v) >> 16)
#define PY_311				0x030b

struct wanted {
	const char *name;
	uint64_t *vaddr;
};

/* In the one symbol table elf_bounds.h lets us read, within its caps. */
static void find_symbols(Elf *elf, struct wanted *w, size_t n)
{
	struct elf_symtab t;

	if (elf_symtab_pick(elf, &t))
		return;
	for (size_t i = 0; i < t.count; i++) {
		const char *name;
		GElf_Sym sym;
		size_t len;

		if (!elf_symtab_get(&t, i, &sym, &name, &len) ||
		    GELF_ST_TYPE(sym.st_info) != STT_OBJECT ||
		    sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		for (size_t k = 0; k < n; k++)
			if (!*w[k].vaddr && strlen(w[k].name) == len &&
			    !memcmp(name, w[k].name, len))
				*w[k].vaddr = sym.st_value;
	}
}

/* The file offset of vaddr, and the code segment's vaddr - offset. */
static int segments(Elf *elf, uint64_t vaddr, uint64_t *off, uint64_t *delta)
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

/* Py_Version (3.11+) names the version the file was built as. */
static bool is_311(Elf *elf, int fd, uint64_t version, uint64_t *delta)
{
	uint64_t off = 0, v = 0;

	if (!version || segments(elf, version, &off, delta) ||
	    pread(fd, &v, sizeof(v), off) != sizeof(v))
		return false;
	return PY_VERSION_MAJOR_MINOR(v) == PY_311;
}

static bool tstate_current_of(const GElf_Ehdr *eh, struct py_binary *b)
{
	if (eh->e_ident[EI_CLASS] != ELFCLASS64)
		return false;
	if (eh->e_machine == EM_X86_64)
		b->tstate_current = TSTATE_CURRENT_X86_64;
	else if (eh->e_machine == EM_AARCH64)
		b->tstate_current = TSTATE_CURRENT_AARCH64;
	return b->tstate_current;
}

int pyframe_binary(int fd, struct py_binary *b)
{
	uint64_t version = 0;
	struct wanted w[] = {
		{ "_PyRuntime", &b->runtime },
		{ "PyCode_Type", &b->code_type },
		{ "PyUnicode_Type", &b->str_type },
		{ "PyBytes_Type", &b->bytes_type },
		{ "Py_Version", &version },
	};
	Elf *elf;
	int ret = -1;

	GElf_Ehdr eh;

	memset(b, 0, sizeof(*b));
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!elf)
		return -1;
	if (!gelf_getehdr(elf, &eh) || !tstate_current_of(&eh, b)) {
		elf_end(elf);
		return -1;
	}
	find_symbols(elf, w, sizeof(w) / sizeof(w[0]));
	if (b->runtime && b->code_type && b->str_type && b->bytes_type &&
	    is_311(elf, fd, version, &b->exec_delta))
		ret = 0;
	elf_end(elf);
	return ret;
}

void pyframe_proc(const struct py_binary *b, const struct maps_entry *e,
		  struct py_proc *out)
{
	/* 0 for a fixed-address executable; the load base of a PIE or .so. */
	uint64_t bias = e->start - e->offset - b->exec_delta;

	memset(out, 0, sizeof(*out));
	out->runtime = b->runtime + bias;
	out->code_type = b->code_type + bias;
	out->str_type = b->str_type + bias;
	out->bytes_type = b->bytes_type + bias;
	out->off = py311;
	out->off.tstate_current = b->tstate_current;
}

/* Objects/locations.md of CPython 3.11: the kinds of entry. */
enum {
	LOC_ONE_LINE0 = 10,
	LOC_ONE_LINE2 = 12,
	LOC_NO_COLUMNS = 13,
	LOC_LONG = 14,
	LOC_NONE = 15,
};

#define VARINT_SHIFT_MAX	30

static bool varint(const uint8_t *t, uint32_t len, uint32_t *i, uint32_t *val)
{
	unsigned int shift = 0;
	uint8_t b;

	*val = 0;
	do {
		if (*i >= len || shift > VARINT_SHIFT_MAX)
			return false;
		b = t[(*i)++];
		*val |= (uint32_t)(b & 63) << shift;
		shift += 6;
	} while (b & 64);
	return true;
}

static bool line_delta(const uint8_t *t, uint32_t len, uint32_t i, int *delta)
{
	int kind = (t[i] >> 3) & 15;
	uint32_t v;

	*delta = 0;
	if (kind >= LOC_ONE_LINE0 && kind <= LOC_ONE_LINE2)
		*delta = kind - LOC_ONE_LINE0;
	if (kind != LOC_NO_COLUMNS && kind != LOC_LONG)
		return true;
	i++;
	if (!varint(t, len, &i, &v))
		return false;
	*delta = v & 1 ? -(int)(v >> 1) : (int)(v >> 1);
	return true;
}

int pyframe_line(const uint8_t *table, uint32_t len, uint32_t size,
		 int32_t firstlineno, uint32_t instr)
{
	int64_t line = firstlineno, here = -1;
	uint64_t end = 0;
	uint32_t i = 0;
	int delta;

	if (instr == PY_INSTR_NONE)
		return firstlineno;
	if (len > size)
		len = size;
	while (end <= instr) {
		if (i >= len || !line_delta(table, len, i, &delta))
			return -1;
		line += delta;
		here = ((table[i] >> 3) & 15) == LOC_NONE ? 0 : line;
		end += ((table[i] & 7) + 1) * 2;
		do
			i++;
		while (i < len && !(table[i] & 128));
	}
	return here < 0 || here > INT32_MAX ? 0 : (int)here;
}
