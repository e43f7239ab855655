// SPDX-License-Identifier: GPL-2.0
/*
 * --libc: uprobes on the C library's time API.  They share the per-thread
 * state of the syscall path (shared.bpf.h), which is how a kernel event is
 * tied to the library call it happened in (libc.bpf.h).
 *
 * The attach cookie of each probe is its enum libc_fn, plus
 * LIBC_COOKIE_COUNT_ONLY for cheap functions (clock_gettime): those have
 * an entry probe only, since a uprobe pair would cost a hundred times the
 * call.  Timed functions have an entry and a return probe.  One entry
 * program serves both kinds, so a library needs two links, not three
 * (each link costs tens of ms to detach).
 */
#include "shared.bpf.h"
#include "targets.bpf.h"
#include "libc.bpf.h"
#include "latency.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384 * 4);
	__type(key, struct libc_key);
	__type(value, struct libc_stats);
} libc_stats SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct caller_key);
	__type(value, __u64);
} callers SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384);
	__type(key, struct caller_key);
	__type(value, struct caller_file);
} caller_files SEC(".maps");

static const struct libc_stats libc_stats_init = { .lat.min_ns = ~0ULL };

static __always_inline struct libc_stats *libc_stats_of(__u32 tgid, __u32 fn)
{
	struct libc_key key = { .tgid = tgid, .fn = fn };

	return lookup_or_init(&libc_stats, &key, &libc_stats_init,
			      LOSS_LIBC_MAP_FULL);
}

/* Global: verified once, not once per path through sys_exit. */
__noinline int libc_attribute(__u32 tgid, __u32 fn, __u32 kind, __u64 ns)
{
	struct libc_stats *s = libc_stats_of(tgid, fn);

	if (!s)
		return 0;
	if (kind >= KIND_FIRST_TZ)
		__sync_fetch_and_add(&s->tz_accesses, 1);
	else
		__sync_fetch_and_add(&s->clock_syscalls, 1);
	__sync_fetch_and_add(&s->kernel_ns, ns);
	return 0;
}

static long caller_vma(struct task_struct *task, struct vm_area_struct *vma,
		       void *data)
{
	struct caller_file *cf = data;
	struct file *file = BPF_CORE_READ(vma, vm_file);
	const unsigned char *name;

	if (!file)
		return 0;
	cf->file_off = cf->file_off - BPF_CORE_READ(vma, vm_start) +
		       (BPF_CORE_READ(vma, vm_pgoff) << 12);
	cf->ino = BPF_CORE_READ(file, f_inode, i_ino);
	cf->dev = BPF_CORE_READ(file, f_inode, i_sb, s_dev);
	name = BPF_CORE_READ(file, f_path.dentry, d_name.name);
	bpf_probe_read_kernel_str(cf->name, sizeof(cf->name), name);
	cf->found = 1;
	return 0;
}

/* Once per call site: the process may be gone when the report is made. */
static __always_inline void note_caller_file(const struct caller_key *key)
{
	struct caller_file cf = { .file_off = key->ret_addr };

	bpf_find_vma(bpf_get_current_task_btf(), key->ret_addr, caller_vma,
		     &cf, 0);
	bpf_map_update_elem(&caller_files, key, &cf, BPF_NOEXIST);
}

/*
 * At a return probe the kernel has already put the caller's return address
 * back in ip: the call site costs no read of the user stack.
 */
static __always_inline void record_caller(struct pt_regs *ctx, __u32 tgid,
					  __u32 fn, bool find_vma)
{
	struct caller_key key = {
		.tgid = tgid, .fn = fn, .ret_addr = PT_REGS_IP(ctx),
	};
	static const __u64 zero;
	__u64 *n;

	n = bpf_map_lookup_elem(&callers, &key);
	if (!n) {
		if (find_vma)
			note_caller_file(&key);
		n = lookup_or_init(&callers, &key, &zero, LOSS_LIBC_MAP_FULL);
	}
	if (n)
		__sync_fetch_and_add(n, 1);
}

static __always_inline int count_call(struct pt_regs *ctx, __u32 tgid,
				      __u32 fn)
{
	struct thread_state *ts;
	struct libc_stats *s;

	s = libc_stats_of(tgid, fn);
	if (s)
		__sync_fetch_and_add(&s->calls, 1);
	ts = thread_state(true);
	if (ts && ts->libc_depth == 0) {
		ts->libc_fn = fn | LIBC_PENDING_CLOCK;
		ts->libc_clock = (__s32)PT_REGS_PARM1(ctx);
		ts->libc_start_ns = bpf_ktime_get_ns();
	}
	return 0;
}

/*
 * A timed function's entry.  Returns true when it opened the thread's
 * outermost call, whose return must close it.  With two links (entry and
 * return programs) every call comes back through the return program, so
 * nested calls are counted in libc_depth; a session link returns only for
 * the calls that ask (see libc_session).
 */
static __always_inline bool enter_timed(__u32 fn, bool session)
{
	struct thread_state *ts = thread_state(true);

	if (!ts) {
		count_loss(LOSS_THREAD_STATE);
		return false;
	}
	if (ts->libc_depth > 0) {
		/* mktime calls tzset and localtime_r: count the outer call. */
		if (session)
			return false;
		if (ts->libc_depth < LIBC_NESTED_MAX) {
			ts->libc_depth++;
		} else {
			/* Its return must not close the outer call early. */
			ts->libc_overflow++;
			count_loss(LOSS_LIBC_NESTING);
		}
		return false;
	}
	ts->libc_fn = fn;
	ts->libc_depth = 1;
	ts->libc_start_ns = bpf_ktime_get_ns();
	return true;
}

/*
 * new_helpers: the kernel has bpf_find_vma (5.17) and so compare-and-swap
 * too; older ones run libc_return_old, whose call sites are named from
 * the process's mappings while it lives.
 */
static __always_inline int leave_timed(struct pt_regs *ctx, bool new_helpers)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct thread_state *ts;
	struct libc_stats *s;
	__u64 ns;

	/* Only a traced process's entry opened a call (libc_depth > 0). */
	ts = thread_state(false);
	if (!ts || ts->libc_depth == 0)
		return 0;
	if (ts->libc_overflow) {
		ts->libc_overflow--;
		return 0;
	}
	if (--ts->libc_depth > 0)
		return 0;
	ns = bpf_ktime_get_ns() - ts->libc_start_ns;
	record_caller(ctx, tgid, ts->libc_fn, new_helpers);
	s = libc_stats_of(tgid, ts->libc_fn);
	ts->libc_fn = 0;
	if (!s)
		return 0;
	__sync_fetch_and_add(&s->calls, 1);
	latency_add(&s->lat, ns, false, new_helpers);
	return 0;
}

/* Whether this call needs its return seen. */
static __always_inline bool libc_enter_as(struct pt_regs *ctx, __u64 cookie,
					  bool session)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	__u32 fn = cookie & LIBC_COOKIE_FN;

	if (!is_traced(tgid))
		return false;
	if (cookie & LIBC_COOKIE_COUNT_ONLY) {
		count_call(ctx, tgid, fn);
		return false;
	}
	return enter_timed(fn, session);
}

static __always_inline bool libc_enter(struct pt_regs *ctx, bool session)
{
	return libc_enter_as(ctx, bpf_get_attach_cookie(ctx), session);
}

SEC("uprobe")
int libc_entry(struct pt_regs *ctx)
{
	libc_enter(ctx, false);
	return 0;
}

SEC("uretprobe")
int libc_return(struct pt_regs *ctx)
{
	return leave_timed(ctx, true);
}

/*
 * Before Linux 5.15 a probe has no attach cookie: one entry program per
 * function says which it is (libc_old_tzset, ...), attached with classic
 * uprobes.  The functions from clock_gettime on are counted, not timed.
 */
#define LIBC_OLD_ENTRY(name, fn)					\
SEC("uprobe")								\
int libc_old_##name(struct pt_regs *ctx)				\
{									\
	libc_enter_as(ctx, (fn) >= LIBC_CLOCK_GETTIME ?			\
		      (fn) | LIBC_COOKIE_COUNT_ONLY : (fn), false);	\
	return 0;							\
}

LIBC_OLD_ENTRY(tzset, LIBC_TZSET)
LIBC_OLD_ENTRY(localtime, LIBC_LOCALTIME)
LIBC_OLD_ENTRY(localtime_r, LIBC_LOCALTIME_R)
LIBC_OLD_ENTRY(gmtime, LIBC_GMTIME)
LIBC_OLD_ENTRY(gmtime_r, LIBC_GMTIME_R)
LIBC_OLD_ENTRY(mktime, LIBC_MKTIME)
LIBC_OLD_ENTRY(timelocal, LIBC_TIMELOCAL)
LIBC_OLD_ENTRY(timegm, LIBC_TIMEGM)
LIBC_OLD_ENTRY(strftime, LIBC_STRFTIME)
LIBC_OLD_ENTRY(ctime, LIBC_CTIME)
LIBC_OLD_ENTRY(ctime_r, LIBC_CTIME_R)
LIBC_OLD_ENTRY(clock_gettime, LIBC_CLOCK_GETTIME)
LIBC_OLD_ENTRY(gettimeofday, LIBC_GETTIMEOFDAY)
LIBC_OLD_ENTRY(time, LIBC_TIME)

/* With the libc_old_* entries: no bpf_find_vma, no compare-and-swap. */
SEC("uretprobe")
int libc_return_old(struct pt_regs *ctx)
{
	return leave_timed(ctx, false);
}

extern bool bpf_session_is_return(void) __ksym __weak;

/*
 * Linux >= 6.13: one uprobe session link runs this at entry and, when the
 * entry returns 0, at return.  Count-only functions, nested calls and
 * untraced processes return 1 and so skip the return's cost.  Loaded only
 * where the kernel has sessions (the kfunc is weak for that reason).
 */
SEC("uprobe")
int libc_session(struct pt_regs *ctx)
{
	if (bpf_session_is_return())
		return leave_timed(ctx, true);
	return libc_enter(ctx, true) ? 0 : 1;
}
