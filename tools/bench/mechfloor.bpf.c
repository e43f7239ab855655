// SPDX-License-Identifier: GPL-2.0
/*
 * Mechanism floors for bench.sh section 5 (what a tracer costs processes
 * it does not trace).  Every program here does nothing: what is measured is
 * the price of the attach point itself, which any tool using it pays.
 * mechfloor.c loads only the programs of the mode it is given.
 *
 *   rawtp-empty  tp_btf/sys_enter + tp_btf/sys_exit: fire for every syscall
 *                of every task (clocktrace's and floor's attach points).
 *   classic-tp   syscalls/sys_{enter,exit}_clock_gettime perf tracepoints:
 *                fire for clock_gettime only, but enabling any syscall
 *                tracepoint puts every task on the slow syscall path.
 *   fentry       fentry/fexit on __x64_sys_clock_gettime (clock_gettime only,
 *                no syscall-wide flag).
 *   kprobe       kprobe on __x64_sys_clock_gettime (the same, older way).
 *   lsm          lsm/file_open (the hook a tz-path tracer could use).
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("tp_btf/sys_enter")
int BPF_PROG(raw_enter, struct pt_regs *regs, long nr)
{
	return 0;
}

SEC("tp_btf/sys_exit")
int BPF_PROG(raw_exit, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("tp/syscalls/sys_enter_clock_gettime")
int classic_enter(void *ctx)
{
	return 0;
}

SEC("tp/syscalls/sys_exit_clock_gettime")
int classic_exit(void *ctx)
{
	return 0;
}

SEC("fentry/__x64_sys_clock_gettime")
int BPF_PROG(fentry_clock, struct pt_regs *regs)
{
	return 0;
}

SEC("fexit/__x64_sys_clock_gettime")
int BPF_PROG(fexit_clock, struct pt_regs *regs, long ret)
{
	return 0;
}

SEC("kprobe/__x64_sys_clock_gettime")
int kprobe_clock(struct pt_regs *ctx)
{
	return 0;
}

SEC("lsm/file_open")
int BPF_PROG(lsm_file_open, struct file *file, int ret)
{
	return ret;
}
