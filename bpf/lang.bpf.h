/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --lang: USDT probes of the Ruby and Python interpreters keep, per
 * thread, the script frame that is running, so that a kernel event (a tz
 * access, a clock syscall) is counted under the script line that caused it:
 * Ruby's method entries and returns keep a shadow stack whose top holds the
 * file and line a method was called from; Python's line probe names the
 * line being run.  Every method call (Ruby) or line (Python) of a traced
 * interpreter traps: the cost is stated in the report.  Frames are pointers; their strings are read only at a kernel
 * event, hashed into the site key, and kept when the site is new.  Included at the end of clocktrace.bpf.c.
 */
#ifndef CLOCKTRACE_LANG_BPF_H
#define CLOCKTRACE_LANG_BPF_H

#include <bpf/usdt.bpf.h>

const volatile bool lang_enabled = false;

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

/* Global: verified once, not once per path through sys_exit. */
__noinline int lang_attribute(__u32 tgid, __u32 kind, __u32 libc_fn)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct lang_site_key key = { .tgid = tgid, .libc_fn = libc_fn };
	struct lang_stack *st = bpf_map_lookup_elem(&lang_stacks, &tid);
	struct lang_site *site;
	__u32 d;

	if (!st || !st->depth)
		return 0;
	d = st->depth - 1;
	if (d >= LANG_STACK_MAX) {
		count_loss(LOSS_LANG_DEEP);
		return 0;
	}
	site = lang_site_of(&key, &st->f[d]);
	if (!site)
		return 0;
	if (kind >= KIND_FIRST_TZ)
		__sync_fetch_and_add(&site->tz_accesses, 1);
	else
		__sync_fetch_and_add(&site->clock_syscalls, 1);
	return 0;
}

static __always_inline void lang_thread_exit(__u32 tid)
{
	if (lang_enabled)
		bpf_map_delete_elem(&lang_stacks, &tid);
}

#endif /* CLOCKTRACE_LANG_BPF_H */
