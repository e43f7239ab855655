// SPDX-License-Identifier: GPL-2.0
/* --lang, Python frame mode: see pyframe.h. */
#include <gelf.h>
#include <string.h>
#include <unistd.h>

#include "interp_elf.h"
#include "pyframe.h"

/*
 * The struct offsets of each CPython version on LP64, from offsetof()
 * against its own headers (Include/internal/pycore_runtime.h,
 * pycore_interp.h, pycore_frame.h, cpython/code.h, cpython/pystate.h,
 * cpython/unicodeobject.h): Debian's python3.11-dev (checked again by
 * tests/unit/pyframe_test.c), CPython v3.12.1 and v3.13.0, each compiled
 * with gcc and aarch64-linux-gnu-gcc: the same on x86_64 and arm64, as
 * none of these fields lies past a pthread type.  3.13's are checked
 * against the _Py_DebugOffsets the file itself carries.
 */
static const struct py_offsets py311 = {
	.interp_head = 40,
	.threads_head = 16,
	.ts_next = 8,
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

/* 3.12: the frame starts with f_code; str lost wstr. */
static const struct py_offsets py312 = {
	.interp_head = 40,
	.threads_head = 72,
	.ts_next = 8,
	.native_thread_id = 144,
	.cframe = 56,
	.current_frame = 0,
	.f_code = 0,
	.previous = 8,
	.prev_instr = 56,
	.owner = 70,
	.co_filename = 112,
	.co_name = 120,
	.co_firstlineno = 68,
	.co_linetable = 136,
	.co_firsttraceable = 176,
	.co_code_adaptive = 192,
	.ob_type = 8,
	.ob_size = 16,
	.str_state = 32,
	.str_data = 40,
	.bytes_data = 32,
};

/* 3.13: no _PyCFrame; f_executable, instr_ptr (the same offset as lasti). */
static const struct py_offsets py313 = {
	.interp_head = 632,
	.threads_head = 7344,
	.ts_next = 8,
	.native_thread_id = 160,
	.cframe = PY_NO_CFRAME,
	.current_frame = 72,
	.f_code = 0,
	.previous = 8,
	.prev_instr = 56,
	.owner = 70,
	.co_filename = 112,
	.co_name = 120,
	.co_firstlineno = 68,
	.co_linetable = 136,
	.co_firsttraceable = 184,
	.co_code_adaptive = 200,
	.ob_type = 8,
	.ob_size = 16,
	.str_state = 32,
	.str_data = 40,
	.bytes_data = 32,
};

#define PY_VERSION_MAJOR_MINOR(v)	((v) >> 16)

static const struct {
	uint32_t version;
	const struct py_offsets *off;
} py_layouts[] = {
	{ 0x030b, &py311 },
	{ 0x030c, &py312 },
	{ 0x030d, &py313 },
};

/* The layout Py_Version (3.11+) names, read where the file keeps it. */
static const struct py_offsets *layout_of(Elf *elf, int fd, uint64_t version,
					  struct py_binary *b)
{
	uint64_t off = 0, v = 0;

	if (!version || interp_segments(elf, version, &off, &b->exec_delta) ||
	    pread(fd, &v, sizeof(v), off) != sizeof(v))
		return NULL;
	b->version = PY_VERSION_MAJOR_MINOR(v);
	for (size_t i = 0; i < sizeof(py_layouts) / sizeof(py_layouts[0]); i++)
		if (b->version == py_layouts[i].version)
			return py_layouts[i].off;
	return NULL;
}

/*
 * 3.13's _PyRuntime starts with _Py_DebugOffsets, in the file's data: a
 * build whose offsets are not the headers' (free-threaded, say) is not
 * read.  Indexes are of its uint64_t fields (pycore_runtime.h of v3.13.0).
 */
enum {
	DBG_FREE_THREADED = 2, DBG_INTERP_HEAD = 5, DBG_THREADS_HEAD = 9,
	DBG_TS_NEXT = 21, DBG_CURRENT_FRAME = 23, DBG_NATIVE_THREAD_ID = 25,
	DBG_PREVIOUS = 29, DBG_EXECUTABLE = 30, DBG_INSTR_PTR = 31,
	DBG_OWNER = 33, DBG_FILENAME = 35, DBG_NAME = 36, DBG_LINETABLE = 38,
	DBG_FIRSTLINENO = 39, DBG_CODE_ADAPTIVE = 43, DBG_OB_TYPE = 45,
	DBG_BYTES_SIZE = 65, DBG_BYTES_SVAL = 66, DBG_STR_STATE = 68,
	DBG_STR_SIZE = 70, DBG_WORDS = 73,
};

static bool debug_offsets_agree(Elf *elf, int fd, uint64_t runtime,
				const struct py_offsets *o)
{
	const struct { int i; uint64_t want; } f[] = {
		{ DBG_FREE_THREADED, 0 },
		{ DBG_INTERP_HEAD, o->interp_head },
		{ DBG_THREADS_HEAD, o->threads_head },
		{ DBG_TS_NEXT, o->ts_next },
		{ DBG_CURRENT_FRAME, o->current_frame },
		{ DBG_NATIVE_THREAD_ID, o->native_thread_id },
		{ DBG_PREVIOUS, o->previous },
		{ DBG_EXECUTABLE, o->f_code },
		{ DBG_INSTR_PTR, o->prev_instr },
		{ DBG_OWNER, o->owner },
		{ DBG_FILENAME, o->co_filename },
		{ DBG_NAME, o->co_name },
		{ DBG_LINETABLE, o->co_linetable },
		{ DBG_FIRSTLINENO, o->co_firstlineno },
		{ DBG_CODE_ADAPTIVE, o->co_code_adaptive },
		{ DBG_OB_TYPE, o->ob_type },
		{ DBG_BYTES_SIZE, o->ob_size },
		{ DBG_BYTES_SVAL, o->bytes_data },
		{ DBG_STR_STATE, o->str_state },
		{ DBG_STR_SIZE, o->str_data },
	};
	uint64_t w[DBG_WORDS], off = 0, delta = 0;

	if (interp_segments(elf, runtime, &off, &delta) ||
	    pread(fd, w, sizeof(w), off) != sizeof(w) ||
	    memcmp(w, "xdebugpy", 8))
		return false;
	for (size_t i = 0; i < sizeof(f) / sizeof(f[0]); i++)
		if (w[f[i].i] != f[i].want)
			return false;
	return true;
}

static const char *const py_starts[INTERP_STARTS] = {
	"Py_InitializeFromConfig", "Py_InitializeEx",
};

int pyframe_binary(int fd, struct py_binary *b)
{
	uint64_t version = 0;
	struct interp_symbol w[] = {
		{ "_PyRuntime", &b->runtime },
		{ "PyCode_Type", &b->code_type },
		{ "PyUnicode_Type", &b->str_type },
		{ "PyBytes_Type", &b->bytes_type },
		{ "Py_Version", &version },
	};
	const struct py_offsets *o;
	Elf *elf;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	elf = interp_elf_open(fd, w, sizeof(w) / sizeof(w[0]));
	if (!elf)
		return -1;
	/* python's main calls the first, an embedding program either. */
	interp_starts(elf, py_starts, INTERP_STARTS, b->starts);
	o = layout_of(elf, fd, version, b);
	if (o && o == &py313 && !debug_offsets_agree(elf, fd, b->runtime, o))
		o = NULL;
	if (o && b->runtime && b->code_type && b->str_type && b->bytes_type) {
		b->off = *o;
		ret = 0;
	}
	elf_end(elf);
	return ret;
}

void pyframe_proc(const struct py_binary *b, const struct maps_entry *e,
		  struct py_proc *out)
{
	/* 0 for a fixed-address executable; the load base of a PIE or .so. */
	pyframe_proc_at(b, e->start - e->offset - b->exec_delta, out);
}

void pyframe_proc_at(const struct py_binary *b, uint64_t bias,
		     struct py_proc *out)
{
	memset(out, 0, sizeof(*out));
	out->runtime = b->runtime + bias;
	out->code_type = b->code_type + bias;
	out->str_type = b->str_type + bias;
	out->bytes_type = b->bytes_type + bias;
	out->off = b->off;
}

/* Objects/locations.md of CPython 3.11 (3.12 and 3.13 the same): the kinds of entry. */
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
