/* SPDX-License-Identifier: GPL-2.0 */
/*
 * --stacks at the syscall's exit (syscall_event.bpf.h): the user
 * registers go to stack_copy() in stacks.bpf.c, which copies the top of
 * the user stack within the process's budget.
 */
#ifndef CLOCKTRACE_STACKS_BPF_H
#define CLOCKTRACE_STACKS_BPF_H

#include "shared.bpf.h"

#if defined(__TARGET_ARCH_x86)
#define STACK_USER_IP(r)	((r)->ip)
#define STACK_USER_SP(r)	((r)->sp)
#define STACK_USER_FP(r)	((r)->bp)
#define STACK_USER_LR(r)	0
#else
#define STACK_USER_IP(r)	((r)->pc)
#define STACK_USER_SP(r)	((r)->sp)
#define STACK_USER_FP(r)	((r)->regs[29])
#define STACK_USER_LR(r)	((r)->regs[30])
#endif

int stack_copy(__u64 tgid_kind, __u64 ip, __u64 sp, __u64 fp, __u64 lr);

/*
 * From sys_exit: the syscall's user registers are regs; lang_noted, the
 * event's script site is in lang_event.
 */
static __always_inline void stack_sample(struct pt_regs *regs, __u32 tgid,
					 __u32 kind, bool lang_noted)
{
	if (!stacks_enabled)
		return;
	if (lang_noted)
		kind |= STACK_KIND_LANG;
	stack_copy((__u64)tgid << 32 | kind, STACK_USER_IP(regs),
		   STACK_USER_SP(regs), STACK_USER_FP(regs),
		   STACK_USER_LR(regs));
}

#endif /* CLOCKTRACE_STACKS_BPF_H */
