// SPDX-License-Identifier: GPL-2.0
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "bench_table.h"
#include "clocks.h"
#include "util.h"

/* A library row costing this share of the syscall row looks like one. */
#define SYSCALL_LIKE_RATIO	0.7
/* ... and below this share it cannot have made one. */
#define VDSO_LIKE_RATIO		0.3
/* Counted syscalls per call from which we say "entered the kernel". */
#define ENTERED_PER_CALL	0.5

static const char *const tz_funcs[BENCH_TZ_FUNCS] = {
	"localtime", "localtime_r", "mktime", "tzset",
};

struct bench_row *bench_add_row(struct bench_report *b,
				const struct bench_row *r)
{
	b->rows = xrealloc(b->rows, b->n + 1, sizeof(*b->rows));
	b->rows[b->n] = *r;
	return &b->rows[b->n++];
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

double bench_median(const double *v, size_t n)
{
	double s[BENCH_MAX_TRIALS];

	if (!n || n > BENCH_MAX_TRIALS)
		return NAN;
	memcpy(s, v, n * sizeof(*v));
	qsort(s, n, sizeof(*s), cmp_double);
	return n % 2 ? s[n / 2] : (s[n / 2 - 1] + s[n / 2]) / 2;
}

void bench_row_summarize(struct bench_row *r)
{
	r->ns_per_call = bench_median(r->trial_ns, r->trials);
	r->ns_min = r->ns_max = r->trials ? r->trial_ns[0] : NAN;
	for (unsigned int i = 1; i < r->trials; i++) {
		r->ns_min = fmin(r->ns_min, r->trial_ns[i]);
		r->ns_max = fmax(r->ns_max, r->trial_ns[i]);
	}
}

/* The same call, the same process, the other path. */
static const struct bench_row *twin(const struct bench_report *b,
				    const struct bench_row *r,
				    enum bench_path path)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct bench_row *o = &b->rows[i];

		if (o->path == path && o->clock == r->clock &&
		    o->tz == r->tz && o->process == r->process &&
		    !strcmp(o->name, r->name) && !o->err)
			return o;
	}
	return NULL;
}

/*
 * The vDSO rule for a library row: time() is served like a coarse clock
 * (it never falls back), gettimeofday() like CLOCK_REALTIME.
 */
static bool vdso_rule(const struct bench_report *b, const struct bench_row *r)
{
	int32_t clk = r->clock;

	if (!strcmp(r->name, "time"))
		clk = 5;
	else if (!strcmp(r->name, "gettimeofday"))
		clk = 0;
	return clock_vdso_serves(clk, b->clocksource, b->vdso, NULL);
}

static void decide_clock_row(const struct bench_report *b,
			     struct bench_row *r)
{
	const struct bench_row *sys = twin(b, r, BENCH_SYSCALL);
	bool vdso = vdso_rule(b, r);
	double ratio;

	r->entered_kernel = !vdso;
	r->basis = BASIS_VDSO_RULE;
	if (!sys || !(sys->ns_per_call > 0))
		return;
	/* Timing is the check on the rule: if they disagree, say unknown. */
	ratio = r->ns_per_call / sys->ns_per_call;
	if ((vdso && ratio >= SYSCALL_LIKE_RATIO) ||
	    (!vdso && ratio < VDSO_LIKE_RATIO)) {
		r->timing_conflict = true;
		r->entered_kernel = -1;
		r->basis = BASIS_NONE;
	}
}

/*
 * glibc re-checks /etc/localtime (a stat) in localtime(), mktime() and
 * tzset() when TZ is unset; localtime_r() does not, nor anything with TZ
 * set.  Other C libraries: unknown.
 */
static void decide_tz_row(const struct bench_report *b, struct bench_row *r)
{
	if (!b->glibc) {
		r->entered_kernel = -1;
		r->basis = BASIS_NONE;
		return;
	}
	r->entered_kernel = r->tz == BENCH_TZ_UNSET &&
			    strcmp(r->name, "localtime_r") != 0;
	r->basis = BASIS_GLIBC_RULE;
}

void bench_decide_kernel(struct bench_report *b)
{
	for (size_t i = 0; i < b->n; i++) {
		struct bench_row *r = &b->rows[i];

		r->timing_conflict = false;
		if (r->err) {
			r->entered_kernel = -1;
			r->basis = BASIS_NONE;
		} else if (r->path == BENCH_SYSCALL) {
			r->entered_kernel = 1;
			r->basis = BASIS_FORCED;
		} else if (r->syscalls_per_call >= 0) {
			r->entered_kernel =
				r->syscalls_per_call >= ENTERED_PER_CALL;
			r->basis = BASIS_COUNTED;
		} else if (r->tz != BENCH_TZ_NONE) {
			decide_tz_row(b, r);
		} else {
			decide_clock_row(b, r);
		}
	}
}

static int cmp_rows(const void *a, const void *b)
{
	const struct bench_row *x = a, *y = b;

	if (!!x->err != !!y->err)
		return x->err ? 1 : -1;
	if (x->ns_per_call != y->ns_per_call)
		return x->ns_per_call > y->ns_per_call ? -1 : 1;
	/* Ties in a stable, readable order. */
	if (x->process != y->process)
		return x->process < y->process ? -1 : 1;
	return strcmp(x->name, y->name);
}

void bench_sort(struct bench_row *rows, size_t n)
{
	qsort(rows, n, sizeof(*rows), cmp_rows);
}

static const struct bench_row *find(const struct bench_report *b,
				    const char *name, int32_t clk,
				    enum bench_path path, enum bench_tz tz,
				    enum bench_proc proc)
{
	for (size_t i = 0; i < b->n; i++) {
		const struct bench_row *r = &b->rows[i];

		if (!r->err && r->clock == clk && r->path == path &&
		    r->tz == tz && r->process == proc && !strcmp(r->name, name))
			return r;
	}
	return NULL;
}

static double ns_of(const struct bench_row *r)
{
	return r ? r->ns_per_call : NAN;
}

static void verdict_clocks(const struct bench_report *b,
			   struct bench_verdict *v)
{
	for (size_t i = 0; i < b->n && v->nclocks < ARRAY_SIZE(v->clocks);
	     i++) {
		const struct bench_row *r = &b->rows[i], *sys;
		struct bench_clock_verdict *c;

		if (r->path == BENCH_SYSCALL || r->clock == BENCH_NO_CLOCK ||
		    r->process != BENCH_PARENT || r->err)
			continue;
		c = &v->clocks[v->nclocks++];
		c->clock = r->clock;
		c->vdso = r->path == BENCH_VDSO;
		clock_vdso_serves(r->clock, b->clocksource, b->vdso, &c->why);
		sys = find(b, r->name, r->clock, BENCH_SYSCALL, BENCH_TZ_NONE,
			   BENCH_PARENT);
		c->libc_ns = r->ns_per_call;
		c->syscall_ns = ns_of(sys);
		c->conflict = r->timing_conflict;
	}
}

static void verdict_tz(const struct bench_report *b, struct bench_verdict *v)
{
	for (size_t i = 0; i < BENCH_TZ_FUNCS; i++) {
		const char *fn = tz_funcs[i];
		const struct bench_row *unset, *set;

		unset = find(b, fn, BENCH_NO_CLOCK, BENCH_LIBC, BENCH_TZ_UNSET,
			     BENCH_PARENT);
		set = find(b, fn, BENCH_NO_CLOCK, BENCH_LIBC, BENCH_TZ_SET,
			   BENCH_PARENT);
		if (!unset && !set)
			continue;
		v->tz[v->ntz].name = fn;
		v->tz[v->ntz].unset_ns = ns_of(unset);
		v->tz[v->ntz].set_ns = ns_of(set);
		v->ntz++;
	}
}

/* Child over parent for every row measured in both: median and worst. */
static void verdict_child(const struct bench_report *b,
			  struct bench_verdict *v)
{
	double *ratios = xcalloc(b->n ? b->n : 1, sizeof(*ratios));

	v->child_ratio = v->child_max_ratio = NAN;
	for (size_t i = 0; i < b->n; i++) {
		const struct bench_row *c = &b->rows[i], *p;
		double ratio;

		if (c->process != BENCH_CHILD || c->err)
			continue;
		p = find(b, c->name, c->clock, c->path, c->tz, BENCH_PARENT);
		if (!p || !(p->ns_per_call > 0))
			continue;
		ratio = c->ns_per_call / p->ns_per_call;
		ratios[v->child_pairs++] = ratio;
		if (!(ratio <= v->child_max_ratio)) {
			v->child_max_ratio = ratio;
			v->child_max_row = c;
		}
	}
	if (v->child_pairs) {
		qsort(ratios, v->child_pairs, sizeof(*ratios), cmp_double);
		v->child_ratio = v->child_pairs % 2 ?
			ratios[v->child_pairs / 2] :
			(ratios[v->child_pairs / 2 - 1] +
			 ratios[v->child_pairs / 2]) / 2;
	}
	free(ratios);
}

void bench_verdict(const struct bench_report *b, struct bench_verdict *v)
{
	memset(v, 0, sizeof(*v));
	verdict_clocks(b, v);
	verdict_tz(b, v);
	verdict_child(b, v);
}

const char *bench_path_name(enum bench_path p)
{
	return p == BENCH_VDSO ? "vdso" : p == BENCH_SYSCALL ? "syscall" :
	       "libc";
}

const char *bench_tz_name(enum bench_tz tz)
{
	return tz == BENCH_TZ_UNSET ? "unset" :
	       tz == BENCH_TZ_SET ? BENCH_TZ_FILE : NULL;
}

const char *bench_basis_name(enum bench_basis b)
{
	static const char *const names[] = {
		[BASIS_NONE] = NULL,
		[BASIS_COUNTED] = "counted",
		[BASIS_FORCED] = "forced syscall",
		[BASIS_VDSO_RULE] = "vdso rule",
		[BASIS_GLIBC_RULE] = "glibc rule",
	};

	return names[b];
}

const char *bench_row_label(const struct bench_row *r, char *buf,
			    size_t size)
{
	char cbuf[32];

	if (r->clock != BENCH_NO_CLOCK)
		snprintf(buf, size, "%s(%s)", r->name,
			 clock_name(r->clock, cbuf, sizeof(cbuf)));
	else if (r->tz == BENCH_TZ_UNSET)
		snprintf(buf, size, "%s() TZ unset", r->name);
	else if (r->tz == BENCH_TZ_SET)
		snprintf(buf, size, "%s() TZ=%s", r->name, BENCH_TZ_FILE);
	else
		snprintf(buf, size, "%s()", r->name);
	return buf;
}
