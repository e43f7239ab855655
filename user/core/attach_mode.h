/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where the counted syscalls are seen: the raw syscall tracepoints (every
 * kernel since 5.8, but every syscall of every process pays for them), or
 * fentry/fexit programs on the syscall functions themselves (only those
 * functions pay; the kernel must allow fentry: x86_64 from 5.5, arm64
 * needs ftrace direct calls, 6.4).  --attach auto takes fentry where a
 * probe program loads and attaches.
 */
#ifndef CLOCKTRACE_ATTACH_MODE_H
#define CLOCKTRACE_ATTACH_MODE_H

#include <stdbool.h>
#include <stddef.h>

#include "bpf_features.h"

struct clocktrace_bpf;
struct bpf_link;
struct btf;

enum attach_mode { ATTACH_AUTO, ATTACH_TRACEPOINT, ATTACH_FENTRY };

/* "auto", "tracepoint", "fentry": the option's words and the JSON's. */
const char *attach_mode_name(enum attach_mode m);
/* 0, or -1 when s is none of the names. */
int attach_mode_parse(const char *s, enum attach_mode *m);

/*
 * What to load for `requested` on this kernel (needs privilege), btf the
 * kernel's.  why says how fentry was found usable or not.  -1 when fentry
 * was asked for and the kernel refuses it; CLOCKTRACE_NO_FENTRY=1 makes
 * it refuse.
 */
int attach_mode_choose(const struct btf *btf, enum attach_mode requested,
		       enum attach_mode *chosen, char *why, size_t len);

/*
 * Before load: autoload the syscall programs of mode (TRACEPOINT or
 * FENTRY), with or without compare-and-swap as bf says; fentry programs
 * on functions this kernel does not have are left out.
 */
void attach_mode_apply(struct clocktrace_bpf *skel, const struct btf *btf,
		       enum attach_mode mode, const struct bpf_features *bf);

/* The most fentry and fexit programs the object holds. */
#define FENTRY_LINKS_MAX	64

/*
 * After load, in fentry mode: attach (on) or detach every loaded fentry
 * and fexit program; the exits go on first and off last, so that an
 * entry seen is timed.  links[] holds FENTRY_LINKS_MAX.
 */
int attach_mode_fentry_links(struct clocktrace_bpf *skel,
			     struct bpf_link **links, bool on);

#endif /* CLOCKTRACE_ATTACH_MODE_H */
