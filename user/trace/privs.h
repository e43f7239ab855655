/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_PRIVS_H
#define CLOCKTRACE_PRIVS_H

#include <stdbool.h>
#include <stdint.h>

/*
 * What a session still does once its probes are attached, and so which
 * capabilities it keeps for the rest of its life.
 */
struct privs_need {
	bool signals_prog;	/* run: ^C forwarded to a PROG run with -u */
	bool attaches_later;	/* --libc, --lang: probes on processes seen later */
};

/*
 * The capabilities kept (a mask of 1 << CAP_*), whatever this process has:
 * always CAP_SYS_PTRACE and CAP_DAC_READ_SEARCH (/proc/PID/environ, maps,
 * root of any user's process, and the file reader, re-executed, keeps
 * them) and CAP_BPF (before Linux 5.19 every bpf() command needs it, a
 * read of a map we hold included); CAP_KILL to signal PROG; CAP_PERFMON
 * and CAP_SYS_ADMIN to attach more probes.
 */
uint64_t privs_kept(const struct privs_need *need);
/* "cap_dac_read_search,cap_sys_ptrace" for MASK, in BUF. */
const char *privs_names(uint64_t mask, char *buf, size_t size);
/*
 * Once the probes are attached and PROG is forked, keep only
 * privs_kept(NEED) and drop the rest from the effective, permitted,
 * inheritable and bounding sets; no exec may regain them.
 */
int drop_privileges(const struct privs_need *need);

#endif /* CLOCKTRACE_PRIVS_H */
