// SPDX-License-Identifier: GPL-2.0
/*
 * --attach fentry: the same counting as sys_enter/sys_exit, entered from
 * fentry/fexit programs on the syscall functions we count.  The raw
 * syscall tracepoints put every syscall of every process on the kernel's
 * slow path; these trampolines sit on a dozen functions only, so other
 * syscalls run untouched.  Userspace loads either these or the
 * tracepoints (user/core/attach_mode.c), and skips a function the kernel lacks.
 *
 * The number is read from the registers as the tracepoint has it, so the
 * same checks hold: a 32-bit task reaches these functions through the
 * compat table with other numbers (arm64), or an x32 number carries its
 * flag bit; neither is counted, in either mode.
 */
#include "shared.bpf.h"
#include "syscall_event.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define SYS_FN(name)	"__x64_sys_" #name
#else
#define SYS_FN(name)	"__arm64_sys_" #name
#endif

/*
 * fentry_NAME, fexit_NAME and fexitnc_NAME (no compare-and-swap, Linux
 * < 5.12) on the kernel's __ARCH_sys_NAME: the prefixes are what
 * user/core/attach_mode.c looks for.
 */
#define SYSCALL_PROGS(name)						\
SEC("fentry/" SYS_FN(name))						\
int BPF_PROG(fentry_##name, struct pt_regs *regs)			\
{									\
	return on_sys_enter(regs, SYSCALL_NR(regs));			\
}									\
SEC("fexit/" SYS_FN(name))						\
int BPF_PROG(fexit_##name, struct pt_regs *regs, long ret)		\
{									\
	return on_sys_exit(regs, ret, true);				\
}									\
SEC("fexit/" SYS_FN(name))						\
int BPF_PROG(fexitnc_##name, struct pt_regs *regs, long ret)		\
{									\
	return on_sys_exit(regs, ret, false);				\
}

/* The syscalls of syscalls.bpf.h's CT_SYSCALLS(), by kernel function. */
#define SYSCALL_PROGS_OF(name, kind)	SYSCALL_PROGS(name)
CT_SYSCALLS(SYSCALL_PROGS_OF)
