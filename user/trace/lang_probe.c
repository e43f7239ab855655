// SPDX-License-Identifier: GPL-2.0
/* --lang: see lang_probe.h. */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clocktrace.skel.h"
#include "escape.h"
#include "lang_probe.h"
#include "procfs.h"
#include "pyframe.h"
#include "rbframe.h"
#include "reader.h"
#include "tracer.h"
#include "util.h"

#define MAPS_MAX	(4 << 20)


/* Where Debian and a local build put the interpreters. */
static const char *const system_globs[] = {
	"/usr/lib/*-linux-gnu/libruby*.so*", "/usr/local/lib/libruby*.so*",
	"/usr/bin/python3*", "/usr/local/bin/python3*",
	"/usr/lib/*-linux-gnu/libpython3*.so*", "/usr/local/lib/libpython3*.so*",
};

struct usdt_probe {
	const char *provider;
	const char *name;
	bool entry;		/* else a return */
};

static const struct usdt_probe ruby_probes[] = {
	{ "ruby", "method__entry", true },
	{ "ruby", "cmethod__entry", true },
	{ "ruby", "method__return", false },
	{ "ruby", "cmethod__return", false },
};

static const struct usdt_probe python_probes[] = {
	{ "python", "line", true },
};

#define LINKS_MAX	ARRAY_SIZE(ruby_probes)

struct lang_file {
	dev_t dev;
	ino_t ino;
	enum lang lang;
	bool frame;		/* CPython 3.11-3.13, Ruby 3.1, 3.3: frames read, no USDT */
	struct py_binary py;
	struct rb_binary rb;
	struct bpf_link *links[LINKS_MAX];
	struct bpf_link *starts[INTERP_STARTS];	/* lang_start's uprobes */
};

/* By name: the probes are only looked for in files that may hold them. */
static enum lang lang_of_name(const char *path)
{
	const char *b = path_base_name(path);

	if (!strncmp(b, "libruby", 7))
		return LANG_RUBY;
	if (!strncmp(b, "python3", 7) || !strncmp(b, "libpython3", 10))
		return LANG_PYTHON;
	return LANG_NONE;
}

static struct lang_file *known(struct lang_probe *lp, dev_t dev, ino_t ino)
{
	for (size_t i = 0; i < lp->nfiles; i++)
		if (lp->files[i].dev == dev && lp->files[i].ino == ino)
			return &lp->files[i];
	return NULL;
}

static struct bpf_program *prog_for(struct tracer *t, enum lang lang,
				    bool entry)
{
	if (!entry)
		return t->skel->progs.lang_return;
	return lang == LANG_RUBY ? t->skel->progs.ruby_entry :
				   t->skel->progs.python_line;
}

/*
 * A file without the probe is no error (a Python built without dtrace);
 * one that has them and cannot be probed is: its reason is kept.
 */
static int attach_all(struct lang_probe *lp, struct lang_file *f,
		      const char *path, const char *name)
{
	const struct usdt_probe *v = f->lang == LANG_RUBY ? ruby_probes :
							    python_probes;
	size_t n = f->lang == LANG_RUBY ? ARRAY_SIZE(ruby_probes) :
					  ARRAY_SIZE(python_probes);
	int attached = 0, err = 0;

	for (size_t i = 0; i < n; i++) {
		f->links[i] = bpf_program__attach_usdt(
			prog_for(lp->tracer, f->lang, v[i].entry), -1, path,
			v[i].provider, v[i].name, NULL);
		if (f->links[i])
			attached++;
		else if (errno != ENOENT)
			err = errno;
	}
	if (attached)
		return 1;
	if (err) {
		snprintf(lp->run.error, sizeof(lp->run.error),
			 "%s probes of %s: %s", lang_name(f->lang), name,
			 strerror(err));
		lp->run.failed++;
	}
	return 0;
}

static void say_probed(const struct lang_probe *lp, const struct lang_file *f,
		       const char *path)
{
	char *shown;

	if (!lp->verbose)
		return;
	shown = escape_dup(path, ESCAPE_TEXT);
	if (f->frame && f->lang == LANG_PYTHON)
		ct_warn("--lang: %s: frames read (CPython 3.%u)", shown,
			f->py.version & 0xff);
	else if (f->frame)
		ct_warn("--lang: %s: frames read (Ruby %u.%u)", shown,
			f->rb.version >> 8, f->rb.version & 0xff);
	else
		ct_warn("--lang: %s: %s", shown,
			f->links[0] ? "probed" : "no probes");
	free(shown);
}

/* What a process starting f is told, less its load bias. */
static void start_template(const struct lang_file *f, uint64_t start,
			   struct lang_template *t)
{
	memset(t, 0, sizeof(*t));
	t->proc.lang = f->lang;
	if (f->lang == LANG_PYTHON)
		pyframe_proc_at(&f->py, 0, &t->proc.py);
	else
		rbframe_proc_at(&f->rb, 0, &t->proc.rb);
	t->start = start;
}

/*
 * A uprobe at each start-up function of frame-mode file f (self: its
 * open file), where the BPF side registers a process before its script
 * runs, whenever the loop wakes.  A function at a page offset another
 * file's holds already is left to the loop's look (lang_templates).
 */
static void attach_starts(struct lang_probe *lp, struct lang_file *f,
			  const char *self, const char *path)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_templates);
	const struct interp_start *s = f->lang == LANG_PYTHON ? f->py.starts :
								f->rb.starts;

	for (size_t i = 0; i < INTERP_STARTS; i++) {
		__u32 key = s[i].vaddr & LANG_PAGE_OFFSET;
		struct lang_template t, held;

		if (!s[i].vaddr)
			continue;
		start_template(f, s[i].vaddr, &t);
		if (!bpf_map_lookup_elem(fd, &key, &held) &&
		    memcmp(&held, &t, sizeof(t))) {
			if (lp->verbose)
				ct_warn("--lang: %s: start-up at a page offset "
					"another file's holds: its processes "
					"are looked for by the loop", path);
			continue;
		}
		if (bpf_map_update_elem(fd, &key, &t, BPF_ANY))
			continue;
		f->starts[i] = bpf_program__attach_uprobe(
			lp->tracer->skel->progs.lang_start, false, -1, self,
			s[i].off);
		if (!f->starts[i] && lp->verbose)
			ct_warn("--lang: %s: no probe at its start-up (%s): its "
				"processes are looked for by the loop", path,
				strerror(errno));
	}
}

/*
 * The file reader opens the file (a regular ELF file, the one pid maps
 * when its identity is known) and reads it: whether it is CPython 3.11-3.13
 * or Ruby 3.1 or 3.3, whose frames are read at the kernel events instead
 * (their probes would trap on every line or method call).  libbpf and the
 * kernel are then given the open file, through /proc/self/fd, never the
 * name again, and never a file on FUSE, whose server could stall them in
 * the tracer.
 */
static struct lang_file *probe_file(struct lang_probe *lp, pid_t pid,
				    const char *path, dev_t dev, ino_t ino)
{
	enum lang lang = lang_of_name(path);
	struct reader_file rf = { .pid = pid };
	struct reader_lang_file out;
	struct lang_file *f;
	uint64_t got_ino;
	char self[64];
	int fd;

	if (lang == LANG_NONE)
		return NULL;
	f = ino ? known(lp, dev, ino) : NULL;
	if (f)
		return f;
	reader_file_id(&rf, dev, ino);
	snprintf(rf.path, sizeof(rf.path), "%s", path);
	if (reader_lang_file(&rf, lang | (lp->usdt ? RD_LANG_USDT : 0), &out,
			     &fd, &dev, &got_ino))
		return NULL;
	f = known(lp, dev, got_ino);
	if (f)
		goto out;
	lp->files = xrealloc(lp->files, lp->nfiles + 1, sizeof(*lp->files));
	f = &lp->files[lp->nfiles++];
	memset(f, 0, sizeof(*f));
	f->dev = dev;
	f->ino = got_ino;
	f->lang = lang;
	f->frame = out.frame;
	f->py = out.py;
	f->rb = out.rb;
	snprintf(self, sizeof(self), "/proc/self/fd/%d", fd);
	if (f->frame) {
		lp->run.py_frame_files += lang == LANG_PYTHON;
		lp->run.rb_frame_files += lang == LANG_RUBY;
		/* A uprobe reads the file's page: FUSE's server could stall it. */
		if (!(out.flags & RD_FLAG_FUSE))
			attach_starts(lp, f, self, path);
	} else if (out.flags & RD_FLAG_FUSE) {
		snprintf(lp->run.error, sizeof(lp->run.error),
			 "%s probes of a file on FUSE: not attached (its "
			 "server could stall clocktrace)", lang_name(lang));
		lp->run.failed++;
	} else if (attach_all(lp, f, self, path)) {
		lp->run.files++;
		lp->run.py_usdt_files += lang == LANG_PYTHON;
		lp->run.rb_usdt_files += lang == LANG_RUBY;
	}
	say_probed(lp, f, path);
out:
	close(fd);
	return f;
}

/* Past LANG_KICKS_MAX the image waits for its rescan, as before the kick. */
static int take_kick(void *ctx, void *data, size_t size)
{
	struct lang_probe *lp = ctx;

	if (size >= sizeof(__u32) && lp->nkicked < LANG_KICKS_MAX)
		lp->kicked[lp->nkicked++] = *(const __u32 *)data;
	return 0;
}

void lang_probe_init(struct lang_probe *lp, struct tracer *t, bool verbose,
		     bool usdt)
{
	memset(lp, 0, sizeof(*lp));
	lp->tracer = t;
	lp->verbose = verbose;
	lp->usdt = usdt;
	/*
	 * Tests: no look at new images, so that only the start-up probes
	 * register processes, as when the loop wakes too late to look.
	 */
	lp->no_look = getenv("CLOCKTRACE_LANG_NO_LOOK") != NULL;
	if (ring_buffer__add(t->rb, bpf_map__fd(t->skel->maps.lang_kicks),
			     take_kick, lp))
		ct_warn("--lang: cannot hear of new interpreters at once (%s): "
			"they are looked for now and then", strerror(errno));
	for (size_t i = 0; i < ARRAY_SIZE(system_globs); i++) {
		glob_t g;

		if (glob(system_globs[i], 0, NULL, &g))
			continue;
		for (size_t j = 0; j < g.gl_pathc; j++)
			probe_file(lp, 0, g.gl_pathv[j], 0, 0);
		globfree(&g);
	}
	/* Measured on the reference machine: see README, "--lang". */
	if (lp->run.rb_usdt_files)
		ct_warn("--lang: every Ruby process on this machine traps at each "
			"method call while clocktrace runs (here ~40x slower "
			"Time.now): use it on a reproduction, not in production");
	if (lp->run.py_usdt_files)
		ct_warn("--lang: every Python process that is not CPython "
			"3.11-3.13 on this machine traps at each line while "
			"clocktrace runs (~270x slower lines)");
}

/* The reader finds it in pid's mount namespace, by its identity. */
static struct lang_file *probe_mapped(struct lang_probe *lp, pid_t pid,
				      const struct maps_entry *e)
{
	return probe_file(lp, pid, e->path, makedev(e->dev_major, e->dev_minor),
			  e->ino);
}

/* The process's interpreter, where the BPF side will read its frames. */
static void register_frames(struct lang_probe *lp, const struct lang_file *f,
			    pid_t pid, const struct maps_entry *e)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_procs);
	struct lang_proc v = { .lang = f->lang }, old;
	__u32 key = pid;

	if (!bpf_map_lookup_elem(fd, &key, &old)) {
		/* Read already: a kick and a rescan may both find it. */
		if (old.lang == f->lang)
			return;
		/* What it made before now is counted; the window until the update is not. */
		if (old.lang == LANG_NONE)
			lp->pending += old.pending;
	}
	if (f->lang == LANG_PYTHON)
		pyframe_proc(&f->py, e, &v.py);
	else
		rbframe_proc(&f->rb, e, &v.rb);
	if (bpf_map_update_elem(fd, &key, &v, BPF_ANY))
		return;
	lp->run.py_frame_procs += f->lang == LANG_PYTHON;
	lp->run.rb_frame_procs += f->lang == LANG_RUBY;
}

struct mapped_ctx {
	struct lang_probe *lp;
	pid_t pid;
	bool found;
};

static void probe_exec_mapping(const struct maps_entry *e, void *ctx)
{
	struct mapped_ctx *c = ctx;

	struct lang_file *f;

	if (!e->exec)
		return;
	f = probe_mapped(c->lp, c->pid, e);
	/* A python3.11 that only loads libpython is not the interpreter. */
	if (f && (f->frame || f->links[0]))
		c->found = true;
	if (f && f->frame)
		register_frames(c->lp, f, c->pid, e);
}

bool lang_probe_process(struct lang_probe *lp, pid_t pid)
{
	struct mapped_ctx c = { lp, pid, false };

	maps_for_each_file(pid, MAPS_MAX, probe_exec_mapping, &c);
	return c.found;
}

/* After an exec, ms: soon (the loader), then now and then (dlopen). */
static const unsigned int rescan_ms[] = { 2, 10, 50, 250, 500, 1000, 2000 };

static void schedule(struct proc_model *p, uint64_t since)
{
	unsigned int done = ARRAY_SIZE(rescan_ms) - p->lang_rescans;

	p->lang_next_ns = since + rescan_ms[done] * 1000000ULL;
}

void lang_probe_exec(struct lang_probe *lp, struct proc_model *p)
{
	p->lang_rescans = 0;
	if (lp->no_look || lang_probe_process(lp, p->pid))
		return;
	p->lang_rescans = ARRAY_SIZE(rescan_ms);
	schedule(p, now_ns());
}

/* An image the BPF side asked for: looked at now, its rescans over if found. */
static void take_kicks(struct lang_probe *lp, struct model *m)
{
	for (size_t i = 0; i < lp->nkicked && !lp->no_look; i++) {
		struct proc_model *p = model_find(m, lp->kicked[i]);

		/* Even past its rescans: a kick comes once an image. */
		if (p && p->exited)
			continue;
		if (lang_probe_process(lp, lp->kicked[i]) && p)
			p->lang_rescans = 0;
	}
	lp->nkicked = 0;
}

void lang_probe_rescan(struct lang_probe *lp, struct model *m)
{
	uint64_t now = now_ns();

	take_kicks(lp, m);

	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		if (p->exited || !p->lang_rescans || now < p->lang_next_ns)
			continue;
		if (lang_probe_process(lp, p->pid) || !--p->lang_rescans)
			p->lang_rescans = 0;
		else
			schedule(p, p->lang_next_ns - rescan_ms[ARRAY_SIZE(rescan_ms) -
				 p->lang_rescans - 1] * 1000000ULL);
	}
}

int lang_probe_wait_ms(const struct lang_probe *lp, const struct model *m,
		       int idle_ms)
{
	uint64_t now = now_ns(), next = UINT64_MAX;

	(void)lp;
	for (size_t i = 0; i < m->nprocs; i++)
		if (!m->procs[i].exited && m->procs[i].lang_rescans &&
		    m->procs[i].lang_next_ns < next)
			next = m->procs[i].lang_next_ns;
	if (next == UINT64_MAX)
		return idle_ms;
	if (next <= now)
		return 0;
	return (next - now) / 1000000 + 1 < (uint64_t)idle_ms ?
	       (int)((next - now) / 1000000 + 1) : idle_ms;
}

/* A string the BPF side read: bounded, whatever the process wrote. */
static char *name_str(const char *s, size_t size)
{
	return strndup(s, strnlen(s, size)) ?: xstrdup("?");
}

/* Python frame mode keys a site by code object (cls_hash) and instruction. */
static bool is_py_frame(const struct lang_site_key *k)
{
	return k->lang == LANG_PYTHON && k->cls_hash;
}

/* The line of instruction instr; false: not in the table copied. */
static bool py_frame_site(struct lang_site_stat *s, const struct lang_names *n,
			  __u32 instr)
{
	int line = pyframe_line(n->table, n->table_len, n->table_size,
				n->firstlineno, instr);

	free(s->cls);
	s->cls = NULL;
	s->line = line < 0 ? 0 : line;
	return line >= 0;
}

/* Several instructions of one line are one site. */
static bool merge_site(struct proc_model *p, const struct lang_site_stat *s)
{
	for (size_t i = 0; i < p->nlang_sites; i++) {
		struct lang_site_stat *o = &p->lang_sites[i];

		if (lang_same_stack(o, s)) {
			o->tz_accesses += s->tz_accesses;
			o->clock_syscalls += s->clock_syscalls;
			return true;
		}
	}
	return false;
}

#define NAME_ANCESTORS	8

/*
 * The strings of frame f of process tgid, stored when it was new.  A
 * forked worker may not read what its parent left on pages it has not
 * touched since the fork (a string literal of the interpreter's file):
 * the same frame, at the same address, is then named from an ancestor.
 */
static void frame_names_of(struct lang_probe *lp, const struct model *m,
			   __u32 tgid, const struct lang_chain_frame *f,
			   struct lang_names *n)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_frame_names);
	struct lang_frame_key k = { .tgid = tgid, .lang = f->lang, .id = f->id };
	const struct proc_model *p;
	struct lang_names up;

	bpf_map_lookup_elem(fd, &k, n);
	for (int i = 0; i < NAME_ANCESTORS && (!n->file[0] || !n->func[0]); i++) {
		p = model_find(m, k.tgid);
		if (!p || p->ppid <= 0)
			return;
		k.tgid = p->ppid;
		memset(&up, 0, sizeof(up));
		if (!bpf_map_lookup_elem(fd, &k, &up) && up.file[0] && up.func[0])
			*n = up;
	}
}

/* Outer frame f of process tgid. */
static void take_frame(struct lang_probe *lp, const struct model *m,
		       __u32 tgid, const struct lang_chain_frame *f,
		       struct lang_site_stat *o)
{
	struct lang_names n = {};

	frame_names_of(lp, m, tgid, f, &n);
	o->lang = f->lang;
	o->line = f->line;
	o->file = name_str(n.file, sizeof(n.file));
	/* Unread (a page untouched since the fork), not a nameless frame. */
	o->func = n.func[0] ? name_str(n.func, sizeof(n.func)) : xstrdup("?");
	o->cls = n.cls[0] ? name_str(n.cls, sizeof(n.cls)) : NULL;
	/* Python keeps one frame per thread by USDT: any outer one is read. */
	if (f->lang == LANG_PYTHON) {
		int line = pyframe_line(n.table, n.table_len, n.table_size,
					n.firstlineno, f->line);

		o->line = line < 0 ? 0 : line;
	}
}

/* The frames that called the site, from the chain its key names. */
static void take_chain(struct lang_probe *lp, const struct model *m,
		       const struct lang_site_key *k, struct lang_site_stat *s)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_chains);
	struct lang_chain_key ck = { .tgid = k->tgid, .hash = k->chain };
	struct lang_chain c = {};

	if (k->chain == LANG_CHAIN_NONE)
		return;
	if (k->chain == LANG_CHAIN_UNSTORED ||
	    bpf_map_lookup_elem(fd, &ck, &c)) {
		s->stack_cut = true;
		return;
	}
	s->stack_cut = c.cut;
	s->nouter = c.depth < LANG_OUTER_MAX ? c.depth : LANG_OUTER_MAX;
	s->outer = xcalloc(s->nouter ?: 1, sizeof(*s->outer));
	for (uint32_t i = 0; i < s->nouter; i++)
		take_frame(lp, m, k->tgid, &c.f[i], &s->outer[i]);
}

bool lang_probe_site(struct lang_probe *lp, const struct model *m,
		     const struct lang_site_key *k, struct lang_site_stat *s)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_names);
	struct lang_names n = {};
	bool known = true;

	s->lang = k->lang;
	s->libc_fn = k->libc_fn;
	s->line = k->line;
	bpf_map_lookup_elem(fd, k, &n);
	s->file = name_str(n.file, sizeof(n.file));
	s->func = name_str(n.func, sizeof(n.func));
	s->cls = k->cls_hash ? name_str(n.cls, sizeof(n.cls)) : NULL;
	if (is_py_frame(k))
		known = py_frame_site(s, &n, k->line);
	take_chain(lp, m, k, s);
	return known;
}

static void take_site(struct lang_probe *lp, struct model *m,
		      const struct lang_site_key *k, const struct lang_site *v)
{
	struct proc_model *p = model_find(m, k->tgid);
	struct lang_site_stat s = {
		.tz_accesses = v->tz_accesses,
		.clock_syscalls = v->clock_syscalls,
	};

	if (!p)
		return;
	if (!lang_probe_site(lp, m, k, &s))
		lp->run.py_lines_unknown += s.tz_accesses + s.clock_syscalls;
	if (!merge_site(p, &s))
		model_add_lang_site(p, &s);
	lang_site_free(&s);
}

/* The events tied to no line, by reason. */
static void collect_unattributed(struct lang_probe *lp)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_unattributed);

	for (__u32 k = 0; k < LANG_UN_MAX; k++) {
		__u64 n = 0;

		bpf_map_lookup_elem(fd, &k, &n);
		lp->run.unattributed[k] = n;
	}
	lp->run.unattributed[LANG_UN_NOT_YET_READ] += lp->pending;
}

/* Processes the BPF side registered at their start-up (lang_start). */
static uint32_t started(const struct lang_probe *lp, enum lang lang)
{
	__u32 k = lang;
	__u64 n = 0;

	bpf_map_lookup_elem(bpf_map__fd(lp->tracer->skel->maps.lang_starts),
			    &k, &n);
	return (uint32_t)n;
}

void lang_probe_collect(struct lang_probe *lp, struct model *m)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.lang_sites);
	struct lang_site_key key, next;
	struct lang_site val;
	void *prev = NULL;

	for (size_t i = 0; i < m->nprocs; i++)
		lang_sites_clear(&m->procs[i]);
	lp->run.py_lines_unknown = 0;
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		key = next;
		prev = &key;
		if (!bpf_map_lookup_elem(fd, &key, &val))
			take_site(lp, m, &key, &val);
	}
	collect_unattributed(lp);
	m->lang_enabled = true;
	m->lang = lp->run;
	m->lang.py_frame_procs += started(lp, LANG_PYTHON);
	m->lang.rb_frame_procs += started(lp, LANG_RUBY);
}

void lang_probe_close(struct lang_probe *lp)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		for (size_t j = 0; j < LINKS_MAX; j++)
			bpf_link__destroy(lp->files[i].links[j]);
		for (size_t j = 0; j < INTERP_STARTS; j++)
			bpf_link__destroy(lp->files[i].starts[j]);
	}
	free(lp->files);
	lp->files = NULL;
	lp->nfiles = 0;
}
