// SPDX-License-Identifier: GPL-2.0
/*
 * --attach: the syscall programs of one mode or the other, chosen by a
 * probe in the manner of libbpf-tools' fentry_can_attach: load the
 * smallest fentry program on a function we would trace and attach it.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "libbpf_print.h"
#include "attach_mode.h"
#include "clocktrace.skel.h"
#include "util.h"

#if defined(__x86_64__)
#define PROBE_FN	"__x64_sys_clock_gettime"
#elif defined(__aarch64__)
#define PROBE_FN	"__arm64_sys_clock_gettime"
#else
#error "clocktrace: the syscall functions of this architecture are not named yet"
#endif

#define NO_FENTRY_KNOB	"CLOCKTRACE_NO_FENTRY"

static int func_id(const struct btf *btf, const char *name)
{
	return btf ? btf__find_by_name_kind(btf, name, BTF_KIND_FUNC) : -ENOENT;
}

/* r0 = 0; exit: loaded as fentry on PROBE_FN, attached, taken down. */
static bool fentry_can_attach(const struct btf *btf, char *why, size_t len)
{
	static const struct bpf_insn ret0[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, po,
		.expected_attach_type = BPF_TRACE_FENTRY);
	int id = func_id(btf, PROBE_FN), prog, link;

	if (id < 0) {
		snprintf(why, len, "no " PROBE_FN " in the kernel's BTF");
		return false;
	}
	po.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ct_fentry", "GPL", ret0,
			     ARRAY_SIZE(ret0), &po);
	if (prog < 0) {
		snprintf(why, len, "fentry on " PROBE_FN ": program load: %s",
			 strerror(errno));
		return false;
	}
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0)
		snprintf(why, len, "fentry on " PROBE_FN ": attach: %s",
			 strerror(errno));
	else
		snprintf(why, len, "fentry on " PROBE_FN
			 " loaded and attached");
	if (link >= 0)
		close(link);
	close(prog);
	return link >= 0;
}

int attach_mode_choose(const struct btf *btf, enum attach_mode requested,
		       enum attach_mode *chosen, char *why, size_t len)
{
	libbpf_print_fn_t old;
	bool fentry;

	*chosen = ATTACH_TRACEPOINT;
	if (requested == ATTACH_TRACEPOINT) {
		snprintf(why, len, "asked for");
		return 0;
	}
	if (getenv(NO_FENTRY_KNOB)) {
		snprintf(why, len, "fentry turned off by " NO_FENTRY_KNOB);
		fentry = false;
	} else {
		old = libbpf_set_print(libbpf_print_none);
		fentry = fentry_can_attach(btf, why, len);
		libbpf_set_print(old);
	}
	if (fentry)
		*chosen = ATTACH_FENTRY;
	return fentry || requested == ATTACH_AUTO ? 0 : -1;
}

static bool is_fentry(const struct bpf_program *p)
{
	return !strncmp(bpf_program__section_name(p), "fentry/", 7);
}

static bool is_fexit(const struct bpf_program *p)
{
	return !strncmp(bpf_program__section_name(p), "fexit/", 6);
}

/* fexitnc_*: the exit without compare-and-swap (Linux < 5.12). */
static bool is_nocas(const struct bpf_program *p)
{
	return !strncmp(bpf_program__name(p), "fexitnc_", 8);
}

/* The kernel function a program attaches to: "__x64_sys_openat". */
static const char *target_of(const struct bpf_program *p)
{
	return strchr(bpf_program__section_name(p), '/') + 1;
}

void attach_mode_apply(struct clocktrace_bpf *skel, const struct btf *btf,
		       enum attach_mode mode, const struct bpf_features *bf)
{
	bool fentry = mode == ATTACH_FENTRY, cas = bf->has[BPF_FEAT_CMPXCHG];
	struct bpf_program *p;

	bpf_program__set_autoload(skel->progs.sys_enter, !fentry);
	bpf_program__set_autoload(skel->progs.sys_exit, !fentry && cas);
	bpf_program__set_autoload(skel->progs.sys_exit_nocas, !fentry && !cas);
	bpf_object__for_each_program(p, skel->obj) {
		bool on = fentry;

		if (!is_fentry(p) && !is_fexit(p))
			continue;
		if (is_fexit(p))
			on = on && cas != is_nocas(p);
		/* A syscall this kernel lacks cannot be made either. */
		if (on && func_id(btf, target_of(p)) < 0)
			on = false;
		bpf_program__set_autoload(p, on);
	}
}

static int set_links(struct clocktrace_bpf *skel, struct bpf_link **links,
		     bool exits, bool on)
{
	struct bpf_program *p;
	size_t i = 0;

	bpf_object__for_each_program(p, skel->obj) {
		if (!is_fentry(p) && !is_fexit(p))
			continue;
		if (i >= FENTRY_LINKS_MAX) {
			ct_warn("more fentry programs than FENTRY_LINKS_MAX");
			return -1;
		}
		if (is_fexit(p) != exits || !bpf_program__autoload(p)) {
			i++;
			continue;
		}
		if (!on) {
			bpf_link__destroy(links[i]);
			links[i] = NULL;
		} else if (!links[i]) {
			links[i] = bpf_program__attach(p);
			if (!links[i]) {
				ct_warn("cannot attach %s to %s: %s",
				     bpf_program__name(p), target_of(p),
				     strerror(errno));
				return -1;
			}
		}
		i++;
	}
	return 0;
}

int attach_mode_fentry_links(struct clocktrace_bpf *skel,
			     struct bpf_link **links, bool on)
{
	if (on)
		return set_links(skel, links, true, true) ||
		       set_links(skel, links, false, true);
	set_links(skel, links, false, false);
	return set_links(skel, links, true, false);
}
