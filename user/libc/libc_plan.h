/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where each time-API probe goes in one C library: its symbols found and
 * each probe placed (probe_place.h).  Runs in the file reader, on a file
 * the traced program may have written.
 */
#ifndef CLOCKTRACE_LIBC_PLAN_H
#define CLOCKTRACE_LIBC_PLAN_H

#include "reader_proto.h"
#include "symbolize.h"

/* Fills p->probe[] (MISSING, IFUNC, EMULATED or STEPPED) and p->off[]. */
void libc_plan(const struct elf_syms *syms, struct reader_libc_plan *p);

#endif /* CLOCKTRACE_LIBC_PLAN_H */
