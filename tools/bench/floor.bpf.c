// SPDX-License-Identifier: GPL-2.0
/*
 * The practical floor for bench.sh: the least a hand-written libbpf tool
 * can do to count what clocktrace counts.  Same attach points (tp_btf
 * sys_enter/sys_exit with a switch on the syscall number, sched_process_fork
 * to follow children), same per-thread state (task storage), same work per
 * event: per-(tgid, kind) count plus a log2 latency histogram, tz paths
 * recognised at exit.  Nothing else: no min/max, no errors, no clock ids,
 * no per-path map, no loss accounting, no exec/exit events, no libc.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

#define SLOTS	40
#define PLEN	128

enum { K_CLOCK_GETTIME, K_GETTIMEOFDAY, K_TIME, K_CLOCK_GETRES,
       K_TZ_OPEN, K_TZ_STAT, K_TZ_ACCESS, K_TZ_READLINK };

struct fkey { __u32 tgid, kind; };
struct fval { __u64 count; __u64 hist[SLOTS]; };
struct fts { __u64 start; __u64 arg; long nr; };

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, __u32);
	__type(value, __u32);
} pids SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 65536);
	__type(key, struct fkey);
	__type(value, struct fval);
} counts SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct fts);
} tstate SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, char[PLEN]);
} scratch SEC(".maps");

static __always_inline int kind_of(long nr)
{
	switch (nr) {
	case 228: return K_CLOCK_GETTIME;
	case 96: return K_GETTIMEOFDAY;
	case 201: return K_TIME;
	case 229: return K_CLOCK_GETRES;
	case 2: case 257: case 437: return K_TZ_OPEN;
	case 4: case 6: case 262: case 332: return K_TZ_STAT;
	case 21: case 269: case 439: return K_TZ_ACCESS;
	case 89: case 267: return K_TZ_READLINK;
	}
	return -1;
}

static __always_inline __u32 slot(__u64 v)
{
	__u32 r = 0, s;

	s = (v > 0xFFFFFFFFULL) << 5; v >>= s; r |= s;
	s = (v > 0xFFFF) << 4; v >>= s; r |= s;
	s = (v > 0xFF) << 3; v >>= s; r |= s;
	s = (v > 0xF) << 2; v >>= s; r |= s;
	s = (v > 0x3) << 1; v >>= s; r |= s;
	r |= (v >> 1);
	return r < SLOTS ? r : SLOTS - 1;
}

static __always_inline bool prefix(const char *p, const char *lit, int n, bool dir)
{
	for (int i = 0; i < n; i++)
		if (p[i] != lit[i])
			return false;
	return p[n] == '\0' || (dir && p[n] == '/');
}

static __always_inline bool is_tz(const char *p)
{
	return prefix(p, "/etc/localtime", 14, false) ||
	       prefix(p, "/etc/timezone", 13, false) ||
	       prefix(p, "/usr/share/zoneinfo", 19, true) ||
	       prefix(p, "/usr/lib/zoneinfo", 17, true) ||
	       prefix(p, "/usr/share/lib/zoneinfo", 23, true);
}

SEC("tp_btf/sys_enter")
int BPF_PROG(sys_enter, struct pt_regs *regs, long nr)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	int kind = kind_of(nr);
	struct fts *t;

	if (kind < 0 || !bpf_map_lookup_elem(&pids, &tgid))
		return 0;
	t = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0,
				 BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!t)
		return 0;
	t->nr = nr;
	t->arg = (nr == 2 || nr == 4 || nr == 6 || nr == 21 || nr == 89) ?
		 regs->di : regs->si;
	t->start = bpf_ktime_get_ns();
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(sys_exit, struct pt_regs *regs, long ret)
{
	long nr = regs->orig_ax;
	int kind = kind_of(nr);
	struct fkey k;
	struct fval *v;
	struct fts *t;
	__u64 d;

	if (kind < 0)
		return 0;
	t = bpf_task_storage_get(&tstate, bpf_get_current_task_btf(), 0, 0);
	if (!t || t->nr != nr)
		return 0;
	t->nr = -1;
	d = bpf_ktime_get_ns() - t->start;
	if (kind >= K_TZ_OPEN) {
		__u32 z = 0;
		char *p = bpf_map_lookup_elem(&scratch, &z);

		if (!p || bpf_probe_read_user_str(p, PLEN, (void *)t->arg) < 0 ||
		    !is_tz(p))
			return 0;
	}
	k.tgid = bpf_get_current_pid_tgid() >> 32;
	k.kind = kind;
	v = bpf_map_lookup_elem(&counts, &k);
	if (!v) {
		static const struct fval zero;

		bpf_map_update_elem(&counts, &k, &zero, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&counts, &k);
		if (!v)
			return 0;
	}
	__sync_fetch_and_add(&v->count, 1);
	__sync_fetch_and_add(&v->hist[slot(d)], 1);
	return 0;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid, one = 1;

	if (child->pid != ctgid || !bpf_map_lookup_elem(&pids, &ptgid))
		return 0;
	bpf_map_update_elem(&pids, &ctgid, &one, BPF_ANY);
	return 0;
}
