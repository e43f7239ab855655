// SPDX-License-Identifier: GPL-2.0
/* The time-API probes on one C library file. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <bpf/libbpf.h>

#include "clocktrace.skel.h"
#include "escape.h"
#include "libc_attach.h"
#include "reader.h"
#include "tracer.h"
#include "uprobe_multi.h"
#include "util.h"
#include "variant.h"

enum link_slot { SLOT_ENTRY, SLOT_RETURN, SLOT_MAX };

#define probe_set libc_probe_set

/* glibc's timelocal is mktime: one probe, counted under the first name. */
static bool is_alias(const struct probe_set *sets, uint64_t off)
{
	for (int slot = 0; slot < SLOT_MAX; slot++)
		for (uint32_t i = 0; i < sets[slot].n; i++)
			if (sets[slot].offs[i] == off)
				return true;
	return false;
}

static void add_probe(struct probe_set *set, uint64_t off, uint32_t fn)
{
	set->offs[set->n] = off;
	set->cookies[set->n++] = fn;
}

/* The reader's plan (libc_plan.c) into probe sets; notes aliases. */
static void plan(struct libc_lib *lib, const struct reader_libc_plan *p,
		 struct probe_set sets[SLOT_MAX])
{
	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
		uint64_t off = p->off[fn];

		lib->probe[fn] = p->probe[fn];
		if (!(p->probe[fn] & (LIBC_PROBE_EMULATED | LIBC_PROBE_STEPPED)))
			continue;
		if (is_alias(sets, off)) {
			lib->probe[fn] = LIBC_PROBE_ALIAS;
			continue;
		}
		if (libc_fn_timed(fn)) {
			add_probe(&sets[SLOT_ENTRY], off, fn);
			/* Same spot: one breakpoint serves both probes. */
			add_probe(&sets[SLOT_RETURN], off, fn);
		} else {
			add_probe(&sets[SLOT_ENTRY], off,
				  fn | LIBC_COOKIE_COUNT_ONLY);
		}
	}
}

/* Before 5.15 (no attach cookies): libc_old_NAME is FN's own entry. */
static struct bpf_program *old_entry(struct clocktrace_bpf *skel, uint32_t fn)
{
	char name[64];

	snprintf(name, sizeof(name), "libc_old_%s", libc_fn_name(fn));
	return bpf_object__find_program_by_name(skel->obj, name);
}

static bool uses_old_entries(struct clocktrace_bpf *skel)
{
	return bpf_program__autoload(skel->progs.libc_return_old);
}

/* The program of one probe: its function's own where there is no cookie. */
static struct bpf_program *slot_prog(struct tracer *t, enum link_slot slot,
				     uint64_t cookie)
{
	if (uses_old_entries(t->skel))
		return slot == SLOT_RETURN ? t->skel->progs.libc_return_old :
		       old_entry(t->skel, cookie & LIBC_COOKIE_FN);
	return slot == SLOT_RETURN ? t->skel->progs.libc_return :
				     t->skel->progs.libc_entry;
}

static void prepare_old_entries(struct clocktrace_bpf *skel, bool old)
{
	struct bpf_program *p;

	for (uint32_t fn = 1; fn < LIBC_FN_MAX; fn++) {
		p = old_entry(skel, fn);
		if (p)
			bpf_program__set_autoload(p, old);
	}
	bpf_program__set_autoload(skel->progs.libc_return_old, old);
}

/*
 * The --libc programs load only when asked for: one session program where
 * the kernel has uprobe sessions, else an entry and a return program for
 * uprobe-multi links, else for classic uprobes.
 */
void libc_attach_prepare(struct clocktrace_bpf *skel, bool libc)
{
	struct bpf_program *progs[] = {
		skel->progs.libc_entry, skel->progs.libc_return,
	};
	bool old = libc && !bpf_features_probe()->has[BPF_FEAT_LIBC_HELPERS];
	bool session = libc && !old && uprobe_session_supported();
	bool multi = libc && !old && !session && uprobe_multi_supported();

	bpf_program__set_autoload(skel->progs.libc_session, session);
	if (session)
		bpf_program__set_expected_attach_type(skel->progs.libc_session,
			(enum bpf_attach_type)UPROBE_SESSION_ATTACH_TYPE);
	prepare_old_entries(skel, old);
	for (size_t i = 0; i < ARRAY_SIZE(progs); i++) {
		bpf_program__set_autoload(progs[i], libc && !session && !old);
		if (multi)
			bpf_program__set_expected_attach_type(progs[i],
				(enum bpf_attach_type)UPROBE_MULTI_ATTACH_TYPE);
	}
}

enum libc_links libc_attach_links(struct tracer *t)
{
	if (bpf_program__fd(t->skel->progs.libc_session) >= 0)
		return LIBC_LINKS_SESSION;
	if ((int)bpf_program__expected_attach_type(t->skel->progs.libc_entry) ==
	    UPROBE_MULTI_ATTACH_TYPE)
		return LIBC_LINKS_MULTI;
	return LIBC_LINKS_CLASSIC;
}

/* A link in process pid, or in all (pid 0): its fd, or -1. */
static int link_multi(struct libc_lib *lib, struct bpf_program *prog,
		      const struct probe_set *set, enum uprobe_link_kind kind,
		      pid_t pid)
{
	int fd = uprobe_multi_attach(bpf_program__fd(prog), lib->attach_path,
				     set->offs, set->cookies, set->n, kind, pid);

	if (fd < 0) {
		char *shown = escape_dup(lib->path, ESCAPE_TEXT);

		/* A process that is gone (ESRCH) is no news. */
		if (fd != -ESRCH)
			ct_warn("--libc: cannot attach %s to %s: %s",
				bpf_program__name(prog), shown, strerror(-fd));
		free(shown);
		return -1;
	}
	return fd;
}

static int attach_multi(struct libc_lib *lib, struct bpf_program *prog,
			const struct probe_set *set, enum link_slot slot,
			enum uprobe_link_kind kind)
{
	int fd = link_multi(lib, prog, set, kind, 0);

	if (fd < 0)
		return -1;
	lib->link_fds[slot] = fd;
	return 0;
}

static int attach_classic(struct libc_lib *lib, struct tracer *t,
			  const struct probe_set *set, enum link_slot slot)
{
	/* Without perf links (< 5.15) libbpf refuses any cookie. */
	bool old = uses_old_entries(t->skel);
	int attached = 0;

	lib->links = xrealloc(lib->links, lib->nlinks + set->n,
			      sizeof(*lib->links));
	for (uint32_t i = 0; i < set->n; i++) {
		LIBBPF_OPTS(bpf_uprobe_opts, opts,
			    .bpf_cookie = old ? 0 : set->cookies[i],
			    .retprobe = slot == SLOT_RETURN);
		struct bpf_program *prog = slot_prog(t, slot, set->cookies[i]);
		struct bpf_link *l;

		if (!prog)
			continue;
		l = bpf_program__attach_uprobe_opts(prog, -1, lib->attach_path,
						    set->offs[i], &opts);
		if (!l) {
			int err = errno;
			char *shown = escape_dup(lib->path, ESCAPE_TEXT);

			ct_warn("--libc: cannot attach %s to %s+0x%llx: %s",
			     bpf_program__name(prog), shown,
			     (unsigned long long)set->offs[i], strerror(err));
			free(shown);
			continue;
		}
		lib->links[lib->nlinks++] = l;
		attached++;
	}
	return attached ? 0 : -1;
}

/* An entry or a return program's probes: 0 when attached. */
static int attach_slot(struct libc_lib *lib, struct tracer *t,
		       enum libc_links links, const struct probe_set *sets,
		       enum link_slot slot)
{
	if (links == LIBC_LINKS_MULTI)
		return attach_multi(lib, slot_prog(t, slot, 0), &sets[slot], slot,
				    slot == SLOT_RETURN ? UPROBE_LINK_RETURN :
							  UPROBE_LINK_ENTRY);
	return attach_classic(lib, t, &sets[slot], slot);
}

/*
 * The probes go on the very file whose symbols placed them: the reader
 * sends the descriptor it read, and they are attached through
 * /proc/self/fd.  A path that a traced program swaps in between (its own
 * "libc" turned into a link to the system's) cannot move them, at offsets
 * of another file, into code that every process runs.
 */
#define LOAD_ON_FUSE	1

static int load_pinned(struct libc_lib *lib, struct reader_libc_plan *p)
{
	struct reader_file f = { .pid = lib->pid };
	int fd = -1;

	reader_file_id(&f, lib->dev, lib->ino);
	snprintf(f.path, sizeof(f.path), "%s", lib->path);
	if (reader_libc_plan(&f, p, &fd))
		return -1;
	/* The kernel would read it in the tracer, where its server decides. */
	if (p->flags & RD_FLAG_FUSE) {
		close(fd);
		return LOAD_ON_FUSE;
	}
	free(lib->path);
	lib->path = xstrdup(p->path);
	lib->dev = p->dev;
	lib->ino = p->ino;
	lib->fd = fd;
	snprintf(lib->attach_path, sizeof(lib->attach_path), "/proc/self/fd/%d",
		 fd);
	return 0;
}

/*
 * The links of one process: a session link, or an entry and a return
 * link, each reaching pid only.  fds[] gets them (-1: none).
 */
static int link_process(struct libc_lib *lib, struct tracer *t, pid_t pid,
			int fds[SLOT_MAX])
{
	struct clocktrace_bpf *skel = t->skel;
	int ok = 0;

	fds[SLOT_ENTRY] = fds[SLOT_RETURN] = -1;
	if (libc_attach_links(t) == LIBC_LINKS_SESSION) {
		if (lib->sets[SLOT_ENTRY].n)
			fds[SLOT_ENTRY] = link_multi(lib,
				skel->progs.libc_session, &lib->sets[SLOT_ENTRY],
				UPROBE_LINK_SESSION, pid);
		return fds[SLOT_ENTRY] < 0 ? -1 : 0;
	}
	if (lib->sets[SLOT_ENTRY].n)
		fds[SLOT_ENTRY] = link_multi(lib, skel->progs.libc_entry,
					     &lib->sets[SLOT_ENTRY],
					     UPROBE_LINK_ENTRY, pid);
	if (fds[SLOT_ENTRY] >= 0 && lib->sets[SLOT_RETURN].n)
		fds[SLOT_RETURN] = link_multi(lib, skel->progs.libc_return,
					      &lib->sets[SLOT_RETURN],
					      UPROBE_LINK_RETURN, pid);
	/* An entry without its return would leave every call open. */
	if (fds[SLOT_ENTRY] >= 0 && lib->sets[SLOT_RETURN].n &&
	    fds[SLOT_RETURN] < 0) {
		close(fds[SLOT_ENTRY]);
		fds[SLOT_ENTRY] = -1;
	}
	ok = fds[SLOT_ENTRY] >= 0;
	return ok ? 0 : -1;
}

bool libc_lib_reaches(const struct libc_lib *lib, pid_t pid)
{
	if (lib->systemwide)
		return true;
	for (size_t i = 0; i < lib->nprocs; i++)
		if (lib->procs[i] == pid)
			return true;
	return false;
}

int libc_lib_reach(struct libc_lib *lib, struct tracer *t, pid_t pid)
{
	int fds[SLOT_MAX];

	int err;

	if (libc_lib_reaches(lib, pid))
		return 0;
	err = link_process(lib, t, pid, fds);
	/* Noted even when it failed: tried once, not at every rescan. */
	lib->procs = xrealloc(lib->procs, lib->nprocs + 1, sizeof(*lib->procs));
	lib->proc_fds = xrealloc(lib->proc_fds, (lib->nprocs + 1) * SLOT_MAX,
				 sizeof(*lib->proc_fds));
	memcpy(&lib->proc_fds[lib->nprocs * SLOT_MAX], fds, sizeof(fds));
	lib->procs[lib->nprocs++] = pid;
	return err;
}

/* The per-process links stay: closing them now would cost more. */
int libc_lib_reach_all(struct libc_lib *lib, struct tracer *t)
{
	int fds[SLOT_MAX];

	if (lib->systemwide)
		return 0;
	if (link_process(lib, t, 0, fds))
		return -1;
	memcpy(lib->link_fds, fds, sizeof(fds));
	lib->systemwide = true;
	return 0;
}

int libc_lib_attach(struct libc_lib *lib, struct tracer *t, bool verbose,
		    bool systemwide)
{
	struct probe_set sets[SLOT_MAX] = {};
	struct reader_libc_plan *p = xcalloc(1, sizeof(*p));
	/* A library's path is the traced program's choice. */
	char *shown = escape_dup(lib->path, ESCAPE_TEXT);
	enum libc_links links;
	int ok = 0, err;

	for (int i = 0; i < SLOT_MAX; i++)
		lib->link_fds[i] = -1;
	lib->fd = -1;
	err = load_pinned(lib, p);
	if (err) {
		ct_warn(err == LOAD_ON_FUSE ? "--libc: %s is on a FUSE file system: "
			"not probed (its server could stall clocktrace)" :
			"--libc: %s is not a readable ELF file (or it changed)",
			shown);
		free(shown);
		free(p);
		return -1;
	}
	plan(lib, p, sets);
	free(p);
	memcpy(lib->sets, sets, sizeof(sets));
	links = libc_attach_links(t);
	if (!systemwide) {
		/* Kept for libc_lib_reach, with the file: nothing traps yet. */
		ok = sets[SLOT_ENTRY].n > 0;
	} else if (links == LIBC_LINKS_SESSION) {
		/* Its entry asks for the return when it needs one. */
		if (sets[SLOT_ENTRY].n &&
		    !attach_multi(lib, t->skel->progs.libc_session,
				  &sets[SLOT_ENTRY], SLOT_ENTRY,
				  UPROBE_LINK_SESSION))
			ok++;
	} else {
		for (int slot = 0; slot < SLOT_MAX; slot++)
			if (sets[slot].n && !attach_slot(lib, t, links, sets,
							 slot))
				ok++;
	}
	if (verbose)
		fprintf(stderr, "clocktrace: --libc: %s: %u entry, %u return "
			"probes (%s)\n", shown, sets[SLOT_ENTRY].n,
			sets[SLOT_RETURN].n, libc_links_name(links));
	free(shown);
	return ok ? 0 : -1;
}

void libc_lib_detach(struct libc_lib *lib)
{
	uprobe_multi_close_all(lib->link_fds, SLOT_MAX);
	if (lib->nprocs)
		uprobe_multi_close_all(lib->proc_fds, lib->nprocs * SLOT_MAX);
	free(lib->procs);
	free(lib->proc_fds);
	if (lib->fd >= 0)
		close(lib->fd);
	lib->fd = -1;
	lib->procs = NULL;
	lib->proc_fds = NULL;
	lib->nprocs = 0;
	for (size_t i = 0; i < lib->nlinks; i++)
		bpf_link__destroy(lib->links[i]);
	free(lib->links);
	free(lib->path);
	lib->links = NULL;
	lib->nlinks = 0;
}
