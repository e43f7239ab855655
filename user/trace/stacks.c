// SPDX-License-Identifier: GPL-2.0
/* --stacks, the tracer's side: see stacks.h. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sysmacros.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clocktrace.skel.h"
#include "lang_probe.h"
#include "model.h"
#include "procfs.h"
#include "reader.h"
#include "runtime.h"
#include "stacks.h"
#include "tracer.h"
#include "util.h"

/* /proc/PID/maps read at most, and file mappings kept of it. */
#define MAPS_READ_MAX	(4 << 20)
#define IMAGE_MAPS_MAX	1024

struct image_map {
	uint64_t start, end, pgoff;
	uint32_t file;			/* index into files[] */
};

/* One process image: its file mappings as /proc/PID/maps showed them. */
struct stack_image {
	pid_t pid;
	bool replaced;			/* the process exec'd since */
	uint64_t first_ip;		/* of the copy that read the maps */
	char comm[COMM_LEN + 1];
	struct image_map maps[IMAGE_MAPS_MAX];
	size_t nmaps;
	struct rd_unwind_file files[RD_UNWIND_FILES];
	uint32_t nfiles;
	char paths[RD_UNWIND_PATHS];
	uint32_t paths_len;
};

struct stack_record {
	uint32_t image;
	struct stack_event ev;
};

static uint32_t file_of(struct stack_image *im, const struct maps_entry *e)
{
	struct rd_unwind_file *f;
	size_t len = strlen(e->path) + 1;

	for (uint32_t i = 0; i < im->nfiles; i++) {
		f = &im->files[i];
		if (f->ino == e->ino && f->dev_major == e->dev_major &&
		    f->dev_minor == e->dev_minor) {
			if (e->end > f->end)
				f->end = e->end;
			return i;
		}
	}
	if (im->nfiles == RD_UNWIND_FILES ||
	    im->paths_len + len > RD_UNWIND_PATHS)
		return UINT32_MAX;
	f = &im->files[im->nfiles];
	*f = (struct rd_unwind_file){
		.start = e->start, .end = e->end, .pgoff = e->offset,
		.ino = e->ino, .dev_major = e->dev_major,
		.dev_minor = e->dev_minor, .path_off = im->paths_len,
	};
	memcpy(im->paths + im->paths_len, e->path, len);
	im->paths_len += len;
	return im->nfiles++;
}

/* maps_for_each_file() lists mappings in address order. */
static void take_mapping(const struct maps_entry *e, void *ctx)
{
	struct stack_image *im = ctx;
	uint32_t file;

	if (!e->ino || im->nmaps == IMAGE_MAPS_MAX)
		return;
	file = file_of(im, e);
	if (file == UINT32_MAX)
		return;
	im->maps[im->nmaps++] = (struct image_map){
		.start = e->start, .end = e->end, .pgoff = e->offset,
		.file = file,
	};
}

static int current_image(const struct stacks *st, pid_t pid)
{
	for (size_t i = st->nimages; i-- > 0;)
		if (st->images[i]->pid == pid && !st->images[i]->replaced)
			return (int)i;
	return -1;
}

static struct stack_image *read_image(pid_t pid)
{
	struct stack_image *im = xcalloc(1, sizeof(*im));

	im->pid = pid;
	maps_for_each_file(pid, MAPS_READ_MAX, take_mapping, im);
	proc_comm(pid, im->comm, sizeof(im->comm));
	return im;
}

static int add_image(struct stacks *st, struct stack_image *im)
{
	st->images = xrealloc(st->images, st->nimages + 1, sizeof(*st->images));
	st->images[st->nimages] = im;
	return (int)st->nimages++;
}

/* pid's current image, its maps read now if it has none; NULL: none to read. */
static const struct stack_image *image_now(struct stacks *st, pid_t pid)
{
	int at = current_image(st, pid);
	struct stack_image *im;

	if (at >= 0)
		return st->images[at];
	im = read_image(pid);
	if (!im->nmaps) {
		free(im);
		return NULL;
	}
	add_image(st, im);
	return im;
}

/*
 * A child that has not exec'd maps what its parent mapped at the fork:
 * the parent's image, read now if it made no copy yet (a pre-forking
 * server's parent outlives its workers).
 */
static const struct stack_image *parent_image(struct stacks *st, pid_t pid)
{
	for (size_t i = st->nforks; i-- > 0;) {
		const struct stack_fork *f = &st->forks[i];

		if (f->pid != pid)
			continue;
		return f->execed ? NULL : image_now(st, f->ppid);
	}
	return NULL;
}

static const struct image_map *map_at(const struct stack_image *im,
				      uint64_t pc);

/*
 * A child is unwound by its parent's maps when its own show nothing at
 * the copy's instruction: it is gone already, or going (its mappings
 * half torn down).
 */
static bool adopt_parent_image(struct stacks *st, struct stack_image *im)
{
	const struct stack_image *parent = parent_image(st, im->pid);
	pid_t pid = im->pid;
	uint64_t ip = im->first_ip;

	if (!parent || (im->nmaps && !map_at(parent, ip)))
		return false;
	*im = *parent;
	im->pid = pid;
	im->first_ip = ip;
	return true;
}

/* The image of pid's copies, its maps read at the first one (ev). */
static int image_of(struct stacks *st, const struct stack_event *ev)
{
	struct stack_image *im;
	int i = current_image(st, ev->pid);

	if (i >= 0)
		return i;
	im = read_image(ev->pid);
	im->first_ip = ev->regs[STACK_REG_IP];
	/*
	 * The copies and the fork notices come through two ring buffers,
	 * read in no set order: a child's copy may come first.  Its image,
	 * with nothing at its instruction, is then taken again at the notice
	 * (stacks_note_fork), while the parent it names is there to be read.
	 */
	if (!map_at(im, im->first_ip))
		adopt_parent_image(st, im);
	return add_image(st, im);
}

static int take_copy(void *ctx, void *data, size_t size)
{
	struct stacks *st = ctx;
	const struct stack_event *ev = data;
	struct stack_record *r;

	if (size < sizeof(*ev))
		return 0;
	if (st->nqueue == STACKS_QUEUE_MAX) {
		st->tracer->user_losses[LOSS_STACK_UNWOUND]++;
		return 0;
	}
	r = xcalloc(1, sizeof(*r));
	r->ev = *ev;
	/* The kernel sets only .lang of a copy without a site: shares compare keys. */
	if (r->ev.lang.lang == LANG_NONE)
		memset(&r->ev.lang, 0, sizeof(r->ev.lang));
	r->image = image_of(st, ev);
	st->queue = xrealloc(st->queue, st->nqueue + 1, sizeof(*st->queue));
	st->queue[st->nqueue++] = r;
	return 0;
}

int stacks_init(struct stacks *st, struct tracer *t)
{
	memset(st, 0, sizeof(*st));
	st->tracer = t;
	if (ring_buffer__add(t->rb, bpf_map__fd(t->skel->maps.stack_events),
			     take_copy, st)) {
		ct_warn("cannot read the stack copies: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void stacks_note_fork(struct stacks *st, pid_t pid, pid_t ppid)
{
	st->forks = xrealloc(st->forks, st->nforks + 1, sizeof(*st->forks));
	st->forks[st->nforks++] = (struct stack_fork){ .pid = pid,
						       .ppid = ppid };
	for (size_t i = 0; i < st->nimages; i++) {
		struct stack_image *im = st->images[i];

		if (im->pid == pid && !im->replaced &&
		    !map_at(im, im->first_ip))
			adopt_parent_image(st, im);
	}
}

void stacks_note_exec(struct stacks *st, pid_t pid)
{
	for (size_t i = st->nforks; i-- > 0;)
		if (st->forks[i].pid == pid) {
			st->forks[i].execed = true;
			break;
		}
	for (size_t i = 0; i < st->nimages; i++)
		if (st->images[i]->pid == pid)
			st->images[i]->replaced = true;
}

static const struct image_map *map_at(const struct stack_image *im,
				      uint64_t pc)
{
	for (size_t i = 0; i < im->nmaps; i++)
		if (pc >= im->maps[i].start && pc < im->maps[i].end)
			return &im->maps[i];
	return NULL;
}

/* "kind|file:offset|..." of the frames: equal in every process. */
static char *row_key(const struct stack_image *im, uint32_t kind,
		     const uint64_t *pcs, uint32_t n)
{
	size_t cap = 32 + n * 48, at;
	char *key = xcalloc(1, cap);

	at = snprintf(key, cap, "%u", kind);
	for (uint32_t i = 0; i < n; i++) {
		const struct image_map *m = map_at(im, pcs[i]);
		const struct rd_unwind_file *f = m ? &im->files[m->file] : NULL;

		if (f)
			at += snprintf(key + at, cap - at, "|%x:%x:%llx+%llx",
				       f->dev_major, f->dev_minor,
				       (unsigned long long)f->ino,
				       (unsigned long long)(pcs[i] - m->start +
							    m->pgoff));
		else
			at += snprintf(key + at, cap - at, "|%llx",
				       (unsigned long long)pcs[i]);
	}
	return key;
}

/* A pc's frames: the calls inlined at it first, then its function. */
struct pc_frames {
	struct stack_frame fr[RD_INLINE_MAX];
	uint32_t n;
};

/* "func+0x1c" of the symbol tables names the function the pc is in. */
static char *symbol_function(const char *symbol)
{
	char *name = symbol ? xstrdup(symbol) : NULL;
	char *plus = name ? strchr(name, '+') : NULL;

	if (plus)
		*plus = '\0';
	return name;
}

/* Offset i's names into p, whose first frame has the pc's module. */
static void take_names(struct pc_frames *p, const struct reader_names *n,
		       size_t i)
{
	uint32_t count = n->nframes[i] ? n->nframes[i] : 1;

	for (uint32_t k = 0; k < count; k++) {
		struct stack_frame *f = &p->fr[k];
		const struct reader_frame *rf = &n->frames[i][k];

		if (k) {
			f->module = p->fr[0].module ? xstrdup(p->fr[0].module) :
						      NULL;
			f->offset = p->fr[0].offset;
		}
		if (n->build_id)
			f->build_id = xstrdup(n->build_id);
		f->inlined = k + 1 < count;
		if (!n->nframes[i])
			break;
		f->function = rf->function ? xstrdup(rf->function) : NULL;
		f->file = rf->file ? xstrdup(rf->file) : NULL;
		f->line = rf->file ? rf->line : 0;
	}
	/* The function itself as the symbol tables name every other frame. */
	if (n->symbol[i]) {
		free(p->fr[count - 1].function);
		p->fr[count - 1].function = symbol_function(n->symbol[i]);
	}
	p->n = count;
}

static void name_frames_of(const struct stack_image *im, uint32_t file,
			   struct pc_frames *pf, const uint64_t *offs,
			   const uint32_t *which, size_t n)
{
	const struct rd_unwind_file *uf = &im->files[file];
	struct reader_file rf = { .pid = im->pid };
	struct reader_names *names = xcalloc(1, sizeof(*names));

	reader_file_id(&rf, makedev(uf->dev_major, uf->dev_minor), uf->ino);
	snprintf(rf.path, sizeof(rf.path), "%s", im->paths + uf->path_off);
	if (!reader_symbolize_frames(&rf, offs, n, names))
		for (size_t i = 0; i < n; i++)
			take_names(&pf[which[i]], names, i);
	reader_names_free(names);
	free(names);
}

/* Names of every pc's frames, asked file by file. */
static void name_frames(const struct stack_image *im, struct pc_frames *pf,
			const uint64_t *pcs, uint32_t n)
{
	uint64_t offs[RD_UNWIND_FRAMES];
	uint32_t which[RD_UNWIND_FRAMES], files[RD_UNWIND_FRAMES];

	for (uint32_t i = 0; i < n; i++) {
		const struct image_map *m = map_at(im, pcs[i]);
		struct stack_frame *fr = &pf[i].fr[0];

		pf[i].n = 1;
		files[i] = m ? m->file : UINT32_MAX;
		fr->offset = m ? pcs[i] - m->start + m->pgoff : pcs[i];
		if (m)
			fr->module = xstrdup(path_base_name(
				im->paths + im->files[m->file].path_off));
	}
	for (uint32_t file = 0; file < im->nfiles; file++) {
		size_t k = 0;

		for (uint32_t i = 0; i < n; i++)
			if (files[i] == file) {
				offs[k] = pf[i].fr[0].offset;
				which[k++] = i;
			}
		if (k)
			name_frames_of(im, file, pf, offs, which, k);
	}
}

/* The pcs' frames one after another, innermost first; n returned. */
static size_t flat_frames(const struct stack_image *im, const uint64_t *pcs,
			  uint32_t n, struct stack_frame **out)
{
	struct pc_frames *pf = xcalloc(n + 1, sizeof(*pf));
	size_t total = 0, at = 0;

	name_frames(im, pf, pcs, n);
	for (uint32_t i = 0; i < n; i++)
		total += pf[i].n;
	*out = xcalloc(total + 1, sizeof(**out));
	for (uint32_t i = 0; i < n; i++)
		for (uint32_t k = 0; k < pf[i].n; k++)
			(*out)[at++] = pf[i].fr[k];
	free(pf);
	return total;
}

/* The C run-time's frames outside main are the same in every stack. */
static size_t frames_to_main(const struct stack_frame *fr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (fr[i].function && !strcmp(fr[i].function, "main"))
			return i + 1;
	return n;
}

/* --lang: the script frames of the site the copy's event was counted at. */
static size_t script_frames(struct stacks *st, const struct model *m,
			    const struct stack_event *ev,
			    struct stack_frame **out)
{
	struct lang_site_stat site = {};
	size_t n;

	*out = NULL;
	if (!st->lang || ev->lang.lang == LANG_NONE)
		return 0;
	lang_probe_site(st->lang, m, &ev->lang, &site);
	n = stack_script_frames(&site, out);
	lang_site_free(&site);
	return n;
}

/* The script frames in the key: the same in every process, as frames are. */
static char *script_key(char *key, const struct stack_frame *fr, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char *longer = xasprintf("%s|L%u:%zu:%s:%u:%zu:%s", key,
					 fr[i].lang, strlen(fr[i].file),
					 fr[i].file, fr[i].line,
					 strlen(fr[i].function),
					 fr[i].function);

		free(key);
		key = longer;
	}
	return key;
}

/*
 * The script frames go under the innermost frame of the interpreter's
 * loop, which runs them; above every native frame where the copy did not
 * reach it.
 */
static void insert_script(struct stack_row *r, struct stack_frame *script,
			  size_t n)
{
	size_t at = 0;

	if (!n)
		return;
	while (at < r->nframes &&
	       !runtime_eval_function(script[0].lang, r->frames[at].function))
		at++;
	r->frames = xrealloc(r->frames, r->nframes + n + 1, sizeof(*r->frames));
	memmove(&r->frames[at + n], &r->frames[at],
		(r->nframes - at) * sizeof(*r->frames));
	memcpy(&r->frames[at], script, n * sizeof(*script));
	r->nframes += n;
}

static void free_frames(struct stack_frame *fr, size_t n)
{
	for (size_t i = 0; i < n; i++)
		stack_frame_free(&fr[i]);
	free(fr);
}

static size_t row_of(struct stacks *st, const struct model *m,
		     const struct stack_image *im, const struct stack_event *ev,
		     const uint64_t *pcs, uint32_t n)
{
	struct stack_frame *script;
	size_t nscript = script_frames(st, m, ev, &script);
	char *key = script_key(row_key(im, ev->kind, pcs, n), script, nscript);
	struct stack_row *r;
	size_t i, nframes;

	for (i = 0; i < st->table.nrows; i++)
		if (st->table.rows[i].key &&
		    !strcmp(st->table.rows[i].key, key)) {
			free(key);
			free_frames(script, nscript);
			return i;
		}
	r = stack_table_add(&st->table);
	r->key = key;
	r->kind = ev->kind;
	r->not_unwound = !n;
	snprintf(r->comm, sizeof(r->comm), "%s", im->comm);
	nframes = flat_frames(im, pcs, n, &r->frames);
	r->nframes = frames_to_main(r->frames, nframes);
	/* The C run-time's frames above main are named, then dropped. */
	for (size_t k = r->nframes; k < nframes; k++)
		stack_frame_free(&r->frames[k]);
	insert_script(r, script, nscript);
	free(script);
	return i;
}

/* The share's chain is named at the report (name_chains). */
static void add_share(struct stacks *st, size_t row,
		      const struct stack_event *ev)
{
	for (size_t i = st->nshares; i-- > 0;) {
		struct stack_share *s = &st->shares[i];

		if (s->row == row && s->pid == (pid_t)ev->pid &&
		    s->kind == ev->kind &&
		    !memcmp(&s->lang, &ev->lang, sizeof(s->lang))) {
			s->copies++;
			return;
		}
	}
	if (st->nshares == st->shares_cap) {
		st->shares_cap = st->shares_cap ? st->shares_cap * 2 : 256;
		st->shares = xrealloc(st->shares, st->shares_cap,
				      sizeof(*st->shares));
	}
	st->shares[st->nshares++] = (struct stack_share){
		.row = row, .pid = ev->pid, .kind = ev->kind, .lang = ev->lang,
		.copies = 1,
	};
}

/* Up to RD_UNWIND_BATCH queued copies of one image, from queue[at]. */
static size_t fill_batch(struct stacks *st, size_t at, size_t end,
			 struct reader_unwind_req *u)
{
	const struct stack_image *im = st->images[st->queue[at]->image];
	size_t n = 0;

	memset(&u->req, 0, sizeof(u->req));
	u->pid = im->pid;
	u->image = st->queue[at]->image;
	u->nfiles = im->nfiles;
	memcpy(u->files, im->files, sizeof(u->files));
	memcpy(u->paths, im->paths, sizeof(u->paths));
	u->req.file.pid = im->pid;
	if (im->nfiles) {
		reader_file_id(&u->req.file, makedev(im->files[0].dev_major,
							im->files[0].dev_minor),
			       im->files[0].ino);
		snprintf(u->req.file.path, sizeof(u->req.file.path), "%.*s",
			 (int)sizeof(u->req.file.path) - 1, im->paths);
	}
	while (at + n < end && n < RD_UNWIND_BATCH &&
	       st->queue[at + n]->image == u->image) {
		const struct stack_event *ev = &st->queue[at + n]->ev;
		struct rd_unwind_stack *s = &u->stacks[n++];

		memcpy(s->regs, ev->regs, sizeof(s->regs));
		s->len = ev->stack_len <= STACK_COPY_LEN ? ev->stack_len : 0;
		memcpy(s->stack, ev->stack, s->len);
	}
	u->nstacks = n;
	return n;
}

/*
 * A copy of a process gone before its maps were read (none read) waits
 * for its fork notice to give it its parent's (stacks_note_fork): the
 * notices come through another ring buffer, maybe after a collect.  Not
 * past STACKS_WAIT_NS, nor at a report's collect.  (A copy whose pc is in
 * no file, as the vDSO's fallback syscall, has maps: it does not wait.)
 */
static bool waits(const struct stacks *st, const struct stack_record *r,
		  uint64_t now)
{
	const struct stack_image *im = st->images[r->image];

	return !st->flush && !im->nmaps && now - r->ev.ts_ns < STACKS_WAIT_NS;
}

/* The waiting copies to the end, in order; how many are ready. */
static size_t ready_first(struct stacks *st)
{
	struct stack_record **waiting = xcalloc(st->nqueue + 1,
						sizeof(*waiting));
	uint64_t now = now_ns();
	size_t ready = 0, nwait = 0;

	for (size_t i = 0; i < st->nqueue; i++) {
		if (waits(st, st->queue[i], now))
			waiting[nwait++] = st->queue[i];
		else
			st->queue[ready++] = st->queue[i];
	}
	memcpy(st->queue + ready, waiting, nwait * sizeof(*waiting));
	free(waiting);
	return ready;
}

static void unwind_queue(struct stacks *st, const struct model *m)
{
	static uint64_t pcs[RD_UNWIND_BATCH][RD_UNWIND_FRAMES];
	static uint32_t nframes[RD_UNWIND_BATCH];
	struct reader_unwind_req *u = xcalloc(1, sizeof(*u));
	size_t ready = ready_first(st);

	for (size_t at = 0, n; at < ready; at += n) {
		const struct stack_image *im;

		n = fill_batch(st, at, ready, u);
		im = st->images[u->image];
		if (reader_unwind(u, pcs, nframes))
			memset(nframes, 0, sizeof(nframes));
		for (size_t i = 0; i < n; i++) {
			const struct stack_event *ev = &st->queue[at + i]->ev;
			size_t row;

			if (!nframes[i])
				st->tracer->user_losses[LOSS_STACK_UNWOUND]++;
			row = row_of(st, m, im, ev, pcs[i], nframes[i]);
			add_share(st, row, ev);
		}
	}
	for (size_t i = 0; i < ready; i++)
		free(st->queue[i]);
	memmove(st->queue, st->queue + ready,
		(st->nqueue - ready) * sizeof(*st->queue));
	st->nqueue -= ready;
	free(u);
}

/*
 * Unwinding waits for the file reader (the first copies of a file: its
 * CFI parsed, tens of ms): not at every collect, while the loop should
 * be reading the maps of processes that may soon exit (a perl's forked
 * workers and their parent were all gone once before the loop read one).
 * At a report's collect; else when the queue is half full or old.
 */
static bool unwind_now(const struct stacks *st)
{
	return st->flush || st->nqueue >= STACKS_QUEUE_MAX / 2 ||
	       (st->nqueue &&
		now_ns() - st->queue[0]->ev.ts_ns >= STACKS_UNWIND_NS);
}

void stacks_collect(struct stacks *st, struct model *m)
{
	if (unwind_now(st))
		unwind_queue(st, m);
	stack_table_weigh(&st->table, st->shares, st->nshares, m);
	m->stacks = &st->table;
}

/*
 * Each share's site named as the model's sites were just named, not when
 * its copy was unwound: a forked worker's frame that had no name then (its
 * parent not yet known) may have one now, and the chain must be the
 * model's to weigh its count.
 */
static void name_chains(struct stacks *st, const struct model *m)
{
	for (size_t i = 0; i < st->nshares; i++) {
		struct stack_share *s = &st->shares[i];
		struct lang_site_stat site = {};

		if (s->lang.lang == LANG_NONE)
			continue;
		if (i && !memcmp(&s->lang, &st->shares[i - 1].lang,
				 sizeof(s->lang))) {
			s->chain = st->shares[i - 1].chain;
			continue;
		}
		lang_probe_site(st->lang, m, &s->lang, &site);
		s->chain = stack_table_chain(&st->table, &site);
		lang_site_free(&site);
	}
}

void stacks_collect_lang(struct stacks *st, struct model *m)
{
	if (st->lang)
		name_chains(st, m);
	stacks_collect(st, m);
}

void stacks_free(struct stacks *st)
{
	for (size_t i = 0; i < st->nimages; i++)
		free(st->images[i]);
	free(st->images);
	for (size_t i = 0; i < st->nqueue; i++)
		free(st->queue[i]);
	free(st->queue);
	stack_table_free(&st->table);
	free(st->shares);
	free(st->forks);
	memset(st, 0, sizeof(*st));
}
