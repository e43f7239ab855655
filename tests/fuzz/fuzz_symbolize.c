// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the readers of ELF files a traced program chooses (issue 23).
 * The input is written to a memfd and read as clocktrace reads a mapped
 * file: its symbols (elf_syms_*), its DWARF lines (srcline_*), and its
 * Python symbols (pyframe_binary).  Names come back NUL-terminated and
 * within ELF_NAME_MAX, a build-id is hex, and every call returns.  The
 * seeds are tiny shared objects built by tests/fuzz/Makefile.fuzz.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "elf_bounds.h"
#include "pyframe.h"
#include "srcline.h"
#include "symbolize.h"

static int input_fd(const uint8_t *data, size_t size)
{
	int fd = memfd_create("fuzz_symbolize", MFD_CLOEXEC);

	if (fd < 0)
		abort();
	if (write(fd, data, size) != (ssize_t)size)
		abort();
	return fd;
}

/* "name", "name+0xN": the name part within the cap. */
static void check_name(const char *s)
{
	const char *plus;

	if (!s)
		return;
	plus = strrchr(s, '+');
	if ((size_t)(plus ? plus - s : (ptrdiff_t)strlen(s)) > ELF_NAME_MAX)
		abort();
}

static void check_build_id(const char *id)
{
	size_t n;

	if (!id)
		return;
	n = strlen(id);
	if (!n || n % 2 || n > 128 || strspn(id, "0123456789abcdef") != n)
		abort();
}

/* File offsets to name: a few from the input's last bytes. */
static uint64_t probe_off(const uint8_t *data, size_t size, int i)
{
	uint64_t v = 0;

	for (int k = 0; k < 4 && (size_t)(i * 4 + k) < size; k++)
		v = v << 8 | data[size - 1 - i * 4 - k];
	return v % (size + 64);
}

static void fuzz_lines(const struct elf_syms *s, const struct elf_func *main_fn,
		       const uint8_t *data, size_t size)
{
	struct srcline *lines = srcline_open(elf_syms_fd(s), "fuzz");
	uint64_t vaddr;
	char *where;

	if (!lines)
		return;
	for (int i = 0; i < 4; i++) {
		if (elf_syms_call_vaddr(s, probe_off(data, size, i) + 1, &vaddr))
			continue;
		free(srcline_lookup(lines, vaddr));
	}
	if (main_fn) {
		where = srcline_lookup(lines, main_fn->vaddr);
		free(where);
	}
	srcline_close(lines);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = input_fd(data, size);
	struct py_binary py;
	struct elf_func fn;
	struct elf_syms *s;
	bool found;

	pyframe_binary(fd, &py);
	s = elf_syms_load_fd(fd);
	if (!s)
		return 0;
	check_build_id(elf_syms_build_id(s));
	found = !elf_syms_find(s, "f", &fn);
	if (found && strcmp(fn.name, "f"))
		abort();
	for (int i = 0; i < 4; i++) {
		char *name = elf_syms_name_ret_addr(s, probe_off(data, size, i));

		check_name(name);
		free(name);
	}
	fuzz_lines(s, found ? &fn : NULL, data, size);
	elf_syms_free(s);
	return 0;
}
