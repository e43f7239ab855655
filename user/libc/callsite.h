/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call sites of --libc, named after the run: the BPF side took each site's
 * file (device, inode, name) and offset from the process's own mapping when
 * it first saw it; here the file is found again among the files traced
 * processes were seen mapping, and its symbols name the offset.
 */
#ifndef CLOCKTRACE_CALLSITE_H
#define CLOCKTRACE_CALLSITE_H

#include <sys/types.h>

#include "model.h"

struct libc_probe;

/* A file mapped by pid (path as pid sees it), for naming call sites. */
void callsite_note_file(struct libc_probe *lp, pid_t pid, const char *path);
/* Fills caller_stat.symbol and .module of every process. */
void callsite_symbolize(struct libc_probe *lp, struct model *m);
void callsite_free(struct libc_probe *lp);

#endif /* CLOCKTRACE_CALLSITE_H */
