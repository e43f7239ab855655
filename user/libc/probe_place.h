/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where in a function to put its uprobe.  A breakpoint on an instruction
 * the kernel must single-step costs ~8.5 us per hit on our reference VM;
 * on one it emulates (push, jmp, call, jcc, nop) ~0.3 us.  So we walk the
 * function's entry block (x86_64) for the first emulated instruction that
 * every call passes exactly once, with the stack pointer still where it
 * was at entry (the uretprobe hijacks the return address at sp, and the
 * entry probe reads the caller there).  Anything we cannot decode with
 * certainty keeps the probe on the first instruction.
 */
#ifndef CLOCKTRACE_PROBE_PLACE_H
#define CLOCKTRACE_PROBE_PLACE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct probe_place {
	uint64_t off;		/* from the function's first byte */
	bool emulated;		/* the kernel emulates the instruction there */
};

/*
 * The decoder reads x86_64 code.  Elsewhere (arm64) the probe stays on the
 * first instruction, which the kernel single-steps there too unless it is
 * a branch: the report calls those functions single-stepped.
 */
#ifdef __x86_64__
#define PROBE_PLACE_NATIVE	1
#else
#define PROBE_PLACE_NATIVE	0
#endif

/* code: the function's bytes (all of them: branches back are checked). */
struct probe_place probe_place_find(const uint8_t *code, size_t len);

#endif /* CLOCKTRACE_PROBE_PLACE_H */
