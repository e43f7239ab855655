/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which syscalls we count and where their interesting argument is.
 * Raw tracepoints see syscall numbers, which are per architecture.
 */
#ifndef CLOCKTRACE_SYSCALLS_BPF_H
#define CLOCKTRACE_SYSCALLS_BPF_H

#if defined(__TARGET_ARCH_x86)
#define NR_open			2
#define NR_newstat		4	/* stat */
#define NR_newlstat		6	/* lstat */
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
#define SYSCALL_ARG0(regs)	((regs)->di)
#define SYSCALL_ARG1(regs)	((regs)->si)
#define SYSCALL_NR(regs)	((regs)->orig_ax)
#elif defined(__TARGET_ARCH_arm64)
/*
 * include/uapi/asm-generic/unistd.h: no open, stat, lstat, access,
 * readlink or time; glibc uses the *at forms, statx and clock_gettime.
 */
#define NR_faccessat		48
#define NR_openat		56
#define NR_readlinkat		78
#define NR_newfstatat		79
#define NR_clock_gettime	113
#define NR_clock_getres		114
#define NR_gettimeofday		169
#define NR_statx		291
#define NR_openat2		437
#define NR_faccessat2		439
/* arch/arm64/include/asm/thread_info.h: an AArch32 task (5.10..6.18). */
#define TIF_32BIT		22
/* At exit x0 holds the result: the path pointer was taken at entry. */
#define SYSCALL_ARG0(regs)	((regs)->orig_x0)
#define SYSCALL_ARG1(regs)	((regs)->regs[1])
#define SYSCALL_NR(regs)	((regs)->syscallno)
#else
#error "clocktrace: syscall numbers for this architecture are not written yet"
#endif

/*
 * Every syscall we count, once, as X(kernel function, kind): the
 * tracepoints find them by number (NR_name, syscall_kind()), fentry by
 * function (fentry.bpf.c).  Path syscalls have their TZ kind here; whether
 * the path really is a tz file is decided at exit, when the string is sure
 * to be resident.  x86_64 alone has the legacy forms.
 */
#define CT_SYSCALLS_COMMON(X)				\
	X(clock_gettime, KIND_CLOCK_GETTIME)		\
	X(gettimeofday, KIND_GETTIMEOFDAY)		\
	X(clock_getres, KIND_CLOCK_GETRES)		\
	X(openat, KIND_TZ_OPEN)				\
	X(openat2, KIND_TZ_OPEN)			\
	X(newfstatat, KIND_TZ_STAT)			\
	X(statx, KIND_TZ_STAT)				\
	X(faccessat, KIND_TZ_ACCESS)			\
	X(faccessat2, KIND_TZ_ACCESS)			\
	X(readlinkat, KIND_TZ_READLINK)

#if defined(__TARGET_ARCH_x86)
#define CT_SYSCALLS_LEGACY(X)				\
	X(time, KIND_TIME)				\
	X(open, KIND_TZ_OPEN)				\
	X(newstat, KIND_TZ_STAT)			\
	X(newlstat, KIND_TZ_STAT)			\
	X(access, KIND_TZ_ACCESS)			\
	X(readlink, KIND_TZ_READLINK)
#else
#define CT_SYSCALLS_LEGACY(X)
#endif

#define CT_SYSCALLS(X)	CT_SYSCALLS_COMMON(X) CT_SYSCALLS_LEGACY(X)

#define SYSCALL_KIND_CASE(name, kind)	case NR_##name: return kind;

/* Our kind for a syscall number, or -1 when we do not count it. */
static __always_inline int syscall_kind(long nr)
{
	switch (nr) {
	CT_SYSCALLS(SYSCALL_KIND_CASE)
	}
	return -1;
}

/*
 * 32-bit syscalls (ia32: a 32-bit program, or int 0x80 from 64-bit code;
 * an AArch32 program on arm64) have other numbers for the same calls (ia32's
 * 4 is write, not stat): never count them.
 */
static __always_inline unsigned long compat_bits(struct task_struct *task,
						 bool btf)
{
	/* A BTF pointer reads directly: no probe read on this hot path. */
#if defined(__TARGET_ARCH_x86)
	/* The kernel clears the flag on every return to user mode. */
	return (btf ? task->thread_info.status :
		      BPF_CORE_READ(task, thread_info.status)) & TS_COMPAT;
#else
	return (btf ? task->thread_info.flags :
		      BPF_CORE_READ(task, thread_info.flags)) & (1UL << TIF_32BIT);
#endif
}

/* task_btf: the kernel has bpf_get_current_task_btf (5.11, with task storage). */
static __always_inline bool compat_syscall(bool task_btf)
{
	if (task_btf)
		return compat_bits(bpf_get_current_task_btf(), true);
	return compat_bits((void *)bpf_get_current_task(), false);
}

/* Path syscalls without a directory fd take the path first, the rest second. */
static __always_inline int path_arg_first(long nr)
{
#ifdef NR_open
	return nr == NR_open || nr == NR_newstat || nr == NR_newlstat ||
	       nr == NR_access || nr == NR_readlink;
#else
	return 0;
#endif
}

#endif /* CLOCKTRACE_SYSCALLS_BPF_H */
