/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Source file and line of a code address, from the DWARF of the file
 * itself or of its separate debug file under /usr/lib/debug/.build-id,
 * read with elfutils' libdwfl.  Nothing is fetched over the network, and
 * no path the traced program could name (debuglink) is followed.
 */
#ifndef CLOCKTRACE_SRCLINE_H
#define CLOCKTRACE_SRCLINE_H

#include <stdbool.h>
#include <stdint.h>

struct srcline;

/*
 * Reads the DWARF of the ELF file open at fd (not taken: it is dup'd).
 * NULL when neither the file nor a debug file has line tables.
 */
struct srcline *srcline_open(int fd, const char *name);
void srcline_close(struct srcline *s);

/*
 * "/src/prog.c:42", with the calls it was inlined into appended as
 * " (inlined at /src/prog.c:50)", for a link-time address; NULL when no
 * line covers it.  malloc'd.
 */
char *srcline_lookup(struct srcline *s, uint64_t vaddr);

/* One frame of an address, inlined calls each a frame of their own. */
struct srcline_frame {
	char *function;		/* by DWARF; NULL: not named */
	char *file;		/* NULL: unknown */
	unsigned int line;
	bool inlined;		/* inlined into the next frame, its caller */
};

/*
 * The frames at a link-time address as addr2line -i names them, innermost
 * first: out[0] the line of the address, each inlined call's caller the
 * line it was called from, the last frame the function it is all in.  At
 * most max frames (the innermost); 0 when no line covers the address.
 * The strings are malloc'd: srcline_frames_free().
 */
int srcline_frames(struct srcline *s, uint64_t vaddr,
		   struct srcline_frame *out, int max);
void srcline_frames_free(struct srcline_frame *f, int n);

/*
 * The function holding a link-time address, by the symbol tables of the
 * file or its debug file (static functions of a stripped library); NULL
 * when none.  malloc'd.
 */
char *srcline_function(struct srcline *s, uint64_t vaddr);

#endif /* CLOCKTRACE_SRCLINE_H */
