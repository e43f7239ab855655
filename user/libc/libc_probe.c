// SPDX-License-Identifier: GPL-2.0
/*
 * --libc: which C library a traced process maps, probed once per file.
 * See libc_probe.h for the coverage this gives and its one gap.
 */
#include <fnmatch.h>
#include <gelf.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "callsite.h"
#include "libc_attach.h"
#include "libc_probe.h"
#include "procfs.h"
#include "tracer.h"
#include "uprobe_multi.h"
#include "util.h"

#define MAPS_MAX	(4 << 20)
#define RESCAN_NS	(250 * 1000000ULL)
/*
 * Processes given links of their own (each: one or two links, ~13 ms to
 * attach and ~30 ms to detach here, and a longer list of consumers the
 * kernel walks at each hit); past it, one set of system-wide links.
 */
#define LIBC_REACH_MAX	64

/* glibc, old glibc, musl (whose loader is its libc). */
static const char *const libc_patterns[] = {
	"libc.so.6", "libc-*.so", "libc.so", "libc.musl-*.so*", "ld-musl-*.so*",
};

static bool is_libc_name(const char *path)
{
	const char *base = path_base_name(path);

	for (size_t i = 0; i < ARRAY_SIZE(libc_patterns); i++)
		if (!fnmatch(libc_patterns[i], base, 0))
			return true;
	return false;
}

/*
 * A path of another mount namespace is reached through /proc/PID/root.
 * Returns a malloc'd path that names the same file from here, or NULL.
 */
static char *reachable_path(pid_t pid, const char *path, struct stat *st)
{
	char *via_root;

	if (pid <= 0 || pid == getpid())
		return stat(path, st) ? NULL : xstrdup(path);
	if (asprintf(&via_root, "/proc/%d/root%s", pid, path) < 0)
		return NULL;
	if (stat(via_root, st)) {
		free(via_root);
		return NULL;
	}
	/* The same file under its own name is the nicer path to report. */
	{
		struct stat plain;

		if (!stat(path, &plain) && plain.st_dev == st->st_dev &&
		    plain.st_ino == st->st_ino) {
			free(via_root);
			return xstrdup(path);
		}
	}
	return via_root;
}

static struct libc_lib *find_lib(struct libc_probe *lp, const struct stat *st)
{
	for (size_t i = 0; i < lp->nlibs; i++)
		if (lp->libs[i].dev == st->st_dev &&
		    lp->libs[i].ino == st->st_ino)
			return &lp->libs[i];
	return NULL;
}

static void note_run(struct libc_probe *lp, const struct libc_lib *lib)
{
	for (int fn = 1; fn < LIBC_FN_MAX; fn++)
		lp->run.probe[fn] |= lib->probe[fn];
	lp->run.libs++;
}

/* One line at start: what system-wide probes cost everyone else. */
static void warn_systemwide(const char *why)
{
	ct_warn("warning: --libc probes every process on this machine (%s): "
		"each call of tzset, localtime, mktime, strftime, ctime... in "
		"any process costs ~%.1f-%.1f us more while clocktrace runs",
		why, (HIT_NS_EMULATED + HIT_NS_RETURN) / 1e3,
		(HIT_NS_STEPPED + HIT_NS_RETURN) / 1e3);
}

static void go_systemwide(struct libc_probe *lp)
{
	char why[80];

	if (lp->run.systemwide)
		return;
	snprintf(why, sizeof(why), "more than %d processes to probe one by "
		 "one", LIBC_REACH_MAX);
	warn_systemwide(why);
	lp->run.systemwide = true;
	for (size_t i = 0; i < lp->nlibs; i++)
		libc_lib_reach_all(&lp->libs[i], lp->tracer);
}

/* Links of p's own; its counts miss what it did before (late). */
static void reach(struct libc_probe *lp, struct libc_lib *lib,
		  struct proc_model *p, bool late)
{
	if (!lp->per_process || libc_lib_reaches(lib, p->pid))
		return;
	if (lp->reached >= LIBC_REACH_MAX)
		go_systemwide(lp);
	if (lp->run.systemwide)
		return;
	lp->reached++;
	if (libc_lib_reach(lib, lp->tracer, p->pid)) {
		p->libc_late = true;
		return;
	}
	p->libc_late |= late;
	if (lp->verbose)
		fprintf(stderr, "clocktrace: --libc: pid %d probed (links of "
			"its own)\n", p->pid);
}

void libc_probe_fork(struct libc_probe *lp, struct proc_model *child)
{
	for (size_t i = 0; lp->per_process && i < lp->nlibs; i++)
		if (libc_lib_reaches(&lp->libs[i], child->ppid))
			reach(lp, &lp->libs[i], child, true);
}

/* Probes the library at path (of pid's namespace) once; NULL on failure. */
static struct libc_lib *probe_lib(struct libc_probe *lp, pid_t pid,
				  const char *path, bool late)
{
	struct libc_lib *lib;
	struct stat st;
	uint64_t t0 = now_ns();
	char *here = reachable_path(pid, path, &st);

	if (!here)
		return NULL;
	lib = find_lib(lp, &st);
	if (lib) {
		free(here);
		return lib;
	}
	lp->libs = xrealloc(lp->libs, lp->nlibs + 1, sizeof(*lp->libs));
	lib = &lp->libs[lp->nlibs];
	memset(lib, 0, sizeof(*lib));
	lib->dev = st.st_dev;
	lib->ino = st.st_ino;
	lib->path = here;
	if (libc_lib_attach(lib, lp->tracer, lp->verbose,
			    !lp->per_process || lp->run.systemwide)) {
		libc_lib_detach(lib);
		return NULL;
	}
	lib->attached_ns = now_ns();
	lp->nlibs++;
	note_run(lp, lib);
	lp->run.late_libs += late;
	lp->run.attach_ns += now_ns() - t0;
	return lib;
}

#define LIBS_PER_PROC	8

/* The C libraries a process maps: its own, and any a dlmopen() added. */
struct maps_scan {
	char *libc[LIBS_PER_PROC];	/* paths, in pid's namespace */
	size_t nlibc;
};

static bool scan_has(const struct maps_scan *ms, const char *path)
{
	for (size_t i = 0; i < ms->nlibc; i++)
		if (!strcmp(ms->libc[i], path))
			return true;
	return false;
}

static void scan_free(struct maps_scan *ms)
{
	for (size_t i = 0; i < ms->nlibc; i++)
		free(ms->libc[i]);
	ms->nlibc = 0;
}

struct scan_ctx {
	struct libc_probe *lp;
	pid_t pid;
	struct maps_scan *ms;
};

static void scan_file(const struct maps_entry *e, void *ctx)
{
	struct scan_ctx *c = ctx;
	struct maps_scan *ms = c->ms;

	callsite_note_file(c->lp, c->pid, e->path);
	if (is_libc_name(e->path) && ms->nlibc < LIBS_PER_PROC &&
	    !scan_has(ms, e->path))
		ms->libc[ms->nlibc++] = xstrdup(e->path);
}

/* Reads pid's mappings: the C library, and every file for call sites. */
static int scan_maps(struct libc_probe *lp, pid_t pid, struct maps_scan *ms)
{
	struct scan_ctx c;

	memset(ms, 0, sizeof(*ms));
	c = (struct scan_ctx){ lp, pid, ms };
	return maps_for_each_file(pid, MAPS_MAX, scan_file, &c);
}

/* The program execvp() would run for name: a path, or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL, *found = NULL;

	if (strchr(name, '/'))
		return xstrdup(name);
	dirs = xstrdup(path ? path : "/usr/local/bin:/usr/bin:/bin");
	for (dir = strtok_r(dirs, ":", &save); dir && !found;
	     dir = strtok_r(NULL, ":", &save)) {
		if (asprintf(&found, "%s/%s", *dir ? dir : ".", name) < 0)
			found = NULL;
		else if (access(found, X_OK)) {
			free(found);
			found = NULL;
		}
	}
	free(dirs);
	return found;
}

/* PT_INTERP of an ELF executable into out; false when it has none. */
static bool elf_interp(const char *exe, char *out, size_t size)
{
	int fd = open_regular(exe);
	bool found = false;
	size_t n = 0;
	Elf *elf;

	if (fd < 0)
		return false;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n)) {
		for (size_t i = 0; i < n && !found; i++) {
			GElf_Phdr ph;

			if (!gelf_getphdr(elf, i, &ph) || ph.p_type != PT_INTERP ||
			    !ph.p_filesz || ph.p_filesz >= size)
				continue;
			found = pread(fd, out, ph.p_filesz, ph.p_offset) ==
				(ssize_t)ph.p_filesz;
			out[found ? ph.p_filesz - 1 : 0] = '\0';
		}
	}
	elf_end(elf);
	close(fd);
	return found && out[0] == '/';
}

void libc_probe_prog(struct libc_probe *lp, const char *prog)
{
	char *exe = find_in_path(prog), interp[256];

	/* musl's loader is its C library: probe it before PROG runs. */
	if (exe && elf_interp(exe, interp, sizeof(interp)) &&
	    is_libc_name(interp))
		probe_lib(lp, getpid(), interp, false);
	free(exe);
}

/* PT_INTERP of an executable: dynamic (1), static (0), unknown (-1). */
static int exe_is_dynamic(const char *exe)
{
	int fd = exe ? open_regular(exe) : -1, dynamic = -1;
	size_t n = 0;
	Elf *elf;

	if (fd < 0)
		return -1;
	elf_version(EV_CURRENT);
	elf = elf_begin(fd, ELF_C_READ, NULL);
	if (elf && elf_kind(elf) == ELF_K_ELF && !elf_getphdrnum(elf, &n)) {
		dynamic = 0;
		for (size_t i = 0; i < n; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(elf, i, &ph) && ph.p_type == PT_INTERP)
				dynamic = 1;
		}
	}
	elf_end(elf);
	close(fd);
	return dynamic;
}

static void set_libc(struct proc_model *p, enum libc_state state,
		     const char *path)
{
	p->libc_state = state;
	if (path && (!p->libc_path || strcmp(p->libc_path, path))) {
		free(p->libc_path);
		p->libc_path = xstrdup(path);
	}
}

/*
 * Every C library p maps is probed (a second one: dlmopen of another
 * file).  Calls p made through one before its probes were on were not
 * seen: the report says so for p (libc_complete: false).
 */
static void look_at(struct libc_probe *lp, struct proc_model *p, bool late)
{
	const char *own = NULL;
	uint64_t own_ns = UINT64_MAX;
	struct maps_scan ms;
	struct libc_lib *lib;

	if (scan_maps(lp, p->pid, &ms))
		return;
	for (size_t i = 0; i < ms.nlibc; i++) {
		lib = probe_lib(lp, p->pid, ms.libc[i], late);
		if (!lib || (p->running_since_ns &&
			     lib->attached_ns > p->running_since_ns))
			p->libc_late = true;
		/* Its own library is the one probed first, not a dlmopen's. */
		if (lib && lib->attached_ns < own_ns) {
			own = ms.libc[i];
			own_ns = lib->attached_ns;
		}
	}
	/*
	 * Every library probed so far, mapped yet or not: a process that
	 * execs (a static shell running a dynamic program) maps it then, and
	 * its links, made before, put the breakpoints in as it does.
	 */
	for (size_t i = 0; i < lp->nlibs; i++)
		reach(lp, &lp->libs[i], p, p->running_since_ns != 0);
	if (own)
		set_libc(p, LIBC_STATE_PROBED, own);
	else if (ms.nlibc)
		set_libc(p, LIBC_STATE_UNKNOWN, ms.libc[0]);
	scan_free(&ms);
}


/*
 * Before PROG runs: the C library we map ourselves is the one a dynamic
 * program of this system loads, unless it asks for another.
 */
void libc_probe_init(struct libc_probe *lp, struct tracer *t, bool verbose,
		     bool per_process)
{
	struct maps_scan ms;

	memset(lp, 0, sizeof(*lp));
	lp->verbose = verbose;
	lp->tracer = t;
	lp->run.links = libc_attach_links(t);
	lp->per_process = per_process && !getenv("CLOCKTRACE_NO_LIBC_FILTER") &&
			  lp->run.links != LIBC_LINKS_CLASSIC;
	lp->run.systemwide = !lp->per_process;
	if (!lp->per_process)
		warn_systemwide(!per_process ? "run and top probe the library "
				"file; attach probes its targets only" :
				lp->run.links == LIBC_LINKS_CLASSIC ?
				"this kernel has no uprobe-multi links" :
				"CLOCKTRACE_NO_LIBC_FILTER is set");
	if (scan_maps(lp, getpid(), &ms))
		return;
	if (ms.nlibc)
		probe_lib(lp, getpid(), ms.libc[0], false);
	scan_free(&ms);
}

void libc_probe_process(struct libc_probe *lp, struct tracer *t,
			struct proc_model *p)
{
	(void)t;	/* the one given at init */
	/* At exec the loader has not mapped the libraries yet: see rescan. */
	look_at(lp, p, true);
	if (exe_is_dynamic(p->exe) == 0 && p->libc_state != LIBC_STATE_PROBED)
		set_libc(p, LIBC_STATE_ABSENT, NULL);
}

void libc_probe_rescan(struct libc_probe *lp, struct tracer *t,
		       struct model *m)
{
	uint64_t now = now_ns();

	(void)t;
	if (now - lp->last_scan_ns < RESCAN_NS)
		return;
	lp->last_scan_ns = now;
	for (size_t i = 0; i < m->nprocs; i++)
		if (!m->procs[i].exited && m->procs[i].libc_state != LIBC_STATE_ABSENT)
			look_at(lp, &m->procs[i], true);
}

/* A process we never saw mapping a library: decide from its executable. */
static void settle_state(const struct libc_probe *lp, struct proc_model *p)
{
	int dynamic;

	if (p->libc_state == LIBC_STATE_PROBED)
		return;
	dynamic = exe_is_dynamic(p->exe);
	if (dynamic == 0) {
		set_libc(p, LIBC_STATE_ABSENT, NULL);
	} else if (dynamic == 1 && lp->nlibs) {
		/* Loaded by the system's loader: the default library. */
		set_libc(p, LIBC_STATE_PROBED, lp->libs[0].path);
	}
}

void libc_probe_finish(struct libc_probe *lp, struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++)
		settle_state(lp, &m->procs[i]);
	if (lp->tracer)
		callsite_symbolize(lp, m);
	m->libc = lp->run;
}

void libc_probe_close(struct libc_probe *lp)
{
	size_t nfds = 0, k = 0;
	int *fds;
	uint64_t t0 = now_ns();

	for (size_t i = 0; i < lp->nlibs; i++)
		nfds += (lp->libs[i].nprocs + 1) * LIBC_LINK_SLOTS;
	fds = xcalloc(nfds ? nfds : 1, sizeof(*fds));
	/* Every link of every library together: their detach waits overlap. */
	for (size_t i = 0; i < lp->nlibs; i++) {
		struct libc_lib *lib = &lp->libs[i];

		for (int j = 0; j < LIBC_LINK_SLOTS; j++) {
			fds[k++] = lib->link_fds[j];
			lib->link_fds[j] = -1;
		}
		for (size_t j = 0; j < lib->nprocs * LIBC_LINK_SLOTS; j++) {
			fds[k++] = lib->proc_fds[j];
			lib->proc_fds[j] = -1;
		}
	}
	uprobe_multi_close_all(fds, nfds);
	free(fds);
	for (size_t i = 0; i < lp->nlibs; i++)
		libc_lib_detach(&lp->libs[i]);
	if (lp->verbose && lp->nlibs)
		fprintf(stderr, "clocktrace: --libc: %zu librar%s attached in "
			"%.1f ms, detached in %.1f ms (%s)\n", lp->nlibs,
			lp->nlibs == 1 ? "y" : "ies", lp->run.attach_ns / 1e6,
			(now_ns() - t0) / 1e6,
			libc_links_name(lp->run.links));
	free(lp->libs);
	callsite_free(lp);
	memset(lp, 0, sizeof(*lp));
}
