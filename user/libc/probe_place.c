// SPDX-License-Identifier: GPL-2.0
/*
 * A deliberately small x86_64 decoder: the instructions compilers put in
 * a function's first block.  Unknown means stop, never guess.
 */
#include "probe_place.h"

#define ENTRY_WINDOW	48	/* bytes of the entry block we look at */
#define REG_SP		4

enum insn_class {
	INSN_STOP,		/* unknown, a branch we cannot follow, or sp lost */
	INSN_PLAIN,		/* falls through; sp moves by sp_delta */
	INSN_EMULATED,		/* the kernel emulates it: a cheap probe spot */
};

struct insn {
	enum insn_class class;
	unsigned int len;
	long sp_delta;
};

struct cursor {
	const uint8_t *p;
	size_t left;
	unsigned int len;
	uint8_t rex;
	bool opsize;		/* 0x66 */
	bool other_prefix;	/* lock, segment, rep */
};

static bool take(struct cursor *c, unsigned int n)
{
	if (c->left < c->len + n)
		return false;
	c->len += n;
	return true;
}

static uint8_t byte_at(const struct cursor *c, unsigned int i)
{
	return c->p[i];
}

static void read_prefixes(struct cursor *c)
{
	while (c->len < c->left) {
		uint8_t b = byte_at(c, c->len);

		if (b == 0x66)
			c->opsize = true;
		else if (b == 0xf0 || b == 0xf2 || b == 0xf3 || b == 0x64 ||
			 b == 0x65 || b == 0x2e || b == 0x3e)
			c->other_prefix = true;
		else
			break;
		c->len++;
	}
	if (c->len < c->left && (byte_at(c, c->len) & 0xf0) == 0x40)
		c->rex = byte_at(c, c->len++);
}

struct modrm {
	unsigned int mod, reg, rm;
};

/* Consumes ModRM, SIB and displacement; false when out of bytes. */
static bool read_modrm(struct cursor *c, struct modrm *m)
{
	uint8_t b, sib;

	if (!take(c, 1))
		return false;
	b = byte_at(c, c->len - 1);
	m->mod = b >> 6;
	m->reg = ((b >> 3) & 7) | ((c->rex & 4) << 1);
	m->rm = (b & 7) | ((c->rex & 1) << 3);
	if (m->mod == 3)
		return true;
	if ((b & 7) == 4) {
		if (!take(c, 1))
			return false;
		sib = byte_at(c, c->len - 1);
		if (m->mod == 0 && (sib & 7) == 5)
			return take(c, 4);
	}
	if (m->mod == 0 && (b & 7) == 5)
		return take(c, 4);		/* rip-relative */
	return take(c, m->mod == 1 ? 1 : m->mod == 2 ? 4 : 0);
}

static bool is_sp(const struct modrm *m, bool rm)
{
	return rm ? m->mod == 3 && m->rm == REG_SP : m->reg == REG_SP;
}

/* add/sub of an immediate to rsp (0x83, 0x81): the frame set-up. */
static struct insn group1(struct cursor *c, unsigned int imm)
{
	struct insn i = { .class = INSN_STOP };
	struct modrm m;
	long v;

	if (!read_modrm(c, &m) || !take(c, imm))
		return i;
	v = imm == 1 ? (int8_t)byte_at(c, c->len - 1) :
	    (int32_t)(byte_at(c, c->len - 4) | byte_at(c, c->len - 3) << 8 |
		      byte_at(c, c->len - 2) << 16 |
		      (uint32_t)byte_at(c, c->len - 1) << 24);
	if (is_sp(&m, true)) {
		if (!(c->rex & 8) || (m.reg != 0 && m.reg != 5))
			return i;
		i.sp_delta = m.reg == 5 ? -v : v;
	}
	i.class = INSN_PLAIN;
	i.len = c->len;
	return i;
}

/* ModRM instructions with no immediate; writes_rm/writes_reg: which side. */
static struct insn modrm_insn(struct cursor *c, bool writes_rm,
			      bool writes_reg, unsigned int imm)
{
	struct insn i = { .class = INSN_STOP };
	struct modrm m;

	if (!read_modrm(c, &m) || !take(c, imm))
		return i;
	if ((writes_rm && is_sp(&m, true)) || (writes_reg && is_sp(&m, false)))
		return i;
	i.class = INSN_PLAIN;
	i.len = c->len;
	return i;
}

static struct insn emulated(struct cursor *c, unsigned int n)
{
	struct insn i = { .class = INSN_STOP };

	/* The kernel's push/branch emulation takes no prefixes but REX.B. */
	if (c->opsize || c->other_prefix || (c->rex && c->rex != 0x41) ||
	    !take(c, n))
		return i;
	i.class = INSN_EMULATED;
	i.len = c->len;
	return i;
}

static struct insn two_byte(struct cursor *c)
{
	struct insn i = { .class = INSN_STOP };
	uint8_t op;

	if (!take(c, 1))
		return i;
	op = byte_at(c, c->len - 1);
	if (op >= 0x80 && op <= 0x8f && !c->rex)
		return emulated(c, 4);		/* jcc rel32 */
	if (op == 0x1e && take(c, 1) && byte_at(c, c->len - 1) == 0xfa) {
		i.class = INSN_PLAIN;		/* endbr64 */
		i.len = c->len;
		return i;
	}
	if (op == 0xb6 || op == 0xb7 || op == 0xbe || op == 0xbf)
		return modrm_insn(c, false, true, 0);	/* movzx, movsx */
	if (op == 0x1f)
		return modrm_insn(c, false, false, 0);	/* multi-byte nop */
	return i;
}

static struct insn decode(const uint8_t *p, size_t left)
{
	struct cursor c = { .p = p, .left = left };
	struct insn stop = { .class = INSN_STOP };
	unsigned int imm;
	uint8_t op;

	read_prefixes(&c);
	if (!take(&c, 1))
		return stop;
	op = byte_at(&c, c.len - 1);
	imm = c.opsize ? 2 : 4;
	if (op >= 0x50 && op <= 0x57)
		return emulated(&c, 0);			/* push reg */
	if (op == 0x90)
		return emulated(&c, 0);			/* nop */
	if (op == 0xe8 || op == 0xe9)
		return emulated(&c, 4);			/* call, jmp rel32 */
	if (op == 0xeb || (op >= 0x70 && op <= 0x7f))
		return emulated(&c, 1);			/* jmp, jcc rel8 */
	if (op == 0x0f)
		return two_byte(&c);
	switch (op) {
	case 0x01: case 0x09: case 0x21: case 0x29: case 0x31:
	case 0x88: case 0x89:
		return modrm_insn(&c, true, false, 0);
	case 0x03: case 0x0b: case 0x23: case 0x2b: case 0x33:
	case 0x8a: case 0x8b: case 0x8d:
		return modrm_insn(&c, false, true, 0);
	case 0x38: case 0x39: case 0x3a: case 0x3b: case 0x84: case 0x85:
		return modrm_insn(&c, false, false, 0);
	case 0xc6:
		return modrm_insn(&c, true, false, 1);
	case 0xc7:
		return modrm_insn(&c, true, false, imm);
	case 0x83:
		return group1(&c, 1);
	case 0x81:
		return c.opsize ? stop : group1(&c, 4);
	}
	if (op >= 0xb8 && op <= 0xbf) {
		struct insn i = { .class = INSN_PLAIN };

		if ((op & 7) == REG_SP && !(c.rex & 1))
			return stop;
		if (!take(&c, (c.rex & 8) ? 8 : imm))
			return stop;
		i.len = c.len;
		return i;
	}
	return stop;
}

static bool lands_in(long target, uint64_t end)
{
	return target > 0 && (uint64_t)target <= end;
}

/*
 * Whether any relative branch in the function may land inside (0, end]:
 * then a probe there would count some calls twice.  Every byte position is
 * tried as a branch, decoded or not: a false alarm only costs speed.
 */
static bool branch_into(const uint8_t *code, size_t len, uint64_t end)
{
	for (size_t i = 0; i < len; i++) {
		uint8_t b = code[i];
		long t;

		if ((b == 0xeb || (b >= 0x70 && b <= 0x7f)) && i + 2 <= len) {
			t = (long)i + 2 + (int8_t)code[i + 1];
			if (lands_in(t, end))
				return true;
		}
		if ((b == 0xe8 || b == 0xe9) && i + 5 <= len) {
			t = (long)i + 5 + (int32_t)(code[i + 1] | code[i + 2] << 8 |
					code[i + 3] << 16 |
					(uint32_t)code[i + 4] << 24);
			if (lands_in(t, end))
				return true;
		}
		if (b == 0x0f && i + 6 <= len && code[i + 1] >= 0x80 &&
		    code[i + 1] <= 0x8f) {
			t = (long)i + 6 + (int32_t)(code[i + 2] | code[i + 3] << 8 |
					code[i + 4] << 16 |
					(uint32_t)code[i + 5] << 24);
			if (lands_in(t, end))
				return true;
		}
	}
	return false;
}

struct probe_place probe_place_find(const uint8_t *code, size_t len)
{
	struct probe_place first = { 0, false };
	size_t window = len < ENTRY_WINDOW ? len : ENTRY_WINDOW;
	uint64_t off = 0;
	long sp = 0;

	while (off < window) {
		struct insn i = decode(code + off, window - off);

		if (i.class == INSN_EMULATED) {
			struct probe_place at = { off, true };

			if (off == 0)
				return at;
			return branch_into(code, len, off) ? first : at;
		}
		if (i.class == INSN_STOP)
			return first;
		sp += i.sp_delta;
		if (sp)
			return first;	/* the return address left sp */
		off += i.len;
	}
	return first;
}
