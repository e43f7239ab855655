// SPDX-License-Identifier: GPL-2.0
/* --lang, Ruby frame mode: see rbframe.h. */
#include <gelf.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "interp_elf.h"
#include "rbframe.h"

/*
 * Ruby 3.1 on LP64 (vm_core.h, iseq.h, ractor_core.h, include/ruby/
 * internal/core/rstring.h and rarray.h at the v3_1_2 tag, release build:
 * VM_INSN_INFO_TABLE_IMPL 2 (the succinct line index), USE_ISEQ_NODE_ID
 * (a 12-byte line entry), no RVARGC, YJIT's jit_return in the control
 * frame).  Checked against Debian 12's libruby-3.1.so.3.1.2 by reading a
 * live process: the execution context it names in ruby_current_ec (its
 * TLS, through gdb) is the main ractor's running_ec, its thread's
 * thread_id is the thread's fs base, 64 bytes separate the control frames
 * up to the end of the VM stack, and the line of each frame is its
 * source's.  No debug symbols of it are reachable from here (Debian's
 * debug archive is not): a layout change within 3.1.x would go unseen
 * but for tests/lang_ruby.bats.  The same on arm64: no field lies past a
 * type whose size differs between the two (pthread_t, jmp_buf are after).
 */
static const struct rb_offsets rb31 = {
	.vm_main_ractor = 32,
	.running_ec = 520,
	.ec_thread = 48,
	.thread_id = 80,
	.ec_vm_stack = 0,
	.ec_vm_stack_size = 8,
	.ec_cfp = 16,
	.cf_size = 64,
	.cf_pc = 0,
	.cf_iseq = 16,
	.cf_ep = 32,
	.iseq_body = 16,
	.body_iseq_size = 4,
	.body_iseq_encoded = 8,
	.body_path = 64,
	.body_label = 80,
	.body_insns_info = 120,
	.body_insns_size = 136,
	.body_succ_table = 144,
	.insn_entry_size = 12,
	.str_heap_ptr = 24,
	.str_embed = 16,
	.ary_heap_ptr = 32,
	.ary_embed = 16,
};

/*
 * Ruby 3.3 on x86_64 (vm_core.h, iseq.h, iseq.c, thread_pthread.h,
 * include/ruby/internal/core/rstring.h and rarray.h of ruby-3.3.8, the
 * source of Debian 13's ruby3.3 3.3.8-2; release build, as for 3.1).
 * Its libruby exports neither ruby_current_vm_ptr nor ruby_current_ec:
 * the execution context is this thread's ruby_current_ec, found through
 * its TLS (tls_of() below, bpf/lang_ruby.bpf.h's rb_tls_ec()), so the
 * VM, ractor and thread fields are not read.  Checked against Debian
 * 13's libruby-3.3.so.3.3.8 by reading a live process (/proc/PID/mem, the
 * fs base from gdb): the DTV's entry of the module id in the tls_index
 * holds ruby_native_thread, ruby_nt_serial and ruby_current_ec (at 16);
 * that context's thread_ptr's ec is it, its nt's thread_id the fs base;
 * 56 bytes separate the control frames up to the end of the VM stack,
 * and each frame's path, label and line (through the succinct index) are
 * its source's.
 */
static const struct rb_offsets rb33 = {
	.ec_thread = 48,		/* checked in rb_thread_current()'s code */
	.ec_vm_stack = 0,		/* rb_execution_context_struct */
	.ec_vm_stack_size = 8,
	.ec_cfp = 16,
	.cf_size = 56,			/* pc sp iseq self ep block_code jit_return */
	.cf_pc = 0,
	.cf_iseq = 16,
	.cf_ep = 32,
	.iseq_body = 16,		/* rb_iseq_struct: flags wrapper body */
	.body_iseq_size = 4,		/* after enum rb_iseq_type */
	.body_iseq_encoded = 8,
	.body_path = 64,		/* after param (16 + 48 bytes) */
	.body_label = 80,		/* pathobj base_label label */
	.body_insns_info = 112,		/* location: int first_lineno now */
	.body_insns_size = 128,		/* body positions size */
	.body_succ_table = 136,
	.insn_entry_size = 12,		/* line_no node_id events */
	.str_heap_ptr = 24,		/* RString: basic, len, then as */
	.str_embed = 24,
	.ary_heap_ptr = 32,		/* RArray: as.heap len, aux, ptr */
	.ary_embed = 16,
};

static const struct rb_layout {
	const char *prefix;	/* of ruby_version, "3.1.2" */
	uint32_t version;
	bool tls;		/* the context from TLS, not ruby_current_vm_ptr */
	const struct rb_offsets *off;
} rb_layouts[] = {
	{ "3.1.", 0x0301, false, &rb31 },
	{ "3.3.", 0x0303, true, &rb33 },
};

/* The layout ruby_version ("X.Y.Z", in the file's data) names. */
static const struct rb_layout *layout_of(Elf *elf, int fd, uint64_t version,
					 struct rb_binary *b)
{
	uint64_t off = 0;
	char v[8] = "";

	if (!version || interp_segments(elf, version, &off, &b->exec_delta) ||
	    pread(fd, v, sizeof(v) - 1, off) != sizeof(v) - 1)
		return NULL;
	for (size_t i = 0; i < sizeof(rb_layouts) / sizeof(rb_layouts[0]); i++)
		if (!strncmp(v, rb_layouts[i].prefix, strlen(rb_layouts[i].prefix))) {
			b->version = rb_layouts[i].version;
			return &rb_layouts[i];
		}
	return NULL;
}

/*
 * Where rb_thread_current() (GET_THREAD()->self) reads ruby_current_ec,
 * the x86_64 general-dynamic sequence, then ec->thread_ptr:
 *   data16 lea TLS_INDEX(%rip),%rdi
 *   data16 data16 rex.W call __tls_get_addr
 *   mov (%rax),%rax; mov EC_THREAD(%rax),%rax
 * TLS_INDEX is the {module id, offset} pair the loader completes.
 */
#define TLS_CODE_LEN	40
#define TLS_SEQ_LEN	23
#define TLS_EC_MAX	4096	/* a TLS offset past this: not libruby's */

static const uint8_t tls_lea[] = { 0x66, 0x48, 0x8d, 0x3d };
static const uint8_t tls_call[] = { 0x66, 0x66, 0x48, 0xe8 };
static const uint8_t tls_load[] = { 0x48, 0x8b, 0x00, 0x48, 0x8b, 0x40 };

static int32_t le32(const uint8_t *p)
{
	return (int32_t)(p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24);
}

/* The tls_index rb_thread_current()'s code passes at i, or 0. */
static uint64_t tls_index_at(const uint8_t *code, size_t i, uint64_t func,
			     uint16_t ec_thread)
{
	const uint8_t *c = code + i;

	if (memcmp(c, tls_lea, sizeof(tls_lea)) ||
	    memcmp(c + 8, tls_call, sizeof(tls_call)) ||
	    memcmp(c + 16, tls_load, sizeof(tls_load)) || c[22] != ec_thread)
		return 0;
	return func + i + 8 + (int64_t)le32(c + 4);
}

/* ruby_current_ec's tls_index, checked to be one the loader completes. */
static int tls_of(Elf *elf, int fd, const GElf_Ehdr *eh,
		  const struct rb_offsets *o, struct rb_binary *b)
{
	uint64_t func = 0, index = 0, ec = 0;
	struct interp_symbol w[] = { { "rb_thread_current", &func } };
	uint8_t code[TLS_CODE_LEN];

	if (eh->e_machine != EM_X86_64)
		return -1;
	interp_symbols(elf, w, 1);
	if (!func || interp_read(elf, fd, func, code, sizeof(code)))
		return -1;
	for (size_t i = 0; !index && i + TLS_SEQ_LEN <= sizeof(code); i++)
		index = tls_index_at(code, i, func, o->ec_thread);
	/* The offset is the linker's, in the file, not left to a relocation. */
	if (!index || !interp_has_rela(elf, index, R_X86_64_DTPMOD64) ||
	    interp_has_rela(elf, index + 8, R_X86_64_DTPOFF64) ||
	    interp_read(elf, fd, index + 8, &ec, sizeof(ec)) ||
	    ec >= TLS_EC_MAX)
		return -1;
	b->tls_module = index;
	b->tls_ec = ec;
	return 0;
}

/* ruby_init's and an embedding program's first step. */
static const char *const rb_starts[] = { "ruby_setup" };

int rbframe_binary(int fd, struct rb_binary *b)
{
	uint64_t version = 0;
	struct interp_symbol w[] = {
		{ "ruby_current_vm_ptr", &b->vm_ptr },
		{ "ruby_version", &version },
	};
	const struct rb_layout *l;
	GElf_Ehdr eh;
	Elf *elf;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	elf = interp_elf_open(fd, w, sizeof(w) / sizeof(w[0]));
	if (!elf)
		return -1;
	interp_starts(elf, rb_starts, 1, b->starts);
	l = gelf_getehdr(elf, &eh) ? layout_of(elf, fd, version, b) : NULL;
	if (l && (l->tls ? !tls_of(elf, fd, &eh, l->off, b) : !!b->vm_ptr)) {
		b->off = *l->off;
		ret = 0;
	}
	elf_end(elf);
	return ret;
}

void rbframe_proc(const struct rb_binary *b, const struct maps_entry *e,
		  struct rb_proc *out)
{
	/* The load base of libruby (or of a ruby linked statically). */
	rbframe_proc_at(b, e->start - e->offset - b->exec_delta, out);
}

void rbframe_proc_at(const struct rb_binary *b, uint64_t bias,
		     struct rb_proc *out)
{
	memset(out, 0, sizeof(*out));
	out->vm_ptr = b->vm_ptr ? b->vm_ptr + bias : 0;
	out->tls_module = b->tls_module ? b->tls_module + bias : 0;
	out->tls_ec = b->tls_ec;
	out->off = b->off;
}
