/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --lang, Ruby frame mode (Ruby 3.1, 3.3): at a kernel event of a Ruby
 * thread, the execution context holding the GVL (the VM's main ractor's
 * running one), checked to be this thread's (3.1), or the thread's own
 * from its TLS (3.3), its control frames walked from the innermost to
 * the first Ruby (iseq) frame, and that frame's line found from its pc in
 * the iseq's own line table: what rb_vm_get_sourceline() does.  Nothing
 * runs between events.  Inline in lang.bpf.c.
 */
#ifndef CLOCKTRACE_LANG_RUBY_BPF_H
#define CLOCKTRACE_LANG_RUBY_BPF_H

/* Control frames looked through (C methods, ifuncs) to a Ruby one. */
#define RB_FRAMES_MAX		16
/* The same for the outer frames: about two per Ruby frame (a block's). */
#define RB_OUTER_STEPS		(3 * LANG_OUTER_MAX)
/* vm_core.h and internal/imemo.h, Ruby 3.1. */
#define RB_FRAME_FLAG_CFRAME	0x0080
#define RB_T_MASK		0x1f
#define RB_T_STRING		0x05
#define RB_T_ARRAY		0x07
#define RB_T_IMEMO		0x1a
#define RB_IMEMO_ISEQ		7
#define RB_FL_USHIFT		12
#define RB_FL_USER1		(1ULL << 13)	/* a string not embedded, an array embedded */
/* iseq.c: the succinct line index's immediate part, and its blocks. */
#define RB_SUCC_IMM_SIZE	54
#define RB_SUCC_IMM_BYTES	48
#define RB_SUCC_BLOCK_BYTES	80
#define RB_SUCC_BLOCK_BITS	512

/* rb_innermost()'s answers besides an enum lang_unattributed. */
#define RB_FOUND		LANG_UN_MAX
#define RB_UNREADABLE		(LANG_UN_MAX + 1)

/*
 * The pthread_t of this thread: on x86_64 its TLS base (fs).  Elsewhere
 * not checked (0): the GVL holder is taken to be this thread.
 */
static __always_inline __u64 rb_this_pthread(void)
{
#if defined(__TARGET_ARCH_x86)
	struct task_struct *task = (void *)bpf_get_current_task();

	return BPF_CORE_READ(task, thread.fsbase);
#else
	return 0;
#endif
}

/* glibc's x86_64 TCB: its DTV pointer; a DTV entry's size; a bound. */
#define RB_TCB_DTV		8
#define RB_DTV_ENTRY		16
#define RB_DTV_MODULES_MAX	4096
#define RB_DTV_UNALLOCATED	(~0ULL)

/*
 * Ruby 3.3 (Debian 13's libruby) exports no pointer to its VM: this
 * thread's own execution context is read from its ruby_current_ec, as
 * __tls_get_addr() finds it: libruby's TLS block is the DTV's entry of
 * the module id the loader wrote in libruby's tls_index.  A thread that
 * released the GVL has its own frames: no holder to compare with.
 */
static __always_inline int rb_tls_ec(const struct rb_proc *r, __u64 *ec)
{
	__u64 tp = rb_this_pthread(), module = user_word(r->tls_module);
	__u64 block;

	if (!tp || !module || module > RB_DTV_MODULES_MAX)
		return RB_UNREADABLE;
	block = user_word(user_word(tp + RB_TCB_DTV) + module * RB_DTV_ENTRY);
	if (!block || block == RB_DTV_UNALLOCATED)
		return RB_UNREADABLE;
	*ec = user_word(block + r->tls_ec);
	return *ec ? RB_FOUND : LANG_UN_NO_THREAD;
}

/*
 * The execution context running Ruby code on this thread: the main
 * ractor's GVL holder (3.1), or the thread's own (3.3: rb_tls_ec()).  A
 * 3.1 thread that released the GVL (a blocking call) is not the holder,
 * and is not given the holder's line.
 */
static __always_inline int rb_current_ec(const struct rb_proc *r, __u64 *ec)
{
	const struct rb_offsets *o = &r->off;
	__u64 ractor, self = rb_this_pthread();

	if (r->tls_module)
		return rb_tls_ec(r, ec);
	ractor = user_word(user_word(r->vm_ptr) + o->vm_main_ractor);
	*ec = user_word(ractor + o->running_ec);
	if (!*ec)
		return LANG_UN_NO_THREAD;
	if (self && user_word(user_word(*ec + o->ec_thread) + o->thread_id) != self)
		return LANG_UN_NOT_GVL_HOLDER;
	return RB_FOUND;
}

static __always_inline bool rb_is_iseq(__u64 iseq)
{
	__u64 flags = user_word(iseq);

	return (flags & RB_T_MASK) == RB_T_IMEMO &&
	       ((flags >> RB_FL_USHIFT) & 0xf) == RB_IMEMO_ISEQ;
}

/*
 * The innermost Ruby frame's iseq and pc: RB_FOUND, RB_UNREADABLE, or why
 * there is none (enum lang_unattributed).  Control frames grow down from
 * the end of the VM stack: the caller of cfp is cfp + 1.
 */
static __always_inline int rb_innermost(const struct rb_proc *r, __u64 *iseq,
					__u64 *pc, __u64 *cfp, __u64 *end)
{
	const struct rb_offsets *o = &r->off;
	__u64 ec = 0;
	int found = rb_current_ec(r, &ec);

	if (found != RB_FOUND)
		return found;
	*cfp = user_word(ec + o->ec_cfp);
	*end = user_word(ec + o->ec_vm_stack) +
	       8 * user_word(ec + o->ec_vm_stack_size);
	for (int i = 0; i < RB_FRAMES_MAX; i++) {
		if (!*cfp || *cfp >= *end)
			return LANG_UN_NO_FRAME;
		*pc = user_word(*cfp + o->cf_pc);
		*iseq = user_word(*cfp + o->cf_iseq);
		if (*pc && *iseq &&
		    !(user_word(user_word(*cfp + o->cf_ep)) & RB_FRAME_FLAG_CFRAME))
			return rb_is_iseq(*iseq) ? RB_FOUND : RB_UNREADABLE;
		*cfp += o->cf_size;
	}
	return LANG_UN_FRAMES_PAST;
}

static __always_inline __u32 popcount64(__u64 x)
{
	x = x - ((x >> 1) & 0x5555555555555555ULL);
	x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
	x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
	return (x * 0x0101010101010101ULL) >> 56;
}

/*
 * iseq.c's succ_index_lookup(): how many instructions with a line entry
 * start at or before pos.  Bounded reads, no loop.
 */
static __always_inline __u32 rb_succ_rank(__u64 table, __u32 pos)
{
	__u32 bit, small, rank = 0;
	__u64 block, ranks;

	if (pos < RB_SUCC_IMM_SIZE)
		return (user_word(table + (pos / 9) * 8) >> ((pos % 9) * 7)) & 0x7f;
	pos -= RB_SUCC_IMM_SIZE;
	block = table + RB_SUCC_IMM_BYTES +
		(__u64)(pos / RB_SUCC_BLOCK_BITS) * RB_SUCC_BLOCK_BYTES;
	bit = pos % RB_SUCC_BLOCK_BITS;
	small = bit / 64;
	bpf_probe_read_user(&rank, sizeof(rank), (void *)block);
	ranks = user_word(block + 8);
	if (small)
		rank += (ranks >> ((small - 1) * 9)) & 0x1ff;
	return rank + popcount64(user_word(block + 16 + small * 8) <<
				 (63 - bit % 64));
}

/* The line of the instruction before pc (the one running), 0 if none. */
static __always_inline int rb_line(const struct rb_offsets *o, __u64 body,
				   __u64 pc, __u32 *line)
{
	__u64 start = user_word(body + o->body_iseq_encoded);
	__u32 size = 0, entries = 0, idx = 0;
	__u64 pos;

	bpf_probe_read_user(&size, sizeof(size), (void *)(body + o->body_iseq_size));
	bpf_probe_read_user(&entries, sizeof(entries),
			    (void *)(body + o->body_insns_size));
	if (pc < start || (pc - start) / 8 > size)
		return RB_UNREADABLE;
	pos = (pc - start) / 8;
	if (pos)
		pos--;
	*line = 0;
	if (!entries)
		return RB_FOUND;
	if (entries > 1)
		idx = rb_succ_rank(user_word(body + o->body_succ_table), pos) - 1;
	if (idx >= entries)
		return RB_UNREADABLE;
	bpf_probe_read_user(line, sizeof(*line),
			    (void *)(user_word(body + o->body_insns_info) +
				     (__u64)idx * o->insn_entry_size));
	return RB_FOUND;
}

/* Where a String's characters are; 0 for anything else. */
static __always_inline __u64 rb_str_data(const struct rb_offsets *o, __u64 str)
{
	__u64 flags = str ? user_word(str) : 0;

	if ((flags & RB_T_MASK) != RB_T_STRING)
		return 0;
	if (flags & RB_FL_USER1)
		return user_word(str + o->str_heap_ptr);
	return str + o->str_embed;
}

/* A String's characters into buf, hashed; "" for anything else. */
static __always_inline __u64 rb_str_hash(const struct rb_offsets *o, __u64 str,
					 char *buf, long max)
{
	return read_hash(buf, max, rb_str_data(o, str));
}

/* location.pathobj: the path, or [path, realpath]. */
static __always_inline __u64 rb_path(const struct rb_offsets *o, __u64 body)
{
	__u64 path = user_word(body + o->body_path);
	__u64 flags = path ? user_word(path) : 0;

	if ((flags & RB_T_MASK) != RB_T_ARRAY)
		return path;
	if (flags & RB_FL_USER1)	/* an array's flag: embedded */
		return user_word(path + o->ary_embed);
	return user_word(user_word(path + o->ary_heap_ptr));
}

static __always_inline struct lang_site *rb_site_of(const struct rb_offsets *o,
						    struct lang_site_key *k,
						    __u64 body)
{
	__u32 slot = LANG_SCRATCH_SITE;
	struct lang_names *n = bpf_map_lookup_elem(&lang_scratch, &slot);
	struct lang_site *site;

	if (!n)
		return NULL;
	k->lang = LANG_RUBY;
	k->cls_hash = 0;
	k->file_hash = rb_str_hash(o, rb_path(o, body), n->file, sizeof(n->file));
	k->func_hash = rb_str_hash(o, user_word(body + o->body_label), n->func,
				   sizeof(n->func));
	site = bpf_map_lookup_elem(&lang_sites, k);
	if (site)
		return site;
	n->cls[0] = '\0';
	n->table_len = 0;
	bpf_map_update_elem(&lang_names, k, n, BPF_NOEXIST);
	return lookup_or_init(&lang_sites, k, &lang_site_init,
			      LOSS_LANG_MAP_FULL);
}

/*
 * The Ruby frames that called the one at cfp, up to --lang-depth: C frames,
 * those with no iseq and those at no line (the VM's own) are looked
 * through.
 */
static __always_inline void rb_chain(const struct rb_offsets *o, __u64 cfp,
				     __u64 end, struct lang_chain_scratch *s)
{
	__u64 pc, iseq, body;
	__u32 line = 0;

	for (int i = 0; i < RB_OUTER_STEPS; i++) {
		if (!chain_room(s))
			return;
		cfp += o->cf_size;
		if (cfp >= end)
			return;
		pc = user_word(cfp + o->cf_pc);
		iseq = user_word(cfp + o->cf_iseq);
		if (!pc || !iseq ||
		    (user_word(user_word(cfp + o->cf_ep)) & RB_FRAME_FLAG_CFRAME))
			continue;
		if (!rb_is_iseq(iseq))
			break;
		body = user_word(iseq + o->iseq_body);
		if (rb_line(o, body, pc, &line) != RB_FOUND)
			break;
		/* The VM's top frame, which Ruby's backtraces leave out too. */
		if (!line)
			continue;
		chain_add(s, LANG_RUBY,
			  frame_id(body, user_word(body + o->body_path),
				   user_word(body + o->body_label)),
			  line, body, 0, 0);
	}
	s->c.cut = 1;
}

/*
 * A Ruby frame-mode process's event: counted, unattributed or lost; 1
 * when counted and noted for the stack copy.
 */
static __always_inline int rb_attribute(const struct lang_proc *lp,
					 struct lang_site_key *k, __u32 kind)
{
	const struct rb_proc *r = &lp->rb;
	__u64 iseq = 0, pc = 0, body = 0, cfp = 0, end = 0;
	struct lang_chain_scratch *s;
	struct lang_site *site;
	int found = rb_innermost(r, &iseq, &pc, &cfp, &end);

	if (found == RB_FOUND) {
		body = user_word(iseq + r->off.iseq_body);
		found = rb_line(&r->off, body, pc, &k->line);
	}
	if (found == RB_UNREADABLE) {
		count_loss(LOSS_LANG_RB_FRAME);
		return 0;
	}
	if (found != RB_FOUND) {
		count_unattributed(found);
		return 0;
	}
	s = chain_begin();
	if (s && lang_depth > 1) {
		rb_chain(&r->off, cfp, end, s);
		chain_store(k, s, lp);
	}
	site = rb_site_of(&r->off, k, body);
	return site ? lang_count(k, site, kind) : 0;
}

#endif /* CLOCKTRACE_LANG_RUBY_BPF_H */
