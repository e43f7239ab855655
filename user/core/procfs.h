/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What /proc tells about a process.  Its contents are the traced program's
 * bytes: parsers are bounded and separate from the reads, so that they can
 * be fuzzed on plain buffers.
 */
#ifndef CLOCKTRACE_PROCFS_H
#define CLOCKTRACE_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#define PROCFS_ENVIRON_MAX	(1 << 20)

/*
 * In an environ block (NUL-separated NAME=value): 1 and the value's
 * start and length when NAME is set, 0 when it is not.
 */
int environ_lookup(const char *buf, size_t len, const char *name,
		   const char **val, size_t *val_len);

struct maps_entry {
	uint64_t start;
	uint64_t end;
	uint64_t offset;
	bool exec;
	/* The file's identity as the kernel printed it: no stat needed. */
	unsigned int dev_major, dev_minor;
	uint64_t ino;
	const char *path;	/* points into the parsed line; NULL if none */
};

/* One line of /proc/PID/maps; 0 on success. The line is not modified. */
int maps_parse_line(const char *line, struct maps_entry *e);

typedef void (*maps_file_fn)(const struct maps_entry *e, void *ctx);
/*
 * Calls fn for each mapping of pid backed by a file ("/..." path), from
 * at most max bytes of /proc/PID/maps.  0, or -1 when it cannot be read.
 */
int maps_for_each_file(pid_t pid, size_t max, maps_file_fn fn, void *ctx);

/* Reads a whole small file into a malloc'd buffer (at most max bytes). */
char *read_file(const char *path, size_t max, size_t *len);

/* 1 set (value copied, malloc'd), 0 unset, -1 unreadable. */
int proc_getenv(pid_t pid, const char *name, char **value);
int proc_comm(pid_t pid, char *buf, size_t size);
char *proc_exe(pid_t pid);
pid_t proc_ppid(pid_t pid);
bool proc_exists(pid_t pid);

/* PF_KTHREAD in /proc/PID/stat's flags (include/linux/sched.h). */
#define PROC_FLAG_KTHREAD	0x00200000ul

/*
 * The state letter (R, S, Z, X, ...) and the flags of a NUL-terminated
 * /proc/PID/stat line; 0 on success.
 */
int proc_stat_parse(const char *buf, char *state, unsigned long *flags);
int proc_state(pid_t pid, char *state, unsigned long *flags);

/*
 * /proc/PID/status, not NUL-terminated: its Tgid (the process a thread
 * belongs to) and the pid in its own namespace (NSpid's last field), or 0.
 */
pid_t status_tgid(const char *buf, size_t len);
pid_t status_nspid(const char *buf, size_t len);
/* The same from the live process; -1 when it cannot be read. */
pid_t proc_tgid(pid_t pid);
pid_t proc_nspid(pid_t pid);

/* Calls fn for every process on the machine. */
void proc_for_each(void (*fn)(pid_t pid, void *ctx), void *ctx);

#endif /* CLOCKTRACE_PROCFS_H */
