// SPDX-License-Identifier: GPL-2.0
/*
 * --libc: which C library a traced process maps, probed once per file.
 * See libc_probe.h for the coverage this gives and its one gap.
 */
#include <fnmatch.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>

#include "callsite.h"
#include "libc_attach.h"
#include "libc_probe.h"
#include "procfs.h"
#include "reader.h"
#include "tracer.h"
#include "uprobe_multi.h"
#include "util.h"

#define MAPS_MAX	(4 << 20)
#define RESCAN_NS	(250 * 1000000ULL)
#define RESCAN_GAP_MAX_MS	2000
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

static struct libc_lib *find_lib(struct libc_probe *lp, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < lp->nlibs; i++)
		if (lp->libs[i].dev == dev && lp->libs[i].ino == ino)
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

/*
 * Probes the library at path (of pid's namespace, with the identity its
 * mapping shows, or 0 and 0 when not known) once; NULL on failure.  The
 * file reader opens and parses it (reader.h): nothing here touches it.
 */
static struct libc_lib *probe_lib(struct libc_probe *lp, pid_t pid,
				  const char *path, dev_t dev, ino_t ino,
				  bool late)
{
	struct libc_lib *lib = ino ? find_lib(lp, dev, ino) : NULL;
	uint64_t t0 = now_ns();

	if (lib)
		return lib;
	lp->libs = xrealloc(lp->libs, lp->nlibs + 1, sizeof(*lp->libs));
	lib = &lp->libs[lp->nlibs];
	memset(lib, 0, sizeof(*lib));
	lib->dev = dev;
	lib->ino = ino;
	lib->pid = pid;
	lib->path = xstrdup(path);
	if (libc_lib_attach(lib, lp->tracer, lp->verbose,
			    !lp->per_process || lp->run.systemwide)) {
		libc_lib_detach(lib);
		return NULL;
	}
	/* Known only now (PROG's loader): the same file probed twice? */
	if (!ino) {
		struct libc_lib *same = find_lib(lp, lib->dev, lib->ino);

		if (same) {
			libc_lib_detach(lib);
			return same;
		}
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
	dev_t dev[LIBS_PER_PROC];	/* and their identities */
	ino_t ino[LIBS_PER_PROC];
	size_t nlibc;
	bool foreign;			/* pid's mount namespace is not ours */
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
	uint64_t hash;		/* of the mappings, in any order */
};

/* FNV-1a of one mapping's file and place. */
static uint64_t mapping_hash(const struct maps_entry *e)
{
	uint64_t h = 0xcbf29ce484222325ULL;
	uint64_t v[] = { e->start, e->ino, e->dev_major, e->dev_minor };

	for (size_t i = 0; i < ARRAY_SIZE(v); i++)
		for (int b = 0; b < 64; b += 8)
			h = (h ^ ((v[i] >> b) & 0xff)) * 0x100000001b3ULL;
	return h;
}

static void scan_file(const struct maps_entry *e, void *ctx)
{
	struct scan_ctx *c = ctx;
	struct maps_scan *ms = c->ms;

	c->hash += mapping_hash(e);
	callsite_note_file(c->lp, c->pid, e, ms->foreign);
	if (is_libc_name(e->path) && ms->nlibc < LIBS_PER_PROC &&
	    !scan_has(ms, e->path)) {
		ms->dev[ms->nlibc] = makedev(e->dev_major, e->dev_minor);
		ms->ino[ms->nlibc] = e->ino;
		ms->libc[ms->nlibc++] = xstrdup(e->path);
	}
}

/* Files of another mount namespace are held open while pid lives. */
static bool same_mount_ns(pid_t pid)
{
	char path[64];
	struct stat self, other;

	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", pid);
	if (stat("/proc/self/ns/mnt", &self) || stat(path, &other))
		return true;
	return self.st_ino == other.st_ino && self.st_dev == other.st_dev;
}

/*
 * Reads pid's mappings: the C library, and every file for call sites.
 * *hash: of what it maps, to tell an unchanged process at the next scan.
 */
static int scan_maps(struct libc_probe *lp, pid_t pid, struct maps_scan *ms,
		     uint64_t *hash)
{
	struct scan_ctx c;
	int err;

	memset(ms, 0, sizeof(*ms));
	ms->foreign = !same_mount_ns(pid);
	c = (struct scan_ctx){ lp, pid, ms, 0 };
	err = maps_for_each_file(pid, MAPS_MAX, scan_file, &c);
	if (hash)
		*hash = c.hash;
	return err;
}

/* The program execvp() would run for name: a path, or NULL. */
static char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	char *dirs, *dir, *save = NULL, *found = NULL;

	/* As the kernel will name it at exec: absolute (no stat here). */
	if (name[0] == '/')
		return xstrdup(name);
	if (strchr(name, '/')) {
		char cwd[PATH_MAX];

		while (name[0] == '.' && name[1] == '/')
			name += 2;
		if (!getcwd(cwd, sizeof(cwd)) ||
		    asprintf(&found, "%s/%s", cwd, name) < 0)
			return xstrdup(name);
		return found;
	}
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

void libc_probe_prog(struct libc_probe *lp, const char *prog)
{
	char *exe = find_in_path(prog);
	struct reader_elf_info info;

	/* musl's loader is its C library: probe it before PROG runs. */
	if (exe && !reader_elf_info(0, exe, &info) && info.dynamic == 1 &&
	    info.interp[0] == '/' && is_libc_name(info.interp))
		probe_lib(lp, getpid(), info.interp, 0, 0, false);
	free(exe);
}

/* PT_INTERP of an executable: dynamic (1), static (0), unknown (-1). */
static int exe_is_dynamic(pid_t pid, const char *exe)
{
	struct reader_elf_info info;

	if (!exe || exe[0] != '/' || reader_elf_info(pid, exe, &info))
		return -1;
	return info.dynamic;
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
 * A process whose mappings did not change since its last scan is scanned
 * half as often, down to every RESCAN_GAP_MAX_MS; any change (dlopen)
 * brings it back to every RESCAN_NS.
 */
static void note_change(struct proc_model *p, uint64_t hash)
{
	uint32_t gap = RESCAN_NS / 1000000;

	if (hash == p->maps_hash && p->maps_gap_ms)
		gap = p->maps_gap_ms * 2 < RESCAN_GAP_MAX_MS ?
		      p->maps_gap_ms * 2 : RESCAN_GAP_MAX_MS;
	p->maps_hash = hash;
	p->maps_gap_ms = gap;
	p->maps_next_ns = now_ns() + gap * 1000000ULL;
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
	uint64_t hash;

	if (scan_maps(lp, p->pid, &ms, &hash))
		return;
	note_change(p, hash);
	for (size_t i = 0; i < ms.nlibc; i++) {
		lib = probe_lib(lp, p->pid, ms.libc[i], ms.dev[i], ms.ino[i],
				late);
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
	if (scan_maps(lp, getpid(), &ms, NULL))
		return;
	if (ms.nlibc)
		probe_lib(lp, getpid(), ms.libc[0], ms.dev[0], ms.ino[0],
			  false);
	scan_free(&ms);
}

void libc_probe_process(struct libc_probe *lp, struct tracer *t,
			struct proc_model *p)
{
	(void)t;	/* the one given at init */
	/* At exec the loader has not mapped the libraries yet: see rescan. */
	look_at(lp, p, true);
	if (exe_is_dynamic(p->pid, p->exe) == 0 && p->libc_state != LIBC_STATE_PROBED)
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
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		if (!p->exited && p->libc_state != LIBC_STATE_ABSENT &&
		    now >= p->maps_next_ns)
			look_at(lp, p, true);
	}
}

/*
 * A process we never saw mapping a library: a forked child that did not
 * exec runs its parent's image (musl's, say); others are decided from
 * their executable.
 */
static void settle_state(const struct libc_probe *lp, const struct model *m,
			 struct proc_model *p)
{
	const struct proc_model *parent;
	int dynamic;

	if (p->libc_state == LIBC_STATE_PROBED)
		return;
	parent = p->execed ? NULL : model_find(m, p->ppid);
	if (parent && parent->libc_state == LIBC_STATE_PROBED &&
	    parent->libc_path) {
		set_libc(p, LIBC_STATE_PROBED, parent->libc_path);
		return;
	}
	dynamic = exe_is_dynamic(p->pid, p->exe);
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
		settle_state(lp, m, &m->procs[i]);
	if (lp->tracer)
		callsite_symbolize(lp, m);
	/* What naming the call sites could not read counts too. */
	reader_losses(m->losses);
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
