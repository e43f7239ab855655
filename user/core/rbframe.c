// SPDX-License-Identifier: GPL-2.0
/* --lang, Ruby frame mode: see rbframe.h. */
#include <gelf.h>
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

static const struct {
	const char *prefix;	/* of ruby_version, "3.1.2" */
	uint32_t version;
	const struct rb_offsets *off;
} rb_layouts[] = {
	{ "3.1.", 0x0301, &rb31 },
};

/* The layout ruby_version ("X.Y.Z", in the file's data) names. */
static const struct rb_offsets *layout_of(Elf *elf, int fd, uint64_t version,
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
			return rb_layouts[i].off;
		}
	return NULL;
}

int rbframe_binary(int fd, struct rb_binary *b)
{
	uint64_t version = 0;
	struct interp_symbol w[] = {
		{ "ruby_current_vm_ptr", &b->vm_ptr },
		{ "ruby_version", &version },
	};
	const struct rb_offsets *o;
	Elf *elf;
	int ret = -1;

	memset(b, 0, sizeof(*b));
	elf = interp_elf_open(fd, w, sizeof(w) / sizeof(w[0]));
	if (!elf)
		return -1;
	o = layout_of(elf, fd, version, b);
	if (o && b->vm_ptr) {
		b->off = *o;
		ret = 0;
	}
	elf_end(elf);
	return ret;
}

void rbframe_proc(const struct rb_binary *b, const struct maps_entry *e,
		  struct rb_proc *out)
{
	/* The load base of libruby (or of a ruby linked statically). */
	uint64_t bias = e->start - e->offset - b->exec_delta;

	memset(out, 0, sizeof(*out));
	out->vm_ptr = b->vm_ptr + bias;
	out->off = b->off;
}
