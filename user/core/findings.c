// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "findings.h"
#include "fix_place.h"
#include "roles.h"
#include "runtime.h"
#include "util.h"

struct pid_set {
	pid_t *v;
	size_t n;
};

static void pid_set_add(struct pid_set *s, pid_t pid)
{
	s->v = xrealloc(s->v, s->n + 1, sizeof(*s->v));
	s->v[s->n++] = pid;
}

static struct finding *add(struct findings *out, const char *id,
			   const char *severity, struct pid_set *pids,
			   char *message, char *fix)
{
	struct finding *f;

	out->v = xrealloc(out->v, out->n + 1, sizeof(*out->v));
	f = &out->v[out->n++];
	memset(f, 0, sizeof(*f));
	f->id = id;
	f->severity = severity;
	f->pids = pids->v;
	f->npids = pids->n;
	f->message = message;
	f->fix = fix;
	pids->v = NULL;
	pids->n = 0;
	return f;
}

/* What TZ was for the processes that show the problem. */
static const char *tz_env_words(const struct model *m, const struct pid_set *s)
{
	bool unset = false, set = false;

	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		if (p && p->tz_state == ENV_UNSET)
			unset = true;
		else if (p && p->tz_state == ENV_SET)
			set = true;
	}
	if (unset && !set)
		return "TZ was unset";
	if (set && !unset)
		return "TZ was set, to a name that needs the zone file";
	if (set && unset)
		return "TZ was unset in some of them";
	return "TZ could not be read";
}

/* The libc function that caused most tz accesses in these processes. */
static uint32_t tz_culprit(const struct model *m, const struct pid_set *s)
{
	uint64_t by_fn[LIBC_FN_MAX] = {};
	uint32_t best = LIBC_NONE;

	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		for (uint32_t f = 1; p && f < LIBC_FN_MAX; f++)
			by_fn[f] += proc_libc(p, f)->tz_accesses;
	}
	for (uint32_t f = 1; f < LIBC_FN_MAX; f++)
		if (by_fn[f] > by_fn[best])
			best = f;
	return best;
}

#define SITES_NAMED	2
#define SITE_SHARE_MIN	5	/* %: a lesser second site is noise */

/*
 * The sites of fn in these processes, most calls first, into *top (n of
 * them); returns their calls.
 */
static uint64_t fn_sites(const struct model *m, const struct pid_set *s,
			 uint32_t fn, struct site_sum **top, size_t *n)
{
	uint64_t calls = 0;

	*top = NULL;
	*n = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		for (size_t c = 0; p && c < p->ncallers; c++) {
			if (p->callers[c].fn != fn)
				continue;
			calls += p->callers[c].count;
			site_sum_add(top, n, &p->callers[c]);
		}
	}
	site_sums_sort(*top, *n);
	return calls;
}

/*
 * ", mostly from localtime() called at main+0x1c (prog) at prog.c:12
 * (80% of its calls), and at ... (20%)", or "".
 */
static char *culprit_words(const struct model *m, const struct pid_set *s,
			   enum runtime rt)
{
	uint32_t fn = tz_culprit(m, s);
	const char *call = runtime_libc_call(rt, fn);
	struct site_sum *top;
	uint64_t calls;
	size_t n;
	char *out;

	if (fn == LIBC_NONE)
		return xstrdup("");
	calls = fn_sites(m, s, fn, &top, &n);
	if (call)
		out = xasprintf(", mostly from %s() (%s in %s)", libc_fn_name(fn),
				call, runtime_name(rt));
	else
		out = xasprintf(", mostly from %s()", libc_fn_name(fn));
	for (size_t k = 0; k < SITES_NAMED && k < n && calls; k++) {
		char *site, *more;

		if (k && top[k].calls * 100 < calls * SITE_SHARE_MIN)
			break;
		site = caller_site_words(top[k].c);

		more = xasprintf("%s%s %s (%.0f%%%s)", out,
				 k ? ", and at" : " called at", site,
				 100.0 * top[k].calls / calls,
				 k ? "" : " of its calls");
		free(site);
		free(out);
		out = more;
	}
	free(top);
	return out;
}

/* The script line with most tz accesses over these processes (--lang). */
static const struct lang_site_stat *top_script_line(const struct model *m,
						    const struct pid_set *s,
						    uint64_t *tz)
{
	const struct lang_site_stat *best = NULL;
	struct line_sum *v = NULL;
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		for (size_t j = 0; p && j < p->nlang_sites; j++)
			if (p->lang_sites[j].tz_accesses)
				line_sum_add(&v, &n, &p->lang_sites[j]);
	}
	*tz = 0;
	for (size_t k = 0; k < n; k++) {
		if (v[k].tz > *tz) {
			*tz = v[k].tz;
			best = v[k].l;
		}
	}
	free(v);
	return best;
}

/* "; script line w.rb:4 in Time#localtime (100% of them)", or "". */
static char *script_words(const struct model *m, const struct pid_set *s,
			  uint64_t total)
{
	uint64_t tz;
	const struct lang_site_stat *l = top_script_line(m, s, &tz);

	char *name, *out;

	if (!l || !total)
		return xstrdup("");
	name = runtime_site_name(l);
	out = xasprintf("; under the %s line %s:%u in %s (%.0f%% of them)",
			lang_name(l->lang), l->file, l->line, name,
			100.0 * tz / total);
	free(name);
	return out;
}

/*
 * The runtime that made these processes' zone checks: the language of
 * their busiest script line (--lang), else of their executables; C when
 * neither is an interpreter and --libc saw the C library call them.
 */
static enum runtime tz_runtime(const struct model *m, const struct pid_set *s)
{
	unsigned int by[RUNTIME_PYTHON + 1] = {};
	const struct lang_site_stat *l;
	enum runtime best = RUNTIME_UNKNOWN;
	uint64_t tz;

	l = top_script_line(m, s, &tz);
	if (l)
		return runtime_of_lang(l->lang);
	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		if (p)
			by[runtime_of_path(p->exe)]++;
	}
	if (by[RUNTIME_RUBY] || by[RUNTIME_PYTHON])
		best = by[RUNTIME_RUBY] >= by[RUNTIME_PYTHON] ? RUNTIME_RUBY :
							       RUNTIME_PYTHON;
	else if (tz_culprit(m, s) != LIBC_NONE)
		best = RUNTIME_C;
	return best;
}

/* A zone opened by name has its own fix in each runtime (is_named_zone()). */
static void set_runtime(struct finding *f, enum runtime rt, bool named_zone)
{
	f->runtime = runtime_name(rt);
	f->runtime_fix = named_zone ? runtime_named_zone_fix(rt) :
				      runtime_tz_fix(rt);
}

/* Kernel time in the syscalls of kinds [first, last] of these processes. */
static uint64_t kinds_ns(const struct model *m, const struct pid_set *s,
			 int first, int last)
{
	uint64_t ns = 0;

	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		for (int k = first; p && k <= last; k++)
			ns += p->kinds[k].total_ns;
	}
	return ns;
}

static void set_cost(struct finding *f, const struct model *m,
		     uint64_t kernel_ns, uint64_t saving_ns)
{
	double secs = model_duration_ns(m) / 1e9;

	f->cost.known = true;
	f->cost.kernel_ns = kernel_ns;
	f->cost.saving_ns = saving_ns;
	f->cost.per_second_ns = secs > 0 ? kernel_ns / secs : 0;
	f->cost.cpu_percent = f->cost.per_second_ns / 1e7;
}

/* The part of a process's clock_gettime kernel time spent on n calls. */
static uint64_t clock_share_ns(const struct proc_model *p, uint64_t n)
{
	const struct latency *l = &p->kinds[KIND_CLOCK_GETTIME];

	return l->count ? (uint64_t)((double)l->total_ns * n / l->count) : 0;
}

#define COMMS_NAMED	3

/* "tzloop 120,000 in 3 processes, sh 12 in 1 process" for the top comms. */
static char *by_comm_words(const struct model *m, const struct pid_set *s)
{
	struct {
		const char *comm;
		uint64_t n;
		unsigned int procs;
	} v[COMMS_NAMED] = {};
	char *out = xstrdup("");

	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);
		size_t k = 0;

		while (p && k < COMMS_NAMED && v[k].comm &&
		       strcmp(v[k].comm, p->comm))
			k++;
		if (!p || k == COMMS_NAMED)
			continue;
		v[k].comm = p->comm;
		v[k].n += proc_tz_accesses(p);
		v[k].procs++;
	}
	for (size_t k = 0; k < COMMS_NAMED && v[k].comm; k++) {
		char cnt[32], *more;

		more = xasprintf("%s%s%s %s in %u process%s", out, k ? ", " : "",
				 v[k].comm, fmt_count(cnt, sizeof(cnt), v[k].n),
				 v[k].procs, v[k].procs == 1 ? "" : "es");
		free(out);
		out = more;
	}
	return out;
}

/*
 * A zone file opened by its name (zoneinfo, pytz, Go's LoadLocation, a TZ
 * switched per call), not the default zone that the C library re-checks
 * while TZ is unset: /etc/localtime (any .../localtime) or the file TZ
 * names.  Setting TZ cannot stop those reads.
 */
static bool is_named_zone(const struct proc_model *p, const char *path)
{
	const char *base = strrchr(path, '/');
	const char *tz = p->tz && p->tz[0] == ':' ? p->tz + 1 : p->tz;

	if (!strcmp(base ? base + 1 : path, "localtime"))
		return false;
	return !tz || strcmp(tz, path);
}

/* "Europe/Paris" of /usr/share/zoneinfo/Europe/Paris; else the path. */
static const char *zone_name(const char *path)
{
	const char *z = strstr(path, "zoneinfo/");

	return z && z[9] ? z + 9 : path;
}

static void tz_repeated_access(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	const char *path = NULL, *top_path = NULL;
	const struct proc_model *top_proc = NULL;
	uint64_t total = 0, top = 0;
	bool named;
	double rate = 0;
	pid_t top_pid = 0;
	char *msg, *culprit, *comms, *script;
	struct finding *f;
	enum runtime rt;
	uint64_t ns;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		uint64_t n = proc_tz_max_path(p, &path);

		if (n < TZ_REPEAT_MIN)
			continue;
		pid_set_add(&s, p->pid);
		total += proc_tz_accesses(p);
		if (n > top) {
			top = n;
			top_pid = p->pid;
			top_path = path;
			top_proc = p;
			rate = n / proc_seconds(m, p);
		}
	}
	if (!s.n)
		return;
	rt = tz_runtime(m, &s);
	culprit = culprit_words(m, &s, rt);
	comms = by_comm_words(m, &s);
	script = script_words(m, &s, total);
	msg = xasprintf("%zu process%s re-read time-zone files %llu times in all "
			"(%s); pid %d accessed %s %llu times (%.0f/s)%s%s; %s",
			s.n, s.n == 1 ? "" : "es", (unsigned long long)total,
			comms, top_pid, top_path, (unsigned long long)top, rate,
			culprit, script, tz_env_words(m, &s));
	free(culprit);
	free(comms);
	free(script);
	ns = kinds_ns(m, &s, KIND_FIRST_TZ, KIND_MAX - 1);
	named = is_named_zone(top_proc, top_path);
	f = add(out, "tz-repeated-access", "warning", &s, msg, named ?
		xasprintf("the program loads the zone %s by name again and "
			  "again (a time-zone library, not the C library's "
			  "default zone): TZ=:/etc/localtime would not stop "
			  "these reads; load each zone once and keep it",
			  zone_name(top_path)) :
		xstrdup("set TZ in the environment, e.g. TZ=:/etc/localtime, "
			"so the C library stops re-checking the zone file on "
			"every localtime()/mktime()/tzset()"));
	set_runtime(f, rt, named);
	f->env_fix = named ? NULL : "TZ=:/etc/localtime";
	/* With TZ set, one read of the file per process remains. */
	set_cost(f, m, ns, total ? ns - ns * f->npids / total : 0);
}

/*
 * Per process tree (roles.h): the forker did the work and so do its
 * children, each again.  Its cost is tz-repeated-access's, not twice.
 */
static void tz_children_repeat_in(const struct model *m,
				  const struct proc_tree *t,
				  struct findings *out)
{
	const struct proc_model *forker = model_find(m, t->forker);
	const struct proc_model *top_child = NULL;
	const char *path = NULL;
	struct pid_set s = {};
	uint64_t child_total = 0, top = 0;
	struct finding *f;
	enum runtime rt;
	bool named;
	char *msg;

	if (!forker || !proc_tz_accesses(forker))
		return;
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		const char *cp = NULL;
		uint64_t n;

		if (p == forker || !roles_descends(m, p, forker))
			continue;
		n = proc_tz_max_path(p, &cp);
		if (n < TZ_REPEAT_MIN)
			continue;
		pid_set_add(&s, p->pid);
		child_total += proc_tz_accesses(p);
		if (n > top) {
			top = n;
			path = cp;
			top_child = p;
		}
	}
	if (!s.n)
		return;
	msg = xasprintf("%zu child process%s each repeat the time-zone check: "
			"%.0f accesses per child on average (%llu in all) "
			"against %llu in the parent pid %d",
			s.n, s.n == 1 ? "" : "es", (double)child_total / s.n,
			(unsigned long long)child_total,
			(unsigned long long)proc_tz_accesses(forker), forker->pid);
	rt = tz_runtime(m, &s);
	named = is_named_zone(top_child, path);
	f = add(out, "tz-children-repeat", "warning", &s, msg, named ?
		xasprintf("each child loads the zone %s by name again: TZ "
			  "would not stop it; load it once, in the parent "
			  "before the workers are forked, and keep it",
			  zone_name(path)) :
		xstrdup("export TZ (e.g. TZ=:/etc/localtime) before the "
			"workers are forked, so every child inherits it"));
	set_runtime(f, rt, named);
	f->env_fix = named ? NULL : "TZ=:/etc/localtime";
	f->see = "tz-repeated-access";
}

static void tz_children_repeat(const struct model *m, struct findings *out)
{
	struct proc_trees trees;

	roles_build(m, &trees);
	for (size_t i = 0; i < trees.n; i++)
		tz_children_repeat_in(m, &trees.v[i], out);
	roles_free(&trees);
}

/* hres_only: not the COARSE clocks, which the vDSO serves on any clocksource. */
static uint64_t vdso_clock_gettimes(const struct proc_model *p, bool hres_only)
{
	uint64_t n = 0;

	for (size_t i = 0; i < p->nclockids; i++)
		if (clock_vdso_capable(p->clockids[i].clockid) &&
		    !(hres_only && clock_is_coarse(p->clockids[i].clockid)))
			n += p->clockids[i].count;
	return n;
}

static uint64_t proc_vdso_clock_syscalls(const struct proc_model *p)
{
	return p->kinds[KIND_GETTIMEOFDAY].count + p->kinds[KIND_TIME].count +
	       vdso_clock_gettimes(p, false);
}

/*
 * The reads a clocksource with a vDSO mode would have served (fallback),
 * or every read the vDSO can serve: time() and the COARSE clocks never
 * fall back, so as syscalls they were made directly.
 */
static uint64_t clock_reads(const struct proc_model *p, bool fallback)
{
	return fallback ? p->kinds[KIND_GETTIMEOFDAY].count +
			  vdso_clock_gettimes(p, true) :
			  proc_vdso_clock_syscalls(p);
}

/* Kernel time of those reads. */
static uint64_t clock_reads_ns(const struct proc_model *p, bool fallback)
{
	return p->kinds[KIND_GETTIMEOFDAY].total_ns +
	       (fallback ? 0 : p->kinds[KIND_TIME].total_ns) +
	       clock_share_ns(p, vdso_clock_gettimes(p, fallback));
}

/* Whether the vDSO served the clocks here: by name, or as timed at start. */
static bool vdso_serves_clocks(const struct model *m)
{
	return clocksource_has_vdso(m->clocksource) &&
	       !clock_cost_falls_back(&m->clock_cost);
}

#define PROCS_PRICED	3

static int by_clock_syscalls_desc(const void *a, const void *b)
{
	uint64_t x = clock_reads(*(const struct proc_model **)a, true);
	uint64_t y = clock_reads(*(const struct proc_model **)b, true);

	return (x < y) - (x > y);
}

static char *priced_proc_words(const struct proc_model *p, double saving_ns)
{
	char cnt[32], kt[32], sv[32];
	uint64_t n = clock_reads(p, true);

	return xasprintf("pid %d (%s) %s reads, %s in the kernel%s%s", p->pid,
			 p->comm, fmt_count(cnt, sizeof(cnt), n),
			 fmt_duration(kt, sizeof(kt), clock_reads_ns(p, true)),
			 saving_ns > 0 ? ", a switch saves >= " : "",
			 saving_ns > 0 ?
			 fmt_duration(sv, sizeof(sv), saving_ns * n) : "");
}

/*
 * "pid 12 (app) 40,000 reads, 9.1 ms in the kernel, a switch saves >=
 * 3.2 ms" for the processes with the most reads.
 */
static char *priced_procs_words(const struct model *m, const struct pid_set *s,
				double saving_ns)
{
	const struct proc_model **v = xcalloc(s->n, sizeof(*v));
	char *out = xstrdup("");
	size_t n = 0;

	for (size_t i = 0; i < s->n; i++)
		if ((v[n] = model_find(m, s->v[i])))
			n++;
	qsort(v, n, sizeof(*v), by_clock_syscalls_desc);
	for (size_t k = 0; k < n && k < PROCS_PRICED; k++) {
		char *one = priced_proc_words(v[k], saving_ns);
		char *next = xasprintf("%s%s%s", out, k ? "; " : "", one);

		free(one);
		free(out);
		out = next;
	}
	free(v);
	return out;
}

/* Why the vDSO did not serve them, and what a read costs each way here. */
static char *fallback_words(const struct model *m)
{
	const struct clock_read_cost *c = &m->clock_cost;

	if (!c->known)
		return xasprintf("the clocksource '%s' has no vDSO mode, so "
				 "every read is a syscall", m->clocksource);
	return xasprintf("%s, so every read is a syscall: %.0f ns a read "
			 "here by syscall, %.0f ns through the C library; the "
			 "vDSO would spare at least the kernel's entry and exit, "
			 "%.0f ns a read (CLOCK_MONOTONIC_COARSE: %.0f ns by "
			 "syscall, %.0f ns in the vDSO)",
			 clocksource_has_vdso(m->clocksource) ?
			 "the vDSO fell back to the kernel although the "
			 "clocksource has a vDSO mode" :
			 "the clocksource has no vDSO mode",
			 c->syscall_ns, c->libc_ns, clock_cost_saving_ns(c),
			 c->coarse_syscall_ns, c->coarse_vdso_ns);
}

/*
 * Reads a vDSO-capable clocksource would have served that entered the
 * kernel, priced per process: the kernel time measured, and what a
 * switch saves at the least (reads x the per-read saving timed here).
 */
static void vdso_fallback(const struct model *m, struct pid_set *s,
			  uint64_t total, uint64_t ns, struct findings *out)
{
	double per_read = clock_cost_saving_ns(&m->clock_cost);
	char *why = fallback_words(m), *procs, *msg;
	struct finding *f;

	procs = priced_procs_words(m, s, per_read);
	msg = xasprintf("%llu reads of vDSO-capable clocks entered the kernel "
			"in %zu process%s (clocksource '%s'): %s; %s",
			(unsigned long long)total, s->n, s->n == 1 ? "" : "es",
			m->clocksource, why, procs);
	free(why);
	free(procs);
	f = add(out, "vdso-fallback", "warning", s, msg,
		xstrdup("switch to a clocksource the vDSO serves (tsc, "
			"kvm-clock with a stable TSC): see "
			"/sys/devices/system/clocksource/clocksource0/"
			"available_clocksource"));
	set_cost(f, m, ns, (uint64_t)(per_read * total));
}

static void vdso_clock_findings(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	uint64_t total = 0, ns = 0;
	struct finding *f;
	bool fallback;
	char *msg;

	if (!m->clocksource[0])
		return;
	fallback = !vdso_serves_clocks(m);
	for (size_t i = 0; i < m->nprocs; i++) {
		uint64_t n = clock_reads(&m->procs[i], fallback);

		if (n >= CLOCK_SYSCALL_MIN) {
			pid_set_add(&s, m->procs[i].pid);
			total += n;
			ns += clock_reads_ns(&m->procs[i], fallback);
		}
	}
	if (!s.n)
		return;
	if (fallback) {
		vdso_fallback(m, &s, total, ns, out);
		return;
	}
	msg = xasprintf("%llu reads of vDSO-capable clocks entered the kernel in "
			"%zu process%s although the clocksource '%s' is served "
			"by the vDSO: the program calls the syscall directly",
			(unsigned long long)total, s.n, s.n == 1 ? "" : "es",
			m->clocksource);
	f = add(out, "clock-syscall-bypass", "warning", &s, msg,
		xstrdup("call clock_gettime()/gettimeofday() through the C "
			"library (not syscall(2), an old static libc or a "
			"runtime that skips the vDSO), or use a *_COARSE clock"));
	set_cost(f, m, ns, ns);
}

/* The low bound of its vDSO time, as a share of its sampled CPU time. */
static bool vdso_hot(const struct model *m, const struct proc_model *p,
		     struct vdso_estimate *e)
{
	double cpu_ns = (double)p->vdso.total * m->vdso_period_ns;

	vdso_estimate(&p->vdso, m->vdso_period_ns, m->vdso_cost, e);
	return e->samples >= VDSO_HOT_SAMPLES && cpu_ns > 0 &&
	       e->time_ns.low / cpu_ns >= VDSO_HOT_SHARE;
}

/*
 * --vdso: reads that never enter the kernel but fill the CPU (a hot time()
 * loop).  Their cost is CPU time in the vDSO, not kernel time.
 */
static void vdso_hot_reads(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	struct vdso_estimate e;
	double ns = 0, calls = 0;
	struct finding *f;

	if (!m->vdso_enabled)
		return;
	for (size_t i = 0; i < m->nprocs; i++)
		if (vdso_hot(m, &m->procs[i], &e)) {
			pid_set_add(&s, m->procs[i].pid);
			ns += e.time_ns.estimate;
			calls += e.calls.estimate;
		}
	if (!s.n)
		return;
	f = add(out, "vdso-hot-reads", "warning", &s,
		xasprintf("%zu process%s spent at least %.0f%% of their CPU time "
			  "reading the clock in the vDSO: about %.0f ms, %.3g "
			  "calls (sampled estimate)", s.n, s.n == 1 ? "" : "es",
			  VDSO_HOT_SHARE * 100, ns / 1e6, calls),
		xstrdup("read the clock once per batch or event, not per item; "
			"a *_COARSE clock costs a few ns if ms resolution does"));
	set_cost(f, m, ns, 0);
}

static void cpu_clock_syscalls(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	uint64_t total = 0, ns = 0;
	double top_rate = 0;
	struct finding *f;
	char *msg;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		uint64_t n = 0;
		double rate;

		for (size_t c = 0; c < p->nclockids; c++)
			if (clock_is_cpu(p->clockids[c].clockid))
				n += p->clockids[c].count;
		rate = n / proc_seconds(m, p);
		if (n < CPU_CLOCK_MIN || rate < CPU_CLOCK_RATE_MIN)
			continue;
		pid_set_add(&s, p->pid);
		total += n;
		ns += clock_share_ns(p, n);
		if (rate > top_rate)
			top_rate = rate;
	}
	if (!s.n)
		return;
	msg = xasprintf("%llu CPU-time clock reads (CLOCK_PROCESS_CPUTIME_ID, "
			"CLOCK_THREAD_CPUTIME_ID) in %zu process%s, up to %.0f/s: "
			"these clocks always enter the kernel",
			(unsigned long long)total, s.n, s.n == 1 ? "" : "es",
			top_rate);
	f = add(out, "cpu-clock-syscalls", "info", &s, msg,
		xstrdup("read CPU time less often, or use CLOCK_MONOTONIC where "
			"wall time will do (served by the vDSO)"));
	/* What is saved depends on how many reads the program keeps. */
	set_cost(f, m, ns, 0);
}

static void tz_file_missing(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	uint64_t errors = 0, ns = 0;
	struct finding *f;
	char *msg;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		uint64_t e = p->kinds[KIND_TZ_OPEN].errors;

		if (e >= TZ_REPEAT_MIN) {
			const struct latency *l = &p->kinds[KIND_TZ_OPEN];

			pid_set_add(&s, p->pid);
			errors += e;
			ns += (uint64_t)((double)l->total_ns * e / l->count);
		}
	}
	if (!s.n)
		return;
	msg = xasprintf("%llu failed opens of time-zone files in %zu process%s: "
			"the C library retries the missing file on every call",
			(unsigned long long)errors, s.n, s.n == 1 ? "" : "es");
	f = add(out, "tz-file-missing", "warning", &s, msg,
		xstrdup("install the zone file (tzdata) or set TZ, e.g. TZ=UTC"));
	f->env_fix = "TZ=UTC";
	set_cost(f, m, ns, ns);
}

static const char *severity_of(const struct finding_cost *c)
{
	if (c->cpu_percent >= SEVERITY_CRITICAL_CPU &&
	    c->kernel_ns >= SEVERITY_CRITICAL_NS)
		return "critical";
	if (c->cpu_percent >= SEVERITY_WARNING_CPU ||
	    c->kernel_ns >= SEVERITY_WARNING_NS)
		return "warning";
	return "info";
}

static const struct finding *find_id(const struct findings *fs, const char *id)
{
	for (size_t i = 0; i < fs->n; i++)
		if (!strcmp(fs->v[i].id, id))
			return &fs->v[i];
	return NULL;
}

static bool pids_within(const struct finding *f, const struct finding *of)
{
	for (size_t i = 0; i < f->npids; i++) {
		size_t k = 0;

		while (k < of->npids && of->pids[k] != f->pids[i])
			k++;
		if (k == of->npids)
			return false;
	}
	return true;
}

/*
 * A missing zone file is re-tried on every call: those failed opens are
 * tz accesses already priced by tz-repeated-access when it names the
 * same processes.  Each cost is then counted once.
 */
static void count_costs_once(struct findings *fs)
{
	const struct finding *rep = find_id(fs, "tz-repeated-access");

	for (size_t i = 0; rep && i < fs->n; i++) {
		struct finding *f = &fs->v[i];

		if (!strcmp(f->id, "tz-file-missing") && pids_within(f, rep)) {
			f->see = rep->id;
			memset(&f->cost, 0, sizeof(f->cost));
		}
	}
}

/* A finding that explains another is as severe as that one. */
static void rate_severity(struct findings *fs)
{
	for (size_t i = 0; i < fs->n; i++)
		if (fs->v[i].cost.known)
			fs->v[i].severity = severity_of(&fs->v[i].cost);
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *of = fs->v[i].see ?
					   find_id(fs, fs->v[i].see) : NULL;

		if (of)
			fs->v[i].severity = of->severity;
	}
}

void findings_build(const struct model *m, struct findings *out)
{
	memset(out, 0, sizeof(*out));
	tz_repeated_access(m, out);
	tz_children_repeat(m, out);
	tz_file_missing(m, out);
	vdso_clock_findings(m, out);
	vdso_hot_reads(m, out);
	cpu_clock_syscalls(m, out);
	count_costs_once(out);
	rate_severity(out);
	for (size_t i = 0; i < out->n; i++)
		finding_place_fixes(m, &out->v[i]);
}

void findings_free(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].pids);
		free(f->v[i].message);
		free(f->v[i].fix);
		for (size_t k = 0; k < f->v[i].nfixes; k++)
			free(f->v[i].fixes[k].how);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}
