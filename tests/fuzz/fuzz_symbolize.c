// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer: the readers of ELF files a traced program chooses (issue 23).
 * The input is written to a memfd and read as clocktrace reads a mapped
 * file: its symbols (elf_syms_*), its DWARF lines (srcline_*), and its
 * Python symbols (pyframe_binary).  Names come back NUL-terminated and
 * within ELF_NAME_MAX, a build-id is hex, and every call returns.  The
 * seeds are tiny shared objects built by tests/fuzz/Makefile.fuzz.
 */
#include <stdbool.h>
#include <stdint.h>
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

/* Source lines looked up per input: one per function named. */
#define LOOKUPS_MAX	64

/* Whether the names a and b ("f", "f+0x10") are of one function. */
static bool same_function(const char *a, const char *b)
{
	size_t n = strcspn(a, "+");

	return n == strcspn(b, "+") && !strncmp(a, b, n);
}

/*
 * Every offset of the file named as a return address, and the first
 * offset of each function named given a source line (libFuzzer's inputs
 * are at most 4 KiB; a file given on the command line is walked whole).
 */
static void name_every_offset(const struct elf_syms *s, struct srcline *lines,
			      size_t size)
{
	char *last = NULL;
	int lookups = 0;
	uint64_t vaddr;

	for (uint64_t off = 1; off <= size; off++) {
		char *name = elf_syms_name_ret_addr(s, off);

		check_name(name);
		if (!name)
			continue;
		if (lines && lookups < LOOKUPS_MAX &&
		    (!last || !same_function(last, name)) &&
		    !elf_syms_call_vaddr(s, off, &vaddr)) {
			struct srcline_frame fr[8];
			int n = srcline_frames(lines, vaddr, fr, 8);

			free(srcline_lookup(lines, vaddr));
			srcline_frames_free(fr, n);
			lookups++;
		}
		free(last);
		last = name;
	}
	free(last);
}

/*
 * A cap on any one allocation: libdw inflating a compressed section whole
 * is what DWARF_ZSECTION_MAX stops.  Flags given later still win.
 */
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	static char limit[] = "-malloc_limit_mb=192";
	char **args = calloc(*argc + 2, sizeof(*args));

	if (!args)
		abort();
	args[0] = (*argv)[0];
	args[1] = limit;
	memcpy(args + 2, *argv + 1, (*argc - 1) * sizeof(*args));
	*argv = args;
	(*argc)++;
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int fd = input_fd(data, size);
	struct srcline *lines;
	struct py_binary py;
	struct elf_func fn;
	struct elf_syms *s;

	pyframe_binary(fd, &py);
	s = elf_syms_load_fd(fd);
	if (!s)
		return 0;
	check_build_id(elf_syms_build_id(s));
	if (!elf_syms_find(s, "f", &fn) && strcmp(fn.name, "f"))
		abort();
	lines = srcline_open(elf_syms_fd(s), "fuzz");
	name_every_offset(s, lines, size);
	srcline_close(lines);
	elf_syms_free(s);
	return 0;
}
