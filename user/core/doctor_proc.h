/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What doctor learns about one process, as checks (checks.h): doctor.c
 * checks the machine, doctor_proc.c the process.
 */
#ifndef CLOCKTRACE_DOCTOR_PROC_H
#define CLOCKTRACE_DOCTOR_PROC_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

#include "checks.h"
#include "runtime.h"

enum libc_kind { LIBC_KIND_UNKNOWN, LIBC_KIND_GLIBC, LIBC_KIND_MUSL, LIBC_KIND_NONE };

/* What a process's environment and mappings say about its time calls. */
struct proc_facts {
	pid_t pid;
	char comm[32];
	int tz_state;		/* 1 set, 0 unset, -1 unreadable */
	char *tz;
	int tzdir_state;
	char *tzdir;
	enum libc_kind libc;
	bool is_static;
	char libc_path[256];
	char libc_version[32];
	enum runtime runtime;	/* Ruby or Python from exe or mappings */
};

/* Reads /proc/PID; -1 if the process does not exist. */
int proc_facts_read(pid_t pid, struct proc_facts *p);
void proc_facts_free(struct proc_facts *p);
/* The finding that applies to p (pure: unit-tested). */
const char *proc_tz_finding(const struct proc_facts *p,
			    enum check_status *st);
/*
 * What the process's runtime (Ruby, Python) will do about the zone file,
 * into buf; NULL when there is nothing more to say than proc_tz_finding.
 */
const char *proc_runtime_finding(const struct proc_facts *p,
				 enum check_status *st, char *buf, size_t size);
const char *libc_kind_name(enum libc_kind k);
/* Adds the process's lines to c. */
void doctor_process_checks(struct checks *c, const struct proc_facts *p);

#endif /* CLOCKTRACE_DOCTOR_PROC_H */
