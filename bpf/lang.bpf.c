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
 * is new.
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

/* The strings of the frame at hand: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct lang_names);
} lang_scratch SEC(".maps");

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

static __always_inline __u64 read_hash(char *buf, long max, __u64 ptr)
{
	long len = ptr ? bpf_probe_read_user_str(buf, max, (void *)ptr) : 0;

	if (len <= 0) {
		buf[0] = '\0';
		return 0;
	}
	return hash_str(buf, len, max);
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
	__u32 zero = 0;
	struct lang_names *n = bpf_map_lookup_elem(&lang_scratch, &zero);
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
 * The code object of this thread's innermost complete frame, and the byte
 * offset of its last instruction: PY_FOUND, PY_UNREADABLE when a frame
 * cannot be read, or why there is no frame (enum lang_unattributed).
 */
static __always_inline int py_innermost(const struct py_proc *p, __u64 *code,
					__u32 *instr)
{
	const struct py_offsets *o = &p->off;
	__u64 ts = 0, frame, prev, start;
	__u8 owner = 0;
	int found = py_thread_state(p, &ts);

	if (found != PY_FOUND)
		return found;
	frame = py_current_frame(p, ts);
	if (!frame)
		return LANG_UN_NO_FRAME;
	for (int i = 0; i < PY_INCOMPLETE_MAX && frame; i++) {
		bpf_probe_read_user(&owner, sizeof(owner), (void *)(frame + o->owner));
		if (owner == PY_FRAME_OWNED_BY_CSTACK) {
			frame = user_word(frame + o->previous);
			continue;
		}
		*code = user_word(frame + o->f_code);
		if (!py_is(p, *code, p->code_type))
			return PY_UNREADABLE;
		prev = user_word(frame + o->prev_instr);
		start = *code + o->co_code_adaptive;
		if (owner == PY_FRAME_OWNED_BY_GENERATOR ||
		    prev >= start + 2 * (__s64)py_s32(*code + o->co_firsttraceable)) {
			*instr = prev >= start && prev - start < PY_INSTR_NONE ?
				 prev - start : PY_INSTR_NONE;
			return PY_FOUND;
		}
		frame = user_word(frame + o->previous);
	}
	return frame ? PY_UNREADABLE : LANG_UN_NO_FRAME;
}

static __always_inline void count_unattributed(__u32 why)
{
	__u64 *n = bpf_map_lookup_elem(&lang_unattributed, &why);

	if (n)
		__sync_fetch_and_add(n, 1);
}

/* A compact ASCII str's characters into buf, hashed; "" for any other. */
static __always_inline __u64 py_str_hash(const struct py_proc *p, __u64 str,
					 char *buf, long max)
{
	__u32 state = 0;

	buf[0] = '\0';
	if (!py_is(p, str, p->str_type))
		return 0;
	bpf_probe_read_user(&state, sizeof(state), (void *)(str + p->off.str_state));
	if ((state & PY_STR_COMPACT_ASCII) != PY_STR_COMPACT_ASCII)
		return 0;
	return read_hash(buf, max, str + p->off.str_data);
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
	__u32 zero = 0;
	struct lang_names *n = bpf_map_lookup_elem(&lang_scratch, &zero);
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

static __always_inline void lang_count(struct lang_site *site, __u32 kind)
{
	if (kind >= KIND_FIRST_TZ)
		__sync_fetch_and_add(&site->tz_accesses, 1);
	else
		__sync_fetch_and_add(&site->clock_syscalls, 1);
}

/* A Python frame-mode process's event: counted, unattributed or lost. */
static __always_inline void py_attribute(const struct py_proc *p,
					 struct lang_site_key *k, __u32 kind)
{
	struct lang_site *site;
	__u64 code = 0;
	__u32 instr = 0;
	int found;

	found = py_innermost(p, &code, &instr);
	if (found == PY_UNREADABLE) {
		count_loss(LOSS_LANG_PY_FRAME);
		return;
	}
	if (found != PY_FOUND) {
		count_unattributed(found);
		return;
	}
	site = py_site_of(p, k, code, instr);
	if (site)
		lang_count(site, kind);
}

#include "lang_ruby.bpf.h"

/*
 * 1 when the event was taken as a frame-mode process's (counted,
 * unattributed or lost); 0 leaves it to the USDT stacks.
 */
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
		return 0;
	}
	if (p->lang == LANG_PYTHON)
		py_attribute(&p->py, k, kind);
	else
		rb_attribute(&p->rb, k, kind);
	return 1;
}

/* Global: verified once, not once per path through sys_exit. */
__noinline int lang_attribute(__u32 tgid, __u32 kind, __u32 libc_fn)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lang_site_key key = { .tgid = tgid, .libc_fn = libc_fn };
	struct lang_stack *st;
	struct lang_site *site;
	__u32 d;

	if (frame_attribute(&key, kind))
		return 0;
	st = bpf_map_lookup_elem(&lang_stacks, &tid);
	if (!st || !st->depth)
		return 0;
	d = st->depth - 1;
	if (d >= LANG_STACK_MAX) {
		count_loss(LOSS_LANG_DEEP);
		return 0;
	}
	site = lang_site_of(&key, &st->f[d]);
	if (site)
		lang_count(site, kind);
	return 0;
}

__noinline int lang_thread_exit(__u32 tid)
{
	bpf_map_delete_elem(&lang_stacks, &tid);
	/* A leader's tid is its tgid: the pid may be reused. */
	bpf_map_delete_elem(&lang_procs, &tid);
	return 0;
}
