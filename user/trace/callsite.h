/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Call sites of --libc, named after the run: the BPF side took each site's
 * file (device, inode, name) and offset from the process's own mapping when
 * it first saw it; here the file is found again among the files traced
 * processes were seen mapping, and its symbols name the offset.
 */
#ifndef CLOCKTRACE_CALLSITE_H
#define CLOCKTRACE_CALLSITE_H

#include <stdbool.h>
#include <sys/types.h>

#include "model.h"

struct libc_probe;

struct maps_entry;

/*
 * A file mapped by pid, for naming call sites; foreign: pid's mount
 * namespace is not ours (its files are held open by the reader).
 */
void callsite_note_file(struct libc_probe *lp, pid_t pid,
			const struct maps_entry *e, bool foreign);
/* Fills caller_stat.symbol and .module of every process. */
void callsite_symbolize(struct libc_probe *lp, struct model *m);
void callsite_free(struct libc_probe *lp);

#endif /* CLOCKTRACE_CALLSITE_H */
