// SPDX-License-Identifier: GPL-2.0
/* The time-API probes' places in one C library: see libc_plan.h. */
#include <stdlib.h>

#include "libc_plan.h"
#include "model.h"
#include "probe_place.h"

#define CODE_MAX	(64 * 1024)	/* bytes of a function checked for branches */

/*
 * CLOCKTRACE_LIBC_FIRST_INSN=1 keeps every probe on the first instruction:
 * how the per-hit cost of the placement is measured against the default.
 */
static struct probe_place place_probe(const struct elf_syms *syms,
				      const struct elf_func *f)
{
	struct probe_place first = { 0, false };
	size_t len = f->size < CODE_MAX ? f->size : CODE_MAX;
	struct probe_place at;
	uint8_t *code;

	if (!len || !PROBE_PLACE_NATIVE || getenv("CLOCKTRACE_LIBC_FIRST_INSN"))
		return first;
	code = malloc(len);
	if (!code || elf_syms_read(syms, f->file_off, code, len)) {
		free(code);
		return first;
	}
	at = probe_place_find(code, len);
	free(code);
	return at;
}

void libc_plan(const struct elf_syms *syms, struct reader_libc_plan *p)
{
	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
		struct probe_place at;
		struct elf_func f;

		if (elf_syms_find(syms, libc_fn_name(fn), &f)) {
			p->probe[fn] = LIBC_PROBE_MISSING;
			continue;
		}
		/* The symbol is a resolver: the calls go where it points. */
		if (f.ifunc) {
			p->probe[fn] = LIBC_PROBE_IFUNC;
			continue;
		}
		at = place_probe(syms, &f);
		p->off[fn] = f.file_off + at.off;
		p->probe[fn] = at.emulated ? LIBC_PROBE_EMULATED :
					     LIBC_PROBE_STEPPED;
	}
}
