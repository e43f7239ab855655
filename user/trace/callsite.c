// SPDX-License-Identifier: GPL-2.0
/* Naming --libc call sites: see callsite.h. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "callsite.h"
#include "clocktrace.skel.h"
#include "libc_probe.h"
#include "reader.h"
#include "tracer.h"
#include "util.h"

/*
 * A file some traced process mapped, by the identity its mapping showed:
 * no stat of it here.  The reader (reader.h) opens and parses it when a
 * call site is named.
 */
struct known_file {
	char *seen_as;		/* the path in the mapping process's view */
	pid_t pid;		/* that process */
	uint32_t major, minor;
	uint64_t ino;
};

static uint64_t identity_hash(uint32_t major, uint32_t minor, uint64_t ino)
{
	return (ino * 0x9e3779b97f4a7c15ULL) ^ ((uint64_t)major << 20 | minor);
}

/* Open addressing over lp->files; nfiles_cap is a power of two. */
static struct known_file *slot_of(struct known_file *files, size_t cap,
				  uint32_t major, uint32_t minor, uint64_t ino)
{
	size_t i = identity_hash(major, minor, ino) & (cap - 1);

	while (files[i].seen_as && !(files[i].ino == ino &&
	       files[i].major == major && files[i].minor == minor))
		i = (i + 1) & (cap - 1);
	return &files[i];
}

static void grow(struct libc_probe *lp)
{
	size_t cap = lp->files_cap ? lp->files_cap * 2 : 256;
	struct known_file *files = xcalloc(cap, sizeof(*files));

	for (size_t i = 0; i < lp->files_cap; i++) {
		struct known_file *f = &lp->files[i];

		if (f->seen_as)
			*slot_of(files, cap, f->major, f->minor, f->ino) = *f;
	}
	free(lp->files);
	lp->files = files;
	lp->files_cap = cap;
}

static struct known_file *lookup(const struct libc_probe *lp, uint32_t major,
				 uint32_t minor, uint64_t ino)
{
	struct known_file *f;

	if (!lp->files_cap)
		return NULL;
	f = slot_of(lp->files, lp->files_cap, major, minor, ino);
	return f->seen_as ? f : NULL;
}

static void to_reader_file(const struct known_file *k, struct reader_file *f)
{
	memset(f, 0, sizeof(*f));
	f->pid = k->pid;
	f->dev_major = k->major;
	f->dev_minor = k->minor;
	f->ino = k->ino;
	snprintf(f->path, sizeof(f->path), "%s", k->seen_as);
}

void callsite_note_file(struct libc_probe *lp, pid_t pid,
			const struct maps_entry *e, bool foreign)
{
	struct reader_file rf;
	struct known_file *f;

	if (!e->ino || lookup(lp, e->dev_major, e->dev_minor, e->ino))
		return;
	if ((lp->nfiles + 1) * 2 > lp->files_cap)
		grow(lp);
	f = slot_of(lp->files, lp->files_cap, e->dev_major, e->dev_minor,
		    e->ino);
	f->seen_as = xstrdup(e->path);
	f->pid = pid;
	f->major = e->dev_major;
	f->minor = e->dev_minor;
	f->ino = e->ino;
	lp->nfiles++;
	/*
	 * Another mount namespace's file may be gone from every view by the
	 * time its call sites are named: the reader opens it now.
	 */
	if (foreign && e->exec) {
		to_reader_file(f, &rf);
		reader_hold(&rf);
	}
}

/*
 * The file of a call site: as some process mapped it, else the executable
 * of the process (gone before its mappings were read), else by its name
 * in the library directories.  The reader checks the identity each time.
 */
static void file_of(const struct libc_probe *lp, const struct proc_model *p,
		    const struct caller_file *cf, const char *name,
		    struct reader_file *rf)
{
	uint32_t major = cf->dev >> 20, minor = cf->dev & 0xfffff;
	const struct known_file *k = lookup(lp, major, minor, cf->ino);

	if (k) {
		to_reader_file(k, rf);
		return;
	}
	memset(rf, 0, sizeof(*rf));
	rf->pid = p->pid;
	rf->dev_major = major;
	rf->dev_minor = minor;
	rf->ino = cf->ino;
	if (p->exe && p->exe[0] == '/' &&
	    !strcmp(path_base_name(p->exe), name))
		snprintf(rf->path, sizeof(rf->path), "%s", p->exe);
	else
		snprintf(rf->path, sizeof(rf->path), "%s", name);
}

/* What outlives the process: build-id, file offset, source line. */
static void name_caller(struct libc_probe *lp, int map_fd,
			const struct proc_model *p, struct caller_stat *c)
{
	struct caller_key key = { .tgid = p->pid, .fn = c->fn,
				  .ret_addr = c->addr };
	char name[CALLER_NAME_LEN];
	struct reader_names names;
	struct caller_file cf;
	struct reader_file rf;
	uint64_t off;

	if (c->symbol || bpf_map_lookup_elem(map_fd, &key, &cf) || !cf.found)
		return;
	memcpy(name, cf.name, CALLER_NAME_LEN);
	name[CALLER_NAME_LEN - 1] = '\0';
	free(c->module);
	c->module = xstrdup(name);
	file_of(lp, p, &cf, name, &rf);
	off = cf.file_off;
	/* The kernel gave the offset: it stands even if the file cannot be read. */
	if (off) {
		c->offset = off - 1;
		c->has_offset = true;
	}
	if (reader_symbolize(&rf, &off, 1, &names))
		return;
	c->symbol = names.symbol[0];
	names.symbol[0] = NULL;
	if (off) {
		c->build_id = names.build_id;
		names.build_id = NULL;
		c->source = names.source[0];
		names.source[0] = NULL;
	}
	reader_names_free(&names);
}

void callsite_symbolize(struct libc_probe *lp, struct model *m)
{
	int fd = bpf_map__fd(lp->tracer->skel->maps.caller_files);

	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		for (size_t j = 0; j < p->ncallers; j++)
			name_caller(lp, fd, p, &p->callers[j]);
	}
}

void callsite_free(struct libc_probe *lp)
{
	for (size_t i = 0; i < lp->files_cap; i++)
		free(lp->files[i].seen_as);
	free(lp->files);
	lp->files = NULL;
	lp->nfiles = 0;
	lp->files_cap = 0;
}
