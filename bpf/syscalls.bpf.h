/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which syscalls we count and where their interesting argument is.
 * Raw tracepoints see syscall numbers, which are per architecture.
 */
#ifndef CLOCKTRACE_SYSCALLS_BPF_H
#define CLOCKTRACE_SYSCALLS_BPF_H

#if defined(__TARGET_ARCH_x86)
#define NR_open			2
#define NR_stat			4
#define NR_lstat		6
#define NR_access		21
#define NR_readlink		89
#define NR_gettimeofday		96
#define NR_time			201
#define NR_clock_gettime	228
#define NR_clock_getres		229
#define NR_openat		257
#define NR_newfstatat		262
#define NR_readlinkat		267
#define NR_faccessat		269
#define NR_statx		332
#define NR_openat2		437
#define NR_faccessat2		439
/* arch/x86/include/asm/thread_info.h: a 32-bit syscall is in progress. */
#define TS_COMPAT		0x0002
#else
#error "clocktrace: syscall numbers for this architecture are not written yet"
#endif

/*
 * Our kind for a syscall number, or -1 when we do not count it.  Path
 * syscalls return their TZ kind here; whether the path really is a tz file
 * is decided at exit, when the string is sure to be resident.
 */
static __always_inline int syscall_kind(long nr)
{
	switch (nr) {
	case NR_clock_gettime:
		return KIND_CLOCK_GETTIME;
	case NR_gettimeofday:
		return KIND_GETTIMEOFDAY;
	case NR_time:
		return KIND_TIME;
	case NR_clock_getres:
		return KIND_CLOCK_GETRES;
	case NR_open:
	case NR_openat:
	case NR_openat2:
		return KIND_TZ_OPEN;
	case NR_stat:
	case NR_lstat:
	case NR_newfstatat:
	case NR_statx:
		return KIND_TZ_STAT;
	case NR_access:
	case NR_faccessat:
	case NR_faccessat2:
		return KIND_TZ_ACCESS;
	case NR_readlink:
	case NR_readlinkat:
		return KIND_TZ_READLINK;
	}
	return -1;
}

/*
 * ia32 syscalls (a 32-bit program, or int 0x80 from 64-bit code) have other
 * numbers for the same calls (its 4 is write, not stat): never count them.
 * The kernel clears the flag on every return to user mode.
 */
static __always_inline bool compat_syscall(void)
{
	/* Not bpf_get_current_task_btf(): Linux 5.10 has no such helper. */
	struct task_struct *task = (void *)bpf_get_current_task();

	return BPF_CORE_READ(task, thread_info.status) & TS_COMPAT;
}

/* Path syscalls without a directory fd take the path first, the rest second. */
static __always_inline int path_arg_first(long nr)
{
	return nr == NR_open || nr == NR_stat || nr == NR_lstat ||
	       nr == NR_access || nr == NR_readlink;
}

#endif /* CLOCKTRACE_SYSCALLS_BPF_H */
