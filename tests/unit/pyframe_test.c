// SPDX-License-Identifier: GPL-2.0
/*
 * --lang's Python frame mode (user/core/pyframe.c): the 3.11 struct offsets
 * against the CPython headers themselves (3.12's and 3.13's have no Debian
 * 12 package: 3.13's are checked against the file's _Py_DebugOffsets), and the location table decoded
 * as CPython's own code.co_lines() reads it.
 */
#include "unit_test.h"

#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#define Py_BUILD_CORE 1
#include <Python.h>
#include <internal/pycore_runtime.h>
#include <internal/pycore_frame.h>
#include <internal/pycore_interp.h>

#include "pyframe.h"

/* Debian's python3.11, the interpreter frame mode is for (a dependency). */
#define PYTHON311	"/usr/bin/python3.11"

static void offsets_are_the_headers(void **state)
{
	struct maps_entry e = { .offset = 0x1000 };
	struct py_binary b;
	struct py_proc p;
	int fd = open(PYTHON311, O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(pyframe_binary(fd, &b), 0);
	close(fd);
	/* lang_start's uprobes: both start-ups, in the code segment. */
	for (int i = 0; i < INTERP_STARTS; i++) {
		assert_true(b.starts[i].vaddr);
		assert_int_equal(b.starts[i].off,
				 b.starts[i].vaddr - b.exec_delta);
	}
	/* Mapped where it was linked: the addresses are the symbols'. */
	e.start = b.exec_delta + e.offset;
	pyframe_proc(&b, &e, &p);
	assert_int_equal(p.runtime, b.runtime);
	assert_true(p.runtime && p.code_type && p.str_type && p.bytes_type);
	assert_int_equal(b.version, 0x030b);
	assert_int_equal(p.off.interp_head,
			 offsetof(_PyRuntimeState, interpreters.head));
	assert_int_equal(p.off.threads_head,
			 offsetof(PyInterpreterState, threads.head));
	assert_int_equal(p.off.ts_next, offsetof(PyThreadState, next));
	assert_int_equal(p.off.native_thread_id,
			 offsetof(PyThreadState, native_thread_id));
	assert_int_equal(p.off.cframe, offsetof(PyThreadState, cframe));
	assert_int_equal(p.off.current_frame,
			 offsetof(_PyCFrame, current_frame));
	assert_int_equal(p.off.f_code, offsetof(_PyInterpreterFrame, f_code));
	assert_int_equal(p.off.previous,
			 offsetof(_PyInterpreterFrame, previous));
	assert_int_equal(p.off.prev_instr,
			 offsetof(_PyInterpreterFrame, prev_instr));
	assert_int_equal(p.off.owner, offsetof(_PyInterpreterFrame, owner));
	assert_int_equal(p.off.co_filename, offsetof(PyCodeObject, co_filename));
	assert_int_equal(p.off.co_name, offsetof(PyCodeObject, co_name));
	assert_int_equal(p.off.co_firstlineno,
			 offsetof(PyCodeObject, co_firstlineno));
	assert_int_equal(p.off.co_linetable,
			 offsetof(PyCodeObject, co_linetable));
	assert_int_equal(p.off.co_firsttraceable,
			 offsetof(PyCodeObject, _co_firsttraceable));
	assert_int_equal(p.off.co_code_adaptive,
			 offsetof(PyCodeObject, co_code_adaptive));
	assert_int_equal(p.off.ob_type, offsetof(PyObject, ob_type));
	assert_int_equal(p.off.ob_size, offsetof(PyVarObject, ob_size));
	assert_int_equal(p.off.str_state, offsetof(PyASCIIObject, state));
	assert_int_equal(p.off.str_data, sizeof(PyASCIIObject));
	assert_int_equal(p.off.bytes_data, offsetof(PyBytesObject, ob_sval));
	assert_int_equal(FRAME_OWNED_BY_GENERATOR, 1);
}

/* A PIE or a shared libpython: the addresses move with the load base. */
static void addresses_follow_the_load_base(void **state)
{
	struct maps_entry e = { .start = 0x7f0000021000, .offset = 0x20000 };
	struct py_binary b = { .runtime = 0x300000, .code_type = 0x200000,
			       .exec_delta = 0x1000 };
	struct py_proc p;

	(void)state;
	pyframe_proc(&b, &e, &p);
	assert_int_equal(p.runtime, 0x7f0000300000);
	assert_int_equal(p.code_type, 0x7f0000200000);
}

/* sample()'s co_linetable, firstlineno 2, from CPython 3.11.2 */
static const uint8_t table[] = {
	0x80, 0x00, 0xd8, 0x0c, 0x0d, 0x80, 0x45, 0xd8, 0x0d, 0x0f,
	0xf0, 0x00, 0x08, 0x05, 0x15, 0xf0, 0x00, 0x08, 0x05, 0x15,
	0x88, 0x01, 0xd8, 0x0b, 0x0c, 0xf0, 0x00, 0x07, 0x09, 0x15,
	0xd8, 0x0c, 0x11, 0x90, 0x61, 0xd8, 0x16, 0x17, 0xf1, 0x03,
	0x01, 0x17, 0x18, 0xf1, 0x00, 0x01, 0x0d, 0x19, 0x88, 0x45,
	0x88, 0x45, 0xf0, 0x06, 0x03, 0x0d, 0x15, 0xd8, 0x10, 0x15,
	0x98, 0x11, 0x91, 0x0a, 0x90, 0x05, 0x90, 0x05, 0xf8, 0xdd,
	0x13, 0x1d, 0xf0, 0x00, 0x01, 0x0d, 0x15, 0xf0, 0x00, 0x01,
	0x0d, 0x15, 0xf0, 0x00, 0x01, 0x0d, 0x15, 0xd8, 0x10, 0x14,
	0x90, 0x04, 0xf0, 0x03, 0x01, 0x0d, 0x15, 0xf8, 0xf8, 0xf8,
	0xf0, 0x04, 0x01, 0x0c, 0x1a, 0xf0, 0x00, 0x01, 0x0c, 0x1a,
	0xdd, 0x0c, 0x11, 0x90, 0x25, 0x89, 0x4c, 0x8c, 0x4c, 0xf0,
	0x03, 0x01, 0x0c, 0x1a, 0xf1, 0x00, 0x01, 0x0c, 0x1a, 0xf4,
	0x00, 0x01, 0x0c, 0x1a, 0xf0, 0x00, 0x01, 0x05, 0x1a,
};
static const struct { uint32_t instr; int line; } want[] = {
	{ 0, 2 },
	{ 2, 3 },
	{ 4, 3 },
	{ 6, 4 },
	{ 8, 4 },
	{ 10, 4 },
	{ 12, 4 },
	{ 14, 5 },
	{ 16, 5 },
	{ 18, 6 },
	{ 20, 6 },
	{ 22, 7 },
	{ 24, 6 },
	{ 26, 6 },
	{ 28, 6 },
	{ 30, 6 },
	{ 32, 6 },
	{ 34, 6 },
	{ 36, 9 },
	{ 38, 10 },
	{ 40, 10 },
	{ 42, 10 },
	{ 44, 10 },
	{ 46, 10 },
	{ 48, 10 },
	{ 50, 0 },
	{ 52, 11 },
	{ 54, 11 },
	{ 56, 11 },
	{ 58, 11 },
	{ 60, 11 },
	{ 62, 11 },
	{ 64, 11 },
	{ 66, 11 },
	{ 68, 11 },
	{ 70, 12 },
	{ 72, 12 },
	{ 74, 11 },
	{ 76, 0 },
	{ 78, 0 },
	{ 80, 0 },
	{ 82, 13 },
	{ 84, 13 },
	{ 86, 14 },
	{ 88, 14 },
	{ 90, 14 },
	{ 92, 14 },
	{ 94, 14 },
	{ 96, 14 },
	{ 98, 14 },
	{ 100, 14 },
	{ 102, 14 },
	{ 104, 14 },
	{ 106, 14 },
	{ 108, 14 },
	{ 110, 14 },
	{ 112, 14 },
	{ 114, 13 },
	{ 116, 13 },
	{ 118, 13 },
	{ 120, 13 },
	{ 122, 13 },
	{ 124, 13 },
	{ 126, 13 },
	{ 128, 13 },
	{ 130, 13 },
};

static void lines_as_co_lines(void **state)
{
	(void)state;
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		int got = pyframe_line(table, sizeof(table), sizeof(table), 2,
				       want[i].instr);

		if (got != want[i].line)
			fail_msg("instr %u: line %d, want %d", want[i].instr,
				 got, want[i].line);
	}
}

/* A table cut short says so: -1, never a wrong line. */
static void short_copy_is_unknown(void **state)
{
	uint32_t last = want[sizeof(want) / sizeof(want[0]) - 1].instr;

	(void)state;
	assert_int_equal(pyframe_line(table, 8, sizeof(table), 2, last), -1);
	assert_int_equal(pyframe_line(table, 0, 0, 2, 0), -1);
	assert_int_equal(pyframe_line(table, sizeof(table), sizeof(table), 2,
				      last + 2), -1);
	assert_int_equal(pyframe_line(table, sizeof(table), sizeof(table), 2,
				      PY_INSTR_NONE), 2);
}

/* Bytes a hostile process wrote: bounded whatever they say. */
static void endless_varint_is_unknown(void **state)
{
	uint8_t evil[64];

	(void)state;
	memset(evil, 0x7f, sizeof(evil));
	evil[0] = 0x80 | (14 << 3);
	assert_int_equal(pyframe_line(evil, sizeof(evil), sizeof(evil), 1, 0), -1);
	memset(evil, 0xff, sizeof(evil));
	assert_true(pyframe_line(evil, sizeof(evil), sizeof(evil), 1, 200) <= 1);
}

/* A start-up a file names in its data (a crafted file's) is probed nowhere. */
static void start_in_data_is_not_probed(void **state)
{
	static const char *const names[INTERP_STARTS] = {
		"_PyRuntime", "Py_InitializeEx",
	};
	struct interp_start s[INTERP_STARTS];
	int fd = open(PYTHON311, O_RDONLY);
	Elf *elf;

	(void)state;
	assert_true(fd >= 0);
	elf = interp_elf_open(fd, NULL, 0);
	assert_non_null(elf);
	interp_starts(elf, names, INTERP_STARTS, s);
	elf_end(elf);
	close(fd);
	assert_int_equal(s[0].vaddr, 0);
	assert_int_equal(s[0].off, 0);
	assert_true(s[1].vaddr && s[1].off);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(offsets_are_the_headers),
		cmocka_unit_test(addresses_follow_the_load_base),
		cmocka_unit_test(lines_as_co_lines),
		cmocka_unit_test(short_copy_is_unknown),
		cmocka_unit_test(endless_varint_is_unknown),
		cmocka_unit_test(start_in_data_is_not_probed),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
