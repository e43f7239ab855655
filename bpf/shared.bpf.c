// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace's BPF object: count and time clock syscalls and time-zone file
 * accesses of a process tree, in the kernel.  Per event the work is a few
 * map lookups and atomic adds; userspace reads the maps when it reports.
 *
 * One compile unit per concern, linked into one object by bpftool gen
 * object (the Makefile): this one defines what shared.bpf.h declares;
 * targets.bpf.h says which process is traced; syscalls.bpf.c counts the
 * syscalls seen by the raw tracepoints, fentry.bpf.c the same syscalls
 * seen by fentry/fexit; sched.bpf.c follows forks, execs (and the
 * environment an exec brings) and exits; libc.bpf.c the C library's
 * calls (--libc), lang.bpf.c the script frames (--lang), vdso.bpf.c the
 * vDSO samples (--vdso).
 */
#define CT_DEFINE_SHARED
#include "shared.bpf.h"

char LICENSE[] SEC("license") = "GPL";
