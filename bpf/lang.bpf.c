// SPDX-License-Identifier: GPL-2.0
/*
 * --lang: a kernel event (a tz access, a clock syscall) is counted under
 * the script line that caused it.  Frame mode (CPython 3.11-3.13 here,
 * Ruby 3.1 in lang_ruby.bpf.h) reads the thread's frame from the
 * interpreter's own structures at the event: nothing runs between events.
 * Otherwise USDT probes keep, per thread, the script frame that is running:
 * Ruby's method entries and returns a shadow stack whose top holds the file
 * and line a method was called from, Python's line probe the line being
 * run; every method call or line of a probed interpreter traps (the cost
 * is stated in the report).  Frames are pointers; their strings are read
 * only at a kernel event, hashed into the site key, and kept when the site
 * is new.  The outer frames (--lang-depth) are known by their addresses,
 * hashed into the site key as a chain, stored once per new chain.
 */
#include "shared.bpf.h"
#include "targets.bpf.h"
#include <bpf/usdt.bpf.h>

/* By thread id: no task storage, which 5.10 lacks for uprobes. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, struct lang_stack);
} lang_stacks SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct lang_site_key);
	__type(value, struct lang_site);
} lang_sites SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct lang_site_key);
	__type(value, struct lang_names);
} lang_names SEC(".maps");

/*
 * The strings of the frame at hand: too large for the BPF stack.  Slot
 * LANG_SCRATCH_SITE holds the site's until they are stored, slot
 * LANG_SCRATCH_OUTER an outer frame's.
 */
#define LANG_SCRATCH_SITE	0
#define LANG_SCRATCH_OUTER	1

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct lang_names);
} lang_scratch SEC(".maps");

/* --lang-depth: script frames per event, the site's included. */
const volatile __u32 lang_depth = LANG_DEPTH_DEFAULT;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct lang_chain_key);
	__type(value, struct lang_chain);
} lang_chains SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct lang_frame_key);
	__type(value, struct lang_names);
} lang_frame_names SEC(".maps");

/*
 * An event's outer frames, and the addresses their strings are read from
 * if the chain is new (Python: the code object; Ruby: the iseq body;
 * USDT: file, function, class).
 */
struct lang_chain_scratch {
	struct lang_chain c;
	__u64 hash;
	__u64 ptr[LANG_DEPTH_MAX][3];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lang_chain_scratch);
} lang_chain_scratch SEC(".maps");

/* A new stack is too large for the BPF stack: it starts as a copy. */
static const struct lang_stack lang_stack_init;

static __always_inline void lang_push(struct pt_regs *ctx, __u32 lang,
				      long file, long func, long cls, long line)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lang_stack *st;
	__u32 d;

	st = lookup_or_init(&lang_stacks, &tid, &lang_stack_init,
			    LOSS_LANG_MAP_FULL);
	if (!st)
		return;
	d = st->depth++;
	if (d >= LANG_STACK_MAX)
		return;
	st->f[d].file = file;
	st->f[d].func = func;
	st->f[d].cls = cls;
	st->f[d].line = line;
	st->f[d].lang = lang;
}

static __always_inline void lang_pop(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lang_stack *st = bpf_map_lookup_elem(&lang_stacks, &tid);

	/* A child returns from frames its parent entered before fork. */
	if (st && st->depth)
		st->depth--;
}

static __always_inline bool lang_traced(void)
{
	return is_traced(bpf_get_current_pid_tgid() >> 32);
}

/* ruby:(c)method__entry(classname, methodname, filename, lineno) */
SEC("usdt")
int BPF_USDT(ruby_entry, void *cls, void *method, void *file, long line)
{
	if (lang_traced())
		lang_push(ctx, LANG_RUBY, (long)file, (long)method, (long)cls,
			  line);
	return 0;
}

/*
 * python:line(filename, funcname, lineno), at each new line: CPython 3.11
 * runs Python-to-Python calls inside one eval loop and fires
 * function__entry for few of them, so the current line is all there is.
 * One frame per thread, replaced.
 */
SEC("usdt")
int BPF_USDT(python_line, void *file, void *func, long line)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lang_stack *st;

	if (!lang_traced())
		return 0;
	st = lookup_or_init(&lang_stacks, &tid, &lang_stack_init,
			    LOSS_LANG_MAP_FULL);
	if (!st)
		return 0;
	st->depth = 1;
	st->f[0].file = (long)file;
	st->f[0].func = (long)func;
	st->f[0].cls = 0;
	st->f[0].line = line;
	st->f[0].lang = LANG_PYTHON;
	return 0;
}

SEC("usdt")
int BPF_USDT(lang_return)
{
	if (lang_traced())
		lang_pop();
	return 0;
}

#define FNV_OFFSET	0xcbf29ce484222325ULL
#define FNV_PRIME	0x100000001b3ULL

/* FNV-1a of the first len bytes of buf (a string read from the process). */
static __always_inline __u64 hash_str(const char *buf, long len, long max)
{
	__u64 h = FNV_OFFSET;

	for (long i = 0; i < max; i++) {
		if (i >= len)
			break;
		h ^= (unsigned char)buf[i];
		h *= FNV_PRIME;
	}
	return h;
}

static __always_inline long read_str(char *buf, long max, __u64 ptr)
{
	long len = ptr ? bpf_probe_read_user_str(buf, max, (void *)ptr) : 0;

	if (len <= 0)
		buf[0] = '\0';
	return len;
}

static __always_inline __u64 read_hash(char *buf, long max, __u64 ptr)
{
	long len = read_str(buf, max, ptr);

	return len > 0 ? hash_str(buf, len, max) : 0;
}

/* A frame's identity from its addresses: nothing is read to make it. */
static __always_inline __u64 mix(__u64 h, __u64 v)
{
	h = (h ^ v) * 0x9e3779b97f4a7c15ULL;
	return h ^ (h >> 29);
}

static __always_inline __u64 frame_id(__u64 a, __u64 b, __u64 c)
{
	return mix(mix(mix(FNV_OFFSET, a), b), c);
}

static __always_inline struct lang_chain_scratch *chain_begin(void)
{
	__u32 zero = 0;
	struct lang_chain_scratch *s;

	s = bpf_map_lookup_elem(&lang_chain_scratch, &zero);
	if (s) {
		s->c.depth = 0;
		s->c.cut = 0;
		s->hash = FNV_OFFSET;
	}
	return s;
}

/* Room for another outer frame within --lang-depth. */
static __always_inline bool chain_room(const struct lang_chain_scratch *s)
{
	return s->c.depth + 1 < lang_depth && s->c.depth < LANG_OUTER_MAX;
}

static __always_inline void chain_add(struct lang_chain_scratch *s, __u32 lang,
				      __u64 id, __u32 line, __u64 p0,
				      __u64 p1, __u64 p2)
{
	__u32 n = s->c.depth;

	if (n >= LANG_OUTER_MAX)
		return;
	/* A bound the verifier keeps, whatever clang does with the test. */
	barrier_var(n);
	n &= LANG_DEPTH_MAX - 1;
	s->c.f[n].id = id;
	s->c.f[n].line = line;
	s->c.f[n].lang = lang;
	s->ptr[n][0] = p0;
	s->ptr[n][1] = p1;
	s->ptr[n][2] = p2;
	s->hash = mix(mix(s->hash, id), (__u64)lang << 32 | line);
	s->c.depth = n + 1;
}

static const struct lang_site lang_site_init;

/* The site of the innermost frame, with its strings in scratch. */
static __always_inline int lang_site_key_of(struct lang_site_key *k,
					    const struct lang_frame *f,
					    struct lang_names *n)
{
	k->lang = f->lang;
	k->line = f->line;
	k->file_hash = read_hash(n->file, sizeof(n->file), f->file);
	k->func_hash = read_hash(n->func, sizeof(n->func), f->func);
	k->cls_hash = read_hash(n->cls, sizeof(n->cls), f->cls);
	return 0;
}

static __always_inline struct lang_site *lang_site_of(struct lang_site_key *k,
						      const struct lang_frame *f)
{
	__u32 slot = LANG_SCRATCH_SITE;
	struct lang_names *n = bpf_map_lookup_elem(&lang_scratch, &slot);
	struct lang_site *site;

	if (!n)
		return NULL;
	lang_site_key_of(k, f, n);
	site = bpf_map_lookup_elem(&lang_sites, k);
	if (site)
		return site;
	/* First seen: the strings, while the frame is alive to read. */
	bpf_map_update_elem(&lang_names, k, n, BPF_NOEXIST);
	return lookup_or_init(&lang_sites, k, &lang_site_init,
			      LOSS_LANG_MAP_FULL);
}

/*
 * Frame mode (CPython 3.11 to 3.13, Ruby 3.1): the current frame is read from
 * the interpreter's own structures at the kernel event, so nothing traps
 * between events.  Every read is bpf_probe_read_user of a bounded size;
 * the type checks reject bytes that are not the objects they claim to be.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct lang_proc);
} lang_procs SEC(".maps");

/*
 * Events of frame-mode processes tied to no line, by enum lang_unattributed:
 * counted as the losses are.
 */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LANG_UN_MAX);
	__type(key, __u32);
	__type(value, __u64);
} lang_unattributed SEC(".maps");

/* A forked worker shares its parent's interpreter and address space. */
#define PY_ANCESTORS		4
/* Frames still starting (3.11's "incomplete" ones) skipped at most. */
#define PY_INCOMPLETE_MAX	4
#define PY_FRAME_OWNED_BY_GENERATOR	1
#define PY_FRAME_OWNED_BY_CSTACK	3	/* 3.12+: an entry frame */
#define PY_STR_COMPACT_ASCII	(1u << 5 | 1u << 6)

/* py_innermost()'s answers besides an enum lang_unattributed. */
#define PY_FOUND		LANG_UN_MAX
#define PY_UNREADABLE		(LANG_UN_MAX + 1)
#define PY_SKIP			(LANG_UN_MAX + 2)	/* a shim or incomplete frame */
/* Frames looked through for the outer ones: an entry shim may precede each. */
#define PY_OUTER_STEPS		(2 * LANG_OUTER_MAX)

static __always_inline __u64 user_word(__u64 addr)
{
	__u64 v = 0;

	if (!addr || bpf_probe_read_user(&v, sizeof(v), (void *)addr))
		return 0;
	return v;
}

static __always_inline __s32 py_s32(__u64 addr)
{
	__s32 v = 0;

	bpf_probe_read_user(&v, sizeof(v), (void *)addr);
	return v;
}

static __always_inline bool py_is(const struct py_proc *p, __u64 obj,
				  __u64 type)
{
	return obj && user_word(obj + p->off.ob_type) == type;
}

/*
 * The interpreter of *tgid, or of the ancestor it was forked from (then
 * *tgid is that ancestor's).  Once a process has exec'd, its entry has no
 * lang until userspace finds an interpreter in the new image.
 */
static __always_inline struct lang_proc *lang_proc_of(__u32 *tgid)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct lang_proc *p = bpf_map_lookup_elem(&lang_procs, tgid);

	for (int i = 0; !p && i < PY_ANCESTORS; i++) {
		task = BPF_CORE_READ(task, real_parent);
		if (!task)
			break;
		*tgid = BPF_CORE_READ(task, tgid);
		p = bpf_map_lookup_elem(&lang_procs, tgid);
	}
	return p;
}

/* The tgids of images whose first event came before userspace read them. */
struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4096);
} lang_kicks SEC(".maps");

/*
 * Userspace looks for an interpreter in a new image at times after the
 * exec; a forked worker may be done by the next one.  The image's first
 * event asks for the look now, tied to the program's own progress, not
 * to the clock.  Two CPUs may both ask: the second look finds it read.
 */
static __always_inline void lang_kick(const struct lang_proc *p, __u32 owner)
{
	if (!p->pending)
		bpf_ringbuf_output(&lang_kicks, &owner, sizeof(owner),
				   BPF_RB_FORCE_WAKEUP);
}

static const struct lang_proc lang_proc_none;

/* An exec'd process is no longer the interpreter its parent was. */
__noinline int lang_exec(__u32 tgid)
{
	bpf_map_update_elem(&lang_procs, &tgid, &lang_proc_none, BPF_ANY);
	return 0;
}

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, LANG_STARTS_MAX);
	__type(key, __u32);
	__type(value, struct lang_template);
} lang_templates SEC(".maps");

/* Processes registered by lang_start, by enum lang. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, LANG_PYTHON + 1);
	__type(key, __u32);
	__type(value, __u64);
} lang_starts SEC(".maps");

static __always_inline void add_bias(struct lang_proc *v, __u64 bias)
{
	if (v->lang == LANG_PYTHON) {
		v->py.runtime += bias;
		v->py.code_type += bias;
		v->py.str_type += bias;
		v->py.bytes_type += bias;
		return;
	}
	if (v->rb.vm_ptr)
		v->rb.vm_ptr += bias;
	if (v->rb.tls_module)
		v->rb.tls_module += bias;
}

/*
 * A frame-mode interpreter starting up, before it runs a line of script:
 * the process is registered here, in the kernel, its load bias read from
 * where this function runs.  Userspace's look, at the image's first event,
 * comes when its loop wakes: a pre-forking parent's workers may be done
 * by then.  Once per process; nothing per line or method call.
 */
SEC("uprobe")
int lang_start(struct pt_regs *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u64 ip = PT_REGS_IP(ctx);
	__u32 key = ip & LANG_PAGE_OFFSET, why = LANG_UN_NOT_YET_READ;
	const struct lang_template *t;
	struct lang_proc *old, v;
	__u64 *n;

	if (!lang_enabled || !is_traced(tgid))
		return 0;
	t = bpf_map_lookup_elem(&lang_templates, &key);
	if (!t)
		return 0;
	old = bpf_map_lookup_elem(&lang_procs, &tgid);
	if (old && old->lang != LANG_NONE)
		return 0;
	__builtin_memcpy(&v, &t->proc, sizeof(v));
	add_bias(&v, ip - t->start);
	/* Its events before now (the loader's, the runtime's set-up) stay pending. */
	n = old ? bpf_map_lookup_elem(&lang_unattributed, &why) : NULL;
	if (n)
		__sync_fetch_and_add(n, old->pending);
	if (bpf_map_update_elem(&lang_procs, &tgid, &v, BPF_ANY))
		return 0;
	why = v.lang;
	n = bpf_map_lookup_elem(&lang_starts, &why);
	if (n)
		__sync_fetch_and_add(n, 1);
	return 0;
}

/*
 * This thread's id as its own pid namespace numbers it (gettid()): ns_pid()
 * of sched.bpf.c, read through helpers as the current task is not a
 * BTF pointer before 5.11.
 */
static __always_inline __u32 tid_in_own_ns(void)
{
	struct task_struct *task = (void *)bpf_get_current_task();
	struct pid *pid = BPF_CORE_READ(task, thread_pid);
	unsigned int level = BPF_CORE_READ(pid, level);

	return BPF_CORE_READ(pid, numbers[level].nr);
}

/*
 * This thread's state, from the main interpreter's list of them: a thread
 * that released the GIL (in a blocking open(), say) is still at the line
 * that called it.  Bounded: past PY_THREADS_MAX it is not looked for.
 */
static __always_inline int py_thread_state(const struct py_proc *p, __u64 *ts)
{
	const struct py_offsets *o = &p->off;
	__u32 tid = tid_in_own_ns();
	__u64 t;

	t = user_word(user_word(p->runtime + o->interp_head) + o->threads_head);
	for (int i = 0; i < PY_THREADS_MAX && t; i++) {
		if (user_word(t + o->native_thread_id) == tid) {
			*ts = t;
			return PY_FOUND;
		}
		t = user_word(t + o->ts_next);
	}
	return t ? LANG_UN_THREADS_PAST : LANG_UN_NO_THREAD;
}

static __always_inline __u64 py_current_frame(const struct py_proc *p, __u64 ts)
{
	const struct py_offsets *o = &p->off;

	if (o->cframe == PY_NO_CFRAME)
		return user_word(ts + o->current_frame);
	return user_word(user_word(ts + o->cframe) + o->current_frame);
}

/*
 * The code object a frame runs and the byte offset of its last
 * instruction: PY_FOUND, PY_SKIP for an entry shim (3.12+) or a frame
 * still starting (3.11), PY_UNREADABLE for bytes that are not a frame.
 */
static __always_inline int py_frame_at(const struct py_proc *p, __u64 frame,
				       __u64 *code, __u32 *instr)
{
	const struct py_offsets *o = &p->off;
	__u64 prev, start;
	__u8 owner = 0;

	bpf_probe_read_user(&owner, sizeof(owner), (void *)(frame + o->owner));
	if (owner == PY_FRAME_OWNED_BY_CSTACK)
		return PY_SKIP;
	*code = user_word(frame + o->f_code);
	if (!py_is(p, *code, p->code_type))
		return PY_UNREADABLE;
	prev = user_word(frame + o->prev_instr);
	start = *code + o->co_code_adaptive;
	if (owner != PY_FRAME_OWNED_BY_GENERATOR &&
	    prev < start + 2 * (__s64)py_s32(*code + o->co_firsttraceable))
		return PY_SKIP;
	*instr = prev >= start && prev - start < PY_INSTR_NONE ?
		 prev - start : PY_INSTR_NONE;
	return PY_FOUND;
}

/*
 * This thread's innermost complete frame, its code object and the byte
 * offset of its last instruction: PY_FOUND, PY_UNREADABLE when a frame
 * cannot be read, or why there is no frame (enum lang_unattributed).
 */
static __always_inline int py_innermost(const struct py_proc *p, __u64 *frame,
					__u64 *code, __u32 *instr)
{
	__u64 ts = 0;
	int found = py_thread_state(p, &ts);

	if (found != PY_FOUND)
		return found;
	*frame = py_current_frame(p, ts);
	if (!*frame)
		return LANG_UN_NO_FRAME;
	for (int i = 0; i < PY_INCOMPLETE_MAX && *frame; i++) {
		found = py_frame_at(p, *frame, code, instr);
		if (found != PY_SKIP)
			return found;
		*frame = user_word(*frame + p->off.previous);
	}
	return *frame ? PY_UNREADABLE : LANG_UN_NO_FRAME;
}

/* The frames that called the innermost one, up to --lang-depth. */
static __always_inline void py_chain(const struct py_proc *p, __u64 frame,
				     struct lang_chain_scratch *s)
{
	const struct py_offsets *o = &p->off;
	__u64 code = 0;
	__u32 instr = 0;
	int found;

	for (int i = 0; i < PY_OUTER_STEPS; i++) {
		if (!chain_room(s))
			return;
		frame = user_word(frame + o->previous);
		if (!frame)
			return;
		found = py_frame_at(p, frame, &code, &instr);
		if (found == PY_SKIP)
			continue;
		if (found != PY_FOUND)
			break;
		chain_add(s, LANG_PYTHON,
			  frame_id(code, user_word(code + o->co_filename),
				   user_word(code + o->co_name)),
			  instr, code, 0, 0);
	}
	s->c.cut = 1;
}

static __always_inline void count_unattributed(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&lang_unattributed, &why);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* Where a compact ASCII str's characters are; 0 for any other object. */
static __always_inline __u64 py_str_data(const struct py_proc *p, __u64 str)
{
	__u32 state = 0;

	if (!py_is(p, str, p->str_type))
		return 0;
	bpf_probe_read_user(&state, sizeof(state), (void *)(str + p->off.str_state));
	if ((state & PY_STR_COMPACT_ASCII) != PY_STR_COMPACT_ASCII)
		return 0;
	return str + p->off.str_data;
}

/* A compact ASCII str's characters into buf, hashed; "" for any other. */
static __always_inline __u64 py_str_hash(const struct py_proc *p, __u64 str,
					 char *buf, long max)
{
	return read_hash(buf, max, py_str_data(p, str));
}

/* The start of the location table, read while the code object lives. */
static __always_inline void py_copy_table(const struct py_proc *p, __u64 code,
					  struct lang_names *n)
{
	__u64 table = user_word(code + p->off.co_linetable);
	__u64 size = 0;

	n->firstlineno = py_s32(code + p->off.co_firstlineno);
	n->table_len = 0;
	n->table_size = 0;
	if (!py_is(p, table, p->bytes_type))
		return;
	size = user_word(table + p->off.ob_size);
	n->table_size = size > 0xffffffffULL ? 0xffffffffu : size;
	if (size > LANG_TABLE_LEN)
		size = LANG_TABLE_LEN;
	if (size && !bpf_probe_read_user(n->table, size,
					 (void *)(table + p->off.bytes_data)))
		n->table_len = size;
}

static __always_inline struct lang_site *py_site_of(const struct py_proc *p,
						    struct lang_site_key *k,
						    __u64 code, __u32 instr)
{
	__u32 slot = LANG_SCRATCH_SITE;
	struct lang_names *n = bpf_map_lookup_elem(&lang_scratch, &slot);
	struct lang_site *site;

	if (!n)
		return NULL;
	k->lang = LANG_PYTHON;
	k->line = instr;
	k->cls_hash = code;	/* the line needs this code object's table */
	k->file_hash = py_str_hash(p, user_word(code + p->off.co_filename),
				   n->file, sizeof(n->file));
	k->func_hash = py_str_hash(p, user_word(code + p->off.co_name),
				   n->func, sizeof(n->func));
	site = bpf_map_lookup_elem(&lang_sites, k);
	if (site)
		return site;
	n->cls[0] = '\0';
	py_copy_table(p, code, n);
	bpf_map_update_elem(&lang_names, k, n, BPF_NOEXIST);
	return lookup_or_init(&lang_sites, k, &lang_site_init,
			      LOSS_LANG_MAP_FULL);
}

/* The event's site, for its stack copy (stacks.bpf.c) to carry. */
static __always_inline int lang_note(const struct lang_site_key *k)
{
	__u32 zero = 0;
	struct lang_event_slot *slot;

	if (!stacks_enabled)
		return 0;
	slot = bpf_map_lookup_elem(&lang_event, &zero);
	if (!slot)
		return 0;
	slot->key = *k;
	slot->tid = (__u32)bpf_get_current_pid_tgid();
	return 1;
}

/* 1: the site is noted for the stack copy. */
static __always_inline int lang_count(const struct lang_site_key *k,
				      struct lang_site *site, __u32 kind)
{
	if (kind >= KIND_FIRST_TZ)
		__sync_fetch_and_add(&site->tz_accesses, 1);
	else
		__sync_fetch_and_add(&site->clock_syscalls, 1);
	return lang_note(k);
}

static __always_inline void chain_store(struct lang_site_key *k,
					struct lang_chain_scratch *s,
					const struct lang_proc *p);

/*
 * A Python frame-mode process's event: counted, unattributed or lost; 1
 * when counted and noted for the stack copy.
 */
static __always_inline int py_attribute(const struct lang_proc *lp,
					 struct lang_site_key *k, __u32 kind)
{
	const struct py_proc *p = &lp->py;
	struct lang_chain_scratch *s;
	struct lang_site *site;
	__u64 code = 0, frame = 0;
	__u32 instr = 0;
	int found;

	found = py_innermost(p, &frame, &code, &instr);
	if (found == PY_UNREADABLE) {
		count_loss(LOSS_LANG_PY_FRAME);
		return 0;
	}
	if (found != PY_FOUND) {
		count_unattributed(found);
		return 0;
	}
	s = chain_begin();
	if (s && lang_depth > 1) {
		py_chain(p, frame, s);
		chain_store(k, s, lp);
	}
	site = py_site_of(p, k, code, instr);
	return site ? lang_count(k, site, kind) : 0;
}

#include "lang_ruby.bpf.h"

/* Outer frame i's strings, read while it is on the stack. */
static __always_inline void frame_names(struct lang_names *n,
					const struct lang_chain_scratch *s,
					__u32 i, const struct lang_proc *p)
{
	__u64 a = s->ptr[i][0];

	n->cls[0] = '\0';
	n->table_len = 0;
	n->table_size = 0;
	if (!p) {	/* USDT: the probe's own strings */
		read_str(n->file, sizeof(n->file), a);
		read_str(n->func, sizeof(n->func), s->ptr[i][1]);
		read_str(n->cls, sizeof(n->cls), s->ptr[i][2]);
	} else if (p->lang == LANG_PYTHON) {
		read_str(n->file, sizeof(n->file),
			 py_str_data(&p->py, user_word(a + p->py.off.co_filename)));
		read_str(n->func, sizeof(n->func),
			 py_str_data(&p->py, user_word(a + p->py.off.co_name)));
		py_copy_table(&p->py, a, n);
	} else {
		read_str(n->file, sizeof(n->file),
			 rb_str_data(&p->rb.off, rb_path(&p->rb.off, a)));
		read_str(n->func, sizeof(n->func),
			 rb_str_data(&p->rb.off,
				     user_word(a + p->rb.off.body_label)));
	}
}

/*
 * The site key names its chain of outer frames.  A new chain is stored
 * with the strings of each frame not seen before in this process; one
 * that cannot be stored, or a frame's strings, leaves the event at its
 * line, as a loss.
 */
static __always_inline void chain_store(struct lang_site_key *k,
					struct lang_chain_scratch *s,
					const struct lang_proc *p)
{
	struct lang_chain_key ck = { .tgid = k->tgid };
	__u32 slot = LANG_SCRATCH_OUTER;
	struct lang_frame_key fk;
	struct lang_names *n;
	long err;

	k->chain = LANG_CHAIN_NONE;
	if (!s->c.depth)
		return;
	ck.hash = s->hash > LANG_CHAIN_UNSTORED ? s->hash : s->hash + 2;
	k->chain = ck.hash;
	if (bpf_map_lookup_elem(&lang_chains, &ck))
		return;
	n = bpf_map_lookup_elem(&lang_scratch, &slot);
	for (__u32 i = 0; n && i < LANG_OUTER_MAX; i++) {
		if (i >= s->c.depth)
			break;
		fk.tgid = k->tgid;
		fk.lang = s->c.f[i].lang;
		fk.id = s->c.f[i].id;
		if (bpf_map_lookup_elem(&lang_frame_names, &fk))
			continue;
		frame_names(n, s, i, p);
		err = bpf_map_update_elem(&lang_frame_names, &fk, n, BPF_NOEXIST);
		if (err && err != -EEXIST)
			goto unstored;	/* no chain of nameless frames */
	}
	err = bpf_map_update_elem(&lang_chains, &ck, &s->c, BPF_NOEXIST);
	if (!err || err == -EEXIST)
		return;
unstored:
	k->chain = LANG_CHAIN_UNSTORED;
	count_loss(LOSS_LANG_CHAIN);
}

/* USDT: the frames under the innermost one (f[d]) on the thread's stack. */
static __always_inline void usdt_chain(struct lang_site_key *k,
				       const struct lang_stack *st, __u32 d)
{
	struct lang_chain_scratch *s = chain_begin();
	const struct lang_frame *f;

	if (!s || lang_depth <= 1)
		return;
	for (__u32 i = 1; i <= LANG_OUTER_MAX; i++) {
		__u32 at = d - i;

		if (i > d || !chain_room(s) || at >= LANG_STACK_MAX)
			break;
		/*
		 * The 5.10 and 6.1 verifiers lose the bound above once the
		 * index is spilled: a mask they can see (LANG_STACK_MAX is a
		 * power of two), kept by the barrier from being folded away.
		 */
		barrier_var(at);
		at &= LANG_STACK_MAX - 1;
		f = &st->f[at];
		chain_add(s, f->lang, frame_id(f->file, f->func, f->cls),
			  f->line, f->file, f->func, f->cls);
	}
	chain_store(k, s, NULL);
}

enum frame_taken {
	FRAME_NOT_TAKEN,	/* not a frame-mode process: the USDT stacks' */
	FRAME_TAKEN,		/* counted, unattributed or lost */
	FRAME_NOTED,		/* counted, its site noted for the stack copy */
};

static __always_inline int frame_attribute(struct lang_site_key *k, __u32 kind)
{
	__u32 owner = k->tgid;
	struct lang_proc *p = lang_proc_of(&owner);

	if (!p)
		return 0;
	if (p->lang == LANG_NONE) {
		lang_kick(p, owner);
		/* Counted if it turns out to be an interpreter; else USDT's. */
		__sync_fetch_and_add(&p->pending, 1);
		return FRAME_NOT_TAKEN;
	}
	if (p->lang == LANG_PYTHON)
		return py_attribute(p, k, kind) ? FRAME_NOTED : FRAME_TAKEN;
	return rb_attribute(p, k, kind) ? FRAME_NOTED : FRAME_TAKEN;
}

/*
 * Global: verified once, not once per path through sys_exit.  1: the
 * event's site is noted in lang_event (shared.bpf.h).
 */
__noinline int lang_attribute(__u32 tgid, __u32 kind, __u32 libc_fn)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lang_site_key key = { .tgid = tgid, .libc_fn = libc_fn };
	struct lang_stack *st;
	struct lang_site *site;
	int taken;
	__u32 d;

	/*
	 * A global function is verified on its own, whatever its callers
	 * test: without --lang the frame and chain walks are dead code here
	 * (a frozen setting), not thousands of states on every kernel.
	 */
	if (!lang_enabled)
		return 0;
	taken = frame_attribute(&key, kind);
	if (taken != FRAME_NOT_TAKEN)
		return taken == FRAME_NOTED;
	st = bpf_map_lookup_elem(&lang_stacks, &tid);
	if (!st || !st->depth)
		return 0;
	d = st->depth - 1;
	if (d >= LANG_STACK_MAX) {
		count_loss(LOSS_LANG_DEEP);
		return 0;
	}
	usdt_chain(&key, st, d);
	/*
	 * d was spilled before its test: 5.10's and 6.1's verifiers keep no
	 * bound on the copy they reload.  A mask they can see, after it.
	 */
	barrier_var(d);
	d &= LANG_STACK_MAX - 1;
	site = lang_site_of(&key, &st->f[d]);
	return site ? lang_count(&key, site, kind) : 0;
}

__noinline int lang_thread_exit(__u32 tid)
{
	bpf_map_delete_elem(&lang_stacks, &tid);
	/* A leader's tid is its tgid: the pid may be reused. */
	bpf_map_delete_elem(&lang_procs, &tid);
	return 0;
}
