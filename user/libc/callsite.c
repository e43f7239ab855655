// SPDX-License-Identifier: GPL-2.0
/* Naming --libc call sites: see callsite.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "callsite.h"
#include "clocktrace.skel.h"
#include "libc_probe.h"
#include "srcline.h"
#include "symbolize.h"
#include "tracer.h"
#include "util.h"

/* Debian's multiarch directory for this build's architecture. */
#if defined(__x86_64__)
#define MULTIARCH	"x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH	"aarch64-linux-gnu"
#else
#error "clocktrace: name this architecture's multiarch triplet"
#endif

/* Where a library of a process that is gone may still be found by name. */
static const char *const lib_dirs[] = {
	"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64",
	"/usr/lib64", "/lib", "/usr/lib", "/usr/local/lib",
};

struct known_file {
	char *seen_as;		/* the path in the mapping process's view */
	char *path;		/* the same file from our namespace */
	unsigned int major, minor;
	ino_t ino;
	struct elf_syms *syms;	/* loaded on first use */
	bool syms_tried;
	struct srcline *lines;	/* DWARF, loaded on first use */
	bool lines_tried;
};

static bool seen(const struct libc_probe *lp, const char *path)
{
	for (size_t i = 0; i < lp->nfiles; i++)
		if (!strcmp(lp->files[i].seen_as, path))
			return true;
	return false;
}

static void add_file(struct libc_probe *lp, const char *seen_as,
		     const char *path, const struct stat *st)
{
	struct known_file *f;

	lp->files = xrealloc(lp->files, lp->nfiles + 1, sizeof(*lp->files));
	f = &lp->files[lp->nfiles++];
	memset(f, 0, sizeof(*f));
	f->seen_as = xstrdup(seen_as);
	f->path = xstrdup(path);
	f->major = major(st->st_dev);
	f->minor = minor(st->st_dev);
	f->ino = st->st_ino;
}

void callsite_note_file(struct libc_probe *lp, pid_t pid, const char *path)
{
	char root_path[4096];
	struct stat st;

	if (seen(lp, path))
		return;
	/* Our own view first; another mount namespace through its root. */
	if (!stat(path, &st)) {
		add_file(lp, path, path, &st);
		return;
	}
	snprintf(root_path, sizeof(root_path), "/proc/%d/root%s", pid, path);
	if (!stat(root_path, &st))
		add_file(lp, path, root_path, &st);
}

/* The kernel's dev_t is major << 20 | minor. */
static struct known_file *by_identity(struct libc_probe *lp,
				      const struct caller_file *cf)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		struct known_file *f = &lp->files[i];

		if (f->ino == cf->ino && f->major == cf->dev >> 20 &&
		    f->minor == (cf->dev & 0xfffff))
			return f;
	}
	return NULL;
}

/* A short-lived process's library, not seen mapped: look in lib dirs. */
static struct known_file *by_name(struct libc_probe *lp,
				  const struct caller_file *cf)
{
	char name[CALLER_NAME_LEN + 1], path[4096];
	struct stat st;

	memcpy(name, cf->name, CALLER_NAME_LEN);
	name[CALLER_NAME_LEN] = '\0';
	for (size_t i = 0; i < lp->nfiles; i++)
		if (!strcmp(path_base_name(lp->files[i].seen_as), name) &&
		    lp->files[i].ino == cf->ino)
			return &lp->files[i];
	for (size_t i = 0; i < ARRAY_SIZE(lib_dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s", lib_dirs[i], name);
		if (stat(path, &st) || st.st_ino != cf->ino)
			continue;
		add_file(lp, path, path, &st);
		return &lp->files[lp->nfiles - 1];
	}
	return NULL;
}

/*
 * The file may have been replaced since it was mapped (the program can
 * rename its own executable): only the file seen mapped names call sites.
 */
static int open_same_file(const struct known_file *f)
{
	int fd = open_regular(f->path);
	struct stat st;

	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_ino != f->ino ||
	    major(st.st_dev) != f->major || minor(st.st_dev) != f->minor) {
		close(fd);
		return -1;
	}
	return fd;
}

static struct elf_syms *syms_of(struct known_file *f)
{
	if (!f->syms_tried) {
		f->syms_tried = true;
		f->syms = elf_syms_load_fd(open_same_file(f));
	}
	return f->syms;
}

static struct srcline *lines_of(struct known_file *f)
{
	struct elf_syms *syms = syms_of(f);

	if (!f->lines_tried && syms) {
		f->lines_tried = true;
		f->lines = srcline_open(elf_syms_fd(syms), f->path);
	}
	return f->lines;
}

/* What outlives the process: build-id, file offset, source line. */
static void name_durably(struct known_file *f, uint64_t ret_off,
			 struct caller_stat *c)
{
	struct elf_syms *syms = syms_of(f);
	struct srcline *lines;
	uint64_t vaddr;

	if (!syms || !ret_off)
		return;
	c->offset = ret_off - 1;
	c->has_offset = true;
	if (elf_syms_build_id(syms))
		c->build_id = xstrdup(elf_syms_build_id(syms));
	lines = lines_of(f);
	if (lines && !elf_syms_call_vaddr(syms, ret_off, &vaddr))
		c->source = srcline_lookup(lines, vaddr);
}

static void name_caller(struct libc_probe *lp, int map_fd, pid_t pid,
			struct caller_stat *c)
{
	struct caller_key key = { .tgid = pid, .fn = c->fn, .ret_addr = c->addr };
	struct caller_file cf;
	struct known_file *f;
	struct elf_syms *syms;

	if (c->symbol || bpf_map_lookup_elem(map_fd, &key, &cf) || !cf.found)
		return;
	cf.name[CALLER_NAME_LEN - 1] = '\0';
	free(c->module);
	c->module = xstrdup(cf.name);
	f = by_identity(lp, &cf);
	if (!f)
		f = by_name(lp, &cf);
	syms = f ? syms_of(f) : NULL;
	if (!syms)
		return;
	c->symbol = elf_syms_name_ret_addr(syms, cf.file_off);
	name_durably(f, cf.file_off, c);
}

void callsite_symbolize(struct libc_probe *lp, struct model *m)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.caller_files);

	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		/* Gone before its mappings were read: its executable still is. */
		if (p->ncallers && p->exe && p->exe[0] == '/')
			callsite_note_file(lp, p->pid, p->exe);
		for (size_t j = 0; j < p->ncallers; j++)
			name_caller(lp, fd, p->pid, &p->callers[j]);
	}
}

void callsite_free(struct libc_probe *lp)
{
	for (size_t i = 0; i < lp->nfiles; i++) {
		free(lp->files[i].seen_as);
		free(lp->files[i].path);
		elf_syms_free(lp->files[i].syms);
		srcline_close(lp->files[i].lines);
	}
	free(lp->files);
	lp->files = NULL;
	lp->nfiles = 0;
}
