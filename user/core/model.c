// SPDX-License-Identifier: GPL-2.0
#include <stdlib.h>
#include <string.h>

#include "hist.h"
#include "model.h"
#include "util.h"

static const char *const kind_names[KIND_MAX] = {
	[KIND_CLOCK_GETTIME] = "clock_gettime",
	[KIND_GETTIMEOFDAY] = "gettimeofday",
	[KIND_TIME] = "time",
	[KIND_CLOCK_GETRES] = "clock_getres",
	[KIND_TZ_OPEN] = "open",
	[KIND_TZ_STAT] = "stat",
	[KIND_TZ_ACCESS] = "access",
	[KIND_TZ_READLINK] = "readlink",
};

static const char *const loss_names[LOSS_MAX] = {
	[LOSS_PROC_MAP_FULL] = "process_map_full",
	[LOSS_STATS_MAP_FULL] = "stats_map_full",
	[LOSS_PATH_MAP_FULL] = "path_map_full",
	[LOSS_CLOCKID_MAP_FULL] = "clockid_map_full",
	[LOSS_RINGBUF_FULL] = "ringbuf_full",
	[LOSS_THREAD_STATE] = "thread_state_unavailable",
	[LOSS_PATH_UNREADABLE] = "path_unreadable",
	[LOSS_LIBC_MAP_FULL] = "libc_map_full",
	[LOSS_LIBC_NESTING] = "libc_nesting_too_deep",
	[LOSS_PID_REUSED] = "pid_reused",
	[LOSS_TZ_PATH_UNWATCHED] = "tz_paths_unwatched",
	[LOSS_LANG_DEEP] = "lang_stack_too_deep",
	[LOSS_LANG_MAP_FULL] = "lang_map_full",
	[LOSS_TZ_PATH_CHANGED] = "tz_path_changed",
	[LOSS_LANG_PY_FRAME] = "lang_python_frame_unreadable",
	[LOSS_LANG_RB_FRAME] = "lang_ruby_frame_unreadable",
	[LOSS_READER_STALLED] = "reader_stalled",
	[LOSS_READER_TIMEOUT] = "reader_timeout",
	[LOSS_READER_CRASHED] = "reader_crashed",
	[LOSS_READER_SKIPPED] = "reader_skipped",
	[LOSS_VDSO_MAP_FULL] = "vdso_map_full",
	[LOSS_STACK_RINGBUF_FULL] = "stack_ringbuf_full",
	[LOSS_STACK_UNREADABLE] = "stack_unreadable",
	[LOSS_STACK_BUDGET_FULL] = "stack_budget_map_full",
	[LOSS_STACK_UNWOUND] = "stack_not_unwound",
	[LOSS_LANG_CHAIN] = "lang_stack_not_stored",
	[LOSS_STACK_LANG] = "stack_script_frames_lost",
};

static const char *const libc_names[LIBC_FN_MAX] = {
	[LIBC_NONE] = "none",
	[LIBC_TZSET] = "tzset",
	[LIBC_LOCALTIME] = "localtime",
	[LIBC_LOCALTIME_R] = "localtime_r",
	[LIBC_GMTIME] = "gmtime",
	[LIBC_GMTIME_R] = "gmtime_r",
	[LIBC_MKTIME] = "mktime",
	[LIBC_TIMELOCAL] = "timelocal",
	[LIBC_TIMEGM] = "timegm",
	[LIBC_STRFTIME] = "strftime",
	[LIBC_CTIME] = "ctime",
	[LIBC_CTIME_R] = "ctime_r",
	[LIBC_CLOCK_GETTIME] = "clock_gettime",
	[LIBC_GETTIMEOFDAY] = "gettimeofday",
	[LIBC_TIME] = "time",
};

const char *kind_name(uint32_t kind)
{
	return kind < KIND_MAX ? kind_names[kind] : "?";
}

bool kind_is_tz(uint32_t kind)
{
	return kind >= KIND_FIRST_TZ && kind < KIND_MAX;
}

const char *loss_name(uint32_t loss)
{
	return loss < LOSS_MAX ? loss_names[loss] : "?";
}

const char *libc_fn_name(uint32_t fn)
{
	return fn < LIBC_FN_MAX ? libc_names[fn] : "?";
}

const char *libc_links_name(uint8_t links)
{
	switch (links) {
	case LIBC_LINKS_SESSION:
		return "a uprobe session link";
	case LIBC_LINKS_MULTI:
		return "uprobe-multi links";
	default:
		return "classic uprobes";
	}
}

const char *libc_unobservable_reason(uint8_t probe)
{
	if (probe & LIBC_PROBE_IFUNC)
		return "the C library binds this symbol to the vDSO through an "
		       "IFUNC: calls never pass the library symbol, so a uprobe "
		       "cannot count them";
	if (probe & LIBC_PROBE_MISSING)
		return "the C library has no such function";
	return NULL;
}

bool libc_fn_timed(uint32_t fn)
{
	return fn != LIBC_NONE && fn < LIBC_CLOCK_GETTIME;
}

static size_t lower_bound(const struct model *m, pid_t pid)
{
	size_t lo = 0, hi = m->nprocs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (m->procs[mid].pid < pid)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

struct proc_model *model_find(const struct model *m, pid_t pid)
{
	size_t i = lower_bound(m, pid);

	return i < m->nprocs && m->procs[i].pid == pid ? &m->procs[i] : NULL;
}

struct proc_model *model_proc(struct model *m, pid_t pid)
{
	size_t i = lower_bound(m, pid);
	struct proc_model *p;

	if (i < m->nprocs && m->procs[i].pid == pid)
		return &m->procs[i];
	m->procs = xrealloc(m->procs, m->nprocs + 1, sizeof(*m->procs));
	memmove(&m->procs[i + 1], &m->procs[i],
		(m->nprocs - i) * sizeof(*m->procs));
	m->nprocs++;
	p = &m->procs[i];
	memset(p, 0, sizeof(*p));
	p->pid = pid;
	for (int k = 0; k < KIND_MAX; k++)
		p->kinds[k].min_ns = UINT64_MAX;
	return p;
}

const struct libc_stats *proc_libc(const struct proc_model *p, uint32_t fn)
{
	static const struct libc_stats none = { .lat.min_ns = UINT64_MAX };

	return p->libc && fn < LIBC_FN_MAX ? &p->libc[fn] : &none;
}

struct libc_stats *proc_libc_mut(struct proc_model *p, uint32_t fn)
{
	if (!p->libc) {
		p->libc = xcalloc(LIBC_FN_MAX, sizeof(*p->libc));
		for (int f = 0; f < LIBC_FN_MAX; f++)
			p->libc[f].lat.min_ns = UINT64_MAX;
	}
	return &p->libc[fn < LIBC_FN_MAX ? fn : LIBC_NONE];
}

void model_add_path(struct proc_model *p, const char *path, uint32_t kind,
		    uint64_t count, uint64_t errors)
{
	struct tz_path_stat *s;

	for (size_t i = 0; i < p->npaths; i++) {
		s = &p->paths[i];
		if (s->kind == kind && !strcmp(s->path, path)) {
			s->count += count;
			s->errors += errors;
			return;
		}
	}
	p->paths = xrealloc(p->paths, p->npaths + 1, sizeof(*p->paths));
	s = &p->paths[p->npaths++];
	memset(s, 0, sizeof(*s));
	strncpy(s->path, path, TZ_PATH_LEN);
	s->kind = kind;
	s->count = count;
	s->errors = errors;
}

void model_add_clockid(struct proc_model *p, int32_t clk, uint64_t count)
{
	for (size_t i = 0; i < p->nclockids; i++) {
		if (p->clockids[i].clockid == clk) {
			p->clockids[i].count += count;
			return;
		}
	}
	p->clockids = xrealloc(p->clockids, p->nclockids + 1,
			       sizeof(*p->clockids));
	p->clockids[p->nclockids].clockid = clk;
	p->clockids[p->nclockids++].count = count;
}

void model_add_caller(struct proc_model *p, uint32_t fn, uint64_t addr,
		      uint64_t count)
{
	struct caller_stat *c;

	p->callers = xrealloc(p->callers, p->ncallers + 1, sizeof(*p->callers));
	c = &p->callers[p->ncallers++];
	memset(c, 0, sizeof(*c));
	c->fn = fn;
	c->addr = addr;
	c->count = count;
}

void caller_free_names(struct caller_stat *c)
{
	free(c->symbol);
	free(c->module);
	free(c->build_id);
	free(c->source);
	c->symbol = c->module = c->build_id = c->source = NULL;
}

static bool same_str(const char *a, const char *b)
{
	return a && b && !strcmp(a, b);
}

bool caller_same_site(const struct caller_stat *a, const struct caller_stat *b)
{
	if (a->fn != b->fn)
		return false;
	if (a->has_offset && b->has_offset && a->offset == b->offset &&
	    (same_str(a->build_id, b->build_id) ||
	     (!a->build_id && !b->build_id && same_str(a->module, b->module))))
		return true;
	/* Unnamed sites are only the same within one address space. */
	return !a->has_offset && !b->has_offset && a->addr == b->addr &&
	       same_str(a->module, b->module) && same_str(a->symbol, b->symbol);
}

void lang_site_copy(struct lang_site_stat *n, const struct lang_site_stat *s)
{
	*n = *s;
	n->file = xstrdup(s->file);
	n->func = xstrdup(s->func);
	n->cls = s->cls ? xstrdup(s->cls) : NULL;
	n->outer = s->nouter ? xcalloc(s->nouter, sizeof(*n->outer)) : NULL;
	for (uint32_t i = 0; i < s->nouter; i++)
		lang_site_copy(&n->outer[i], &s->outer[i]);
}

void model_add_lang_site(struct proc_model *p, const struct lang_site_stat *s)
{
	struct lang_site_stat *n;

	p->lang_sites = xrealloc(p->lang_sites, p->nlang_sites + 1,
				 sizeof(*p->lang_sites));
	n = &p->lang_sites[p->nlang_sites++];
	lang_site_copy(n, s);
}

/* How Python frames were followed: "frame", "usdt", both, or "none". */
const char *lang_python_mechanism(const struct lang_run *r)
{
	if (r->py_frame_files && r->py_usdt_files)
		return "frame+usdt";
	if (r->py_frame_files)
		return "frame";
	return r->py_usdt_files ? "usdt" : "none";
}

/* The same for Ruby. */
const char *lang_ruby_mechanism(const struct lang_run *r)
{
	if (r->rb_frame_files && r->rb_usdt_files)
		return "frame+usdt";
	if (r->rb_frame_files)
		return "frame";
	return r->rb_usdt_files ? "usdt" : "none";
}

const char *lang_unattributed_name(enum lang_unattributed why)
{
	static const char *const names[LANG_UN_MAX] = {
		[LANG_UN_NO_THREAD] = "no_thread_state",
		[LANG_UN_THREADS_PAST] = "threads_past_limit",
		[LANG_UN_NO_FRAME] = "no_frame",
		[LANG_UN_NOT_YET_READ] = "not_yet_read",
		[LANG_UN_NOT_GVL_HOLDER] = "not_gvl_holder",
		[LANG_UN_FRAMES_PAST] = "frames_past_limit",
	};

	return why < LANG_UN_MAX ? names[why] : "?";
}

uint64_t lang_unattributed_total(const struct lang_run *r)
{
	uint64_t n = 0;

	for (int i = 0; i < LANG_UN_MAX; i++)
		n += r->unattributed[i];
	return n;
}

void lang_site_free(struct lang_site_stat *s)
{
	for (uint32_t i = 0; i < s->nouter; i++)
		lang_site_free(&s->outer[i]);
	free(s->outer);
	free(s->file);
	free(s->func);
	free(s->cls);
	s->outer = NULL;
	s->nouter = 0;
}

void lang_sites_clear(struct proc_model *p)
{
	for (size_t i = 0; i < p->nlang_sites; i++)
		lang_site_free(&p->lang_sites[i]);
	free(p->lang_sites);
	p->lang_sites = NULL;
	p->nlang_sites = 0;
}

static bool same_or_null(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

bool lang_same_site(const struct lang_site_stat *a,
		    const struct lang_site_stat *b)
{
	return a->lang == b->lang && a->line == b->line &&
	       a->libc_fn == b->libc_fn && same_or_null(a->file, b->file) &&
	       same_or_null(a->func, b->func) && same_or_null(a->cls, b->cls);
}

bool lang_same_stack(const struct lang_site_stat *a,
		     const struct lang_site_stat *b)
{
	if (!lang_same_site(a, b) || a->nouter != b->nouter ||
	    a->stack_cut != b->stack_cut)
		return false;
	for (uint32_t i = 0; i < a->nouter; i++)
		if (!lang_same_site(&a->outer[i], &b->outer[i]))
			return false;
	return true;
}

void site_sum_add(struct site_sum **v, size_t *n, const struct caller_stat *c)
{
	for (size_t k = 0; k < *n; k++) {
		if (caller_same_site((*v)[k].c, c)) {
			(*v)[k].calls += c->count;
			(*v)[k].procs++;
			return;
		}
	}
	*v = xrealloc(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct site_sum){ c, c->count, 1 };
}

static int by_calls(const void *a, const void *b)
{
	const struct site_sum *x = a, *y = b;

	return (x->calls < y->calls) - (x->calls > y->calls);
}

void site_sums_sort(struct site_sum *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), by_calls);
}

char *caller_site_words(const struct caller_stat *c)
{
	const char *mod = c->module ? c->module : "unknown";
	char *where, *out;

	if (c->symbol)
		where = xasprintf("%s (%s)", c->symbol, mod);
	else if (c->has_offset)
		where = xasprintf("%s+0x%llx", mod,
				  (unsigned long long)c->offset);
	else
		where = xasprintf("0x%llx (%s)", (unsigned long long)c->addr, mod);
	if (!c->source)
		return where;
	out = xasprintf("%s at %s", where, c->source);
	free(where);
	return out;
}

static void sum_add(struct line_sum **v, size_t *n,
		    const struct lang_site_stat *l,
		    bool (*same)(const struct lang_site_stat *,
				 const struct lang_site_stat *))
{
	for (size_t k = 0; k < *n; k++) {
		if (same((*v)[k].l, l)) {
			(*v)[k].tz += l->tz_accesses;
			(*v)[k].clock += l->clock_syscalls;
			(*v)[k].procs++;
			return;
		}
	}
	*v = xrealloc(*v, *n + 1, sizeof(**v));
	(*v)[(*n)++] = (struct line_sum){ l, l->tz_accesses,
					  l->clock_syscalls, 1 };
}

void line_sum_add(struct line_sum **v, size_t *n,
		  const struct lang_site_stat *l)
{
	sum_add(v, n, l, lang_same_site);
}

void stack_sum_add(struct line_sum **v, size_t *n,
		   const struct lang_site_stat *l)
{
	sum_add(v, n, l, lang_same_stack);
}

static int by_events(const void *a, const void *b)
{
	const struct line_sum *x = a, *y = b;
	uint64_t nx = x->tz + x->clock, ny = y->tz + y->clock;

	return (nx < ny) - (nx > ny);
}

void line_sums_sort(struct line_sum *v, size_t n)
{
	if (n)
		qsort(v, n, sizeof(*v), by_events);
}

const char *lang_name(uint32_t lang)
{
	static const char *const names[LANG_MAX] = {
		[LANG_NONE] = "none", [LANG_RUBY] = "ruby",
		[LANG_PYTHON] = "python",
	};

	return lang < LANG_MAX ? names[lang] : "?";
}

static void proc_free(struct proc_model *p)
{
	free(p->exe);
	free(p->cgroup);
	free(p->clockids);
	free(p->paths);
	free(p->tz);
	free(p->tzdir);
	free(p->libc_path);
	free(p->libc);
	for (size_t i = 0; i < p->ncallers; i++)
		caller_free_names(&p->callers[i]);
	free(p->callers);
	lang_sites_clear(p);
}

static void folded_free(struct model *m)
{
	for (size_t i = 0; i < m->nfolded; i++)
		proc_free(&m->folded[i]);
	free(m->folded);
	m->folded = NULL;
	m->nfolded = 0;
}

void model_free(struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++)
		proc_free(&m->procs[i]);
	free(m->procs);
	m->procs = NULL;
	m->nprocs = 0;
	folded_free(m);
}

void model_remove(struct model *m, pid_t pid)
{
	struct proc_model *p = model_find(m, pid);
	size_t i;

	if (!p)
		return;
	i = p - m->procs;
	proc_free(p);
	memmove(p, p + 1, (m->nprocs - i - 1) * sizeof(*p));
	m->nprocs--;
}

/* A comm may be anything a program chose: the groups are bounded. */
static struct proc_model *fold_group(struct model *m, const char *comm)
{
	struct proc_model *g;

	if (m->nfolded >= MODEL_FOLD_GROUPS)
		comm = "(other)";
	for (size_t i = 0; i < m->nfolded; i++)
		if (!strcmp(m->folded[i].comm, comm))
			return &m->folded[i];
	m->folded = xrealloc(m->folded, m->nfolded + 1, sizeof(*m->folded));
	g = &m->folded[m->nfolded];
	memset(g, 0, sizeof(*g));
	g->pid = ++m->nfolded;
	g->exited = true;
	snprintf(g->comm, sizeof(g->comm), "%s", comm);
	for (int k = 0; k < KIND_MAX; k++)
		g->kinds[k].min_ns = UINT64_MAX;
	return g;
}

void model_fold(struct model *m, pid_t pid)
{
	struct proc_model *p = model_find(m, pid), *g;

	if (!p)
		return;
	g = fold_group(m, p->comm);
	for (int k = 0; k < KIND_MAX; k++)
		latency_add(&g->kinds[k], &p->kinds[k]);
	for (size_t i = 0; i < p->npaths; i++)
		model_add_path(g, p->paths[i].path, p->paths[i].kind,
			       p->paths[i].count, p->paths[i].errors);
	for (size_t i = 0; i < p->nclockids; i++)
		model_add_clockid(g, p->clockids[i].clockid,
				  p->clockids[i].count);
	g->folded++;
	m->evicted++;
	model_remove(m, pid);
}

uint64_t model_duration_ns(const struct model *m)
{
	return m->end_ns > m->start_ns ? m->end_ns - m->start_ns : 0;
}

bool model_any_loss(const struct model *m)
{
	for (int i = 0; i < LOSS_MAX; i++)
		if (m->losses[i])
			return true;
	return false;
}

/* Events only: the file reader's losses cost names, never counts. */
uint64_t model_lost(const struct model *m)
{
	uint64_t sum = 0;

	for (int i = 0; i < LOSS_READER_STALLED; i++)
		sum += m->losses[i];
	return sum;
}

uint64_t proc_tz_accesses(const struct proc_model *p)
{
	uint64_t sum = 0;

	for (int k = KIND_FIRST_TZ; k < KIND_MAX; k++)
		sum += p->kinds[k].count;
	return sum;
}

uint64_t proc_tz_errors(const struct proc_model *p)
{
	uint64_t sum = 0;

	for (int k = KIND_FIRST_TZ; k < KIND_MAX; k++)
		sum += p->kinds[k].errors;
	return sum;
}

uint64_t proc_clock_syscalls(const struct proc_model *p)
{
	uint64_t sum = 0;

	for (int k = 0; k < KIND_FIRST_TZ; k++)
		sum += p->kinds[k].count;
	return sum;
}

uint64_t proc_tz_max_path(const struct proc_model *p, const char **path)
{
	uint64_t best = 0;
	size_t i, j;

	if (path)
		*path = NULL;
	/* The same file under several operations is one file. */
	for (i = 0; i < p->npaths; i++) {
		uint64_t sum = 0;

		for (j = 0; j < p->npaths; j++)
			if (!strcmp(p->paths[i].path, p->paths[j].path))
				sum += p->paths[j].count;
		if (sum > best) {
			best = sum;
			if (path)
				*path = p->paths[i].path;
		}
	}
	return best;
}

double proc_seconds(const struct model *m, const struct proc_model *p)
{
	uint64_t start = p->start_ns > m->start_ns ? p->start_ns : m->start_ns;
	uint64_t end = p->exited && p->exit_ns ? p->exit_ns : m->end_ns;
	double s = end > start ? (end - start) / 1e9 : 0;

	return s < 1e-6 ? 1e-6 : s;
}

static uint64_t activity(const struct proc_model *p)
{
	return proc_tz_accesses(p) + proc_clock_syscalls(p);
}

static int by_activity(const void *a, const void *b)
{
	const struct proc_model *x = *(const struct proc_model **)a;
	const struct proc_model *y = *(const struct proc_model **)b;
	uint64_t ax = activity(x), ay = activity(y);

	if (ax != ay)
		return ax > ay ? -1 : 1;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

struct proc_model **model_by_activity(const struct model *m)
{
	struct proc_model **v = xcalloc(m->nprocs, sizeof(*v));

	for (size_t i = 0; i < m->nprocs; i++)
		v[i] = &m->procs[i];
	qsort(v, m->nprocs, sizeof(*v), by_activity);
	return v;
}

static void *dup_array(const void *src, size_t n, size_t size)
{
	void *dst;

	if (!n)
		return NULL;
	dst = xcalloc(n, size);
	memcpy(dst, src, n * size);
	return dst;
}

static char *dup_str(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void proc_copy(struct proc_model *dst, const struct proc_model *src)
{
	*dst = *src;
	dst->exe = dup_str(src->exe);
	dst->cgroup = dup_str(src->cgroup);
	dst->tz = dup_str(src->tz);
	dst->tzdir = dup_str(src->tzdir);
	dst->libc_path = dup_str(src->libc_path);
	dst->clockids = dup_array(src->clockids, src->nclockids,
				  sizeof(*src->clockids));
	dst->paths = dup_array(src->paths, src->npaths, sizeof(*src->paths));
	dst->libc = src->libc ? dup_array(src->libc, LIBC_FN_MAX,
					  sizeof(*src->libc)) : NULL;
	dst->callers = dup_array(src->callers, src->ncallers,
				 sizeof(*src->callers));
	for (size_t i = 0; i < src->ncallers; i++) {
		dst->callers[i].symbol = dup_str(src->callers[i].symbol);
		dst->callers[i].module = dup_str(src->callers[i].module);
		dst->callers[i].build_id = dup_str(src->callers[i].build_id);
		dst->callers[i].source = dup_str(src->callers[i].source);
	}
	dst->lang_sites = NULL;
	dst->nlang_sites = 0;
	for (size_t i = 0; i < src->nlang_sites; i++)
		model_add_lang_site(dst, &src->lang_sites[i]);
}

void model_copy(struct model *dst, const struct model *src)
{
	model_free(dst);
	*dst = *src;
	dst->procs = dup_array(src->procs, src->nprocs, sizeof(*src->procs));
	for (size_t i = 0; i < src->nprocs; i++)
		proc_copy(&dst->procs[i], &src->procs[i]);
	dst->folded = dup_array(src->folded, src->nfolded, sizeof(*src->folded));
	for (size_t i = 0; i < src->nfolded; i++)
		proc_copy(&dst->folded[i], &src->folded[i]);
}

static void latency_sub(struct latency *l, const struct latency *prev)
{
	/* min and max cannot be taken apart: they stay run-wide. */
	l->count -= prev->count;
	l->errors -= prev->errors;
	l->total_ns -= prev->total_ns;
	for (int i = 0; i < HIST_SLOTS; i++)
		l->hist[i] -= prev->hist[i];
}

static void proc_sub(struct proc_model *p, const struct proc_model *prev)
{
	for (int k = 0; k < KIND_MAX; k++)
		latency_sub(&p->kinds[k], &prev->kinds[k]);
	for (size_t i = 0; i < p->nclockids; i++)
		for (size_t j = 0; j < prev->nclockids; j++)
			if (p->clockids[i].clockid == prev->clockids[j].clockid)
				p->clockids[i].count -= prev->clockids[j].count;
	for (size_t i = 0; i < p->npaths; i++)
		for (size_t j = 0; j < prev->npaths; j++)
			if (p->paths[i].kind == prev->paths[j].kind &&
			    !strcmp(p->paths[i].path, prev->paths[j].path)) {
				p->paths[i].count -= prev->paths[j].count;
				p->paths[i].errors -= prev->paths[j].errors;
			}
	p->tz_changed -= prev->tz_changed;
	for (int f = 0; f < LIBC_FN_MAX && p->libc; f++) {
		const struct libc_stats *old = proc_libc(prev, f);

		latency_sub(&p->libc[f].lat, &old->lat);
		p->libc[f].calls -= old->calls;
		p->libc[f].tz_accesses -= old->tz_accesses;
		p->libc[f].clock_syscalls -= old->clock_syscalls;
		p->libc[f].kernel_ns -= old->kernel_ns;
	}
}

void model_delta(const struct model *prev, const struct model *cur,
		 struct model *out)
{
	model_copy(out, cur);
	/* Folded processes were evicted after their last interval was shown. */
	folded_free(out);
	out->evicted = 0;
	out->start_ns = prev->end_ns ? prev->end_ns : prev->start_ns;
	for (int i = 0; i < LOSS_MAX; i++)
		out->losses[i] -= prev->losses[i];
	for (size_t i = 0; i < out->nprocs; i++) {
		const struct proc_model *old = model_find(prev, out->procs[i].pid);

		if (old)
			proc_sub(&out->procs[i], old);
	}
}
