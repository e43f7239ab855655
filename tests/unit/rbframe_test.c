// SPDX-License-Identifier: GPL-2.0
/*
 * --lang's Ruby frame mode (user/core/rbframe.c): Debian's libruby-3.1 is
 * read as Ruby 3.1, with ruby_current_vm_ptr where its symbol table says,
 * moved by the load base; a libruby-3.3 (x86_64) as Ruby 3.3, with the
 * tls_index its rb_thread_current() passes to __tls_get_addr(); other
 * files are not read as Ruby.  The offsets themselves are proved against
 * running Rubies by tests/lang_ruby.bats and tests/lang_trixie.bats.
 */
#include "unit_test.h"

#include <gelf.h>
#include <stdint.h>
#include <string.h>
#include <fcntl.h>
#include <unistd.h>

#include "rbframe.h"

#ifndef LIBRUBY31
#define LIBRUBY31	"/usr/lib/" MULTIARCH "/libruby-3.1.so.3.1"
#endif

/* The dynamic symbol's value, read here independently of interp_elf.c. */
static uint64_t symbol_value(int fd, const char *want)
{
	Elf *elf = elf_begin(fd, ELF_C_READ, NULL);
	Elf_Scn *scn = NULL;
	uint64_t v = 0;

	while (elf && (scn = elf_nextscn(elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Sym s;

			if (gelf_getsym(d, i, &s) &&
			    !strcmp(elf_strptr(elf, sh.sh_link, s.st_name), want))
				v = s.st_value;
		}
	}
	elf_end(elf);
	return v;
}

static void libruby31_is_read(void **state)
{
	struct maps_entry e = { .offset = 0x33000 };
	struct rb_binary b;
	struct rb_proc p;
	int fd = open(LIBRUBY31, O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(rbframe_binary(fd, &b), 0);
	elf_version(EV_CURRENT);
	assert_int_equal(b.vm_ptr, symbol_value(fd, "ruby_current_vm_ptr"));
	/* lang_start's uprobe: ruby_setup, at its offset in the file. */
	assert_int_equal(b.starts[0].vaddr, symbol_value(fd, "ruby_setup"));
	assert_int_equal(b.starts[0].off, b.starts[0].vaddr - b.exec_delta);
	assert_int_equal(b.starts[1].vaddr, 0);
	close(fd);
	assert_int_equal(b.version, 0x0301);
	assert_int_equal(b.off.cf_size, 64);
	/* Its code mapped 0x7f0000000000 above where it was linked. */
	e.start = 0x7f0000000000ULL + b.exec_delta + e.offset;
	rbframe_proc(&b, &e, &p);
	assert_int_equal(p.vm_ptr, b.vm_ptr + 0x7f0000000000ULL);
	assert_memory_equal(&p.off, &b.off, sizeof(p.off));
}

#ifdef LIBRUBY33
/* Debian 13's, when tests/lang_trixie.bats has built its root already. */
#define LIBRUBY33_TRIXIE	"build/lang-root-trixie/usr/lib/x86_64-linux-gnu/libruby-3.3.so.3.3"

/* The stand-in's tls_index: the only DTPMOD64 slot, the code's lea's. */
static void libruby33_is_read(void **state)
{
	struct maps_entry e = { .offset = 0x1000 };
	struct rb_binary b;
	struct rb_proc p;
	int fd = open(LIBRUBY33, O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(rbframe_binary(fd, &b), 0);
	close(fd);
	assert_int_equal(b.version, 0x0303);
	assert_int_equal(b.vm_ptr, 0);
	assert_int_equal(b.tls_ec, 16);
	assert_int_equal(b.off.cf_size, 56);
	assert_true(b.tls_module > 0);
	e.start = 0x7f0000000000ULL + b.exec_delta + e.offset;
	rbframe_proc(&b, &e, &p);
	assert_int_equal(p.tls_module, b.tls_module + 0x7f0000000000ULL);
	assert_int_equal(p.tls_ec, 16);
	assert_int_equal(p.vm_ptr, 0);
}

/* A 3.3 whose rb_thread_current() reads another thread_ptr: not read. */
static void libruby33_other_code_is_not_read(void **state)
{
	struct rb_binary b;
	int fd = open(LIBRUBY33_OTHER, O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(rbframe_binary(fd, &b), -1);
	close(fd);
}

static void libruby33_of_trixie_is_read(void **state)
{
	struct rb_binary b;
	int fd = open(LIBRUBY33_TRIXIE, O_RDONLY);

	(void)state;
	if (fd < 0)	/* its root not built yet: the stand-in holds */
		return;
	assert_int_equal(rbframe_binary(fd, &b), 0);
	close(fd);
	assert_int_equal(b.version, 0x0303);
	assert_int_equal(b.tls_ec, 16);
}
#endif

static void python_is_not_ruby(void **state)
{
	struct rb_binary b;
	int fd = open("/usr/bin/python3.11", O_RDONLY);

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(rbframe_binary(fd, &b), -1);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(libruby31_is_read),
#ifdef LIBRUBY33
		cmocka_unit_test(libruby33_is_read),
		cmocka_unit_test(libruby33_other_code_is_not_read),
		cmocka_unit_test(libruby33_of_trixie_is_read),
#endif
		cmocka_unit_test(python_is_not_ruby),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
