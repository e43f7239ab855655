// SPDX-License-Identifier: GPL-2.0
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "findings.h"
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

static char *xasprintf(const char *fmt, ...)
	__attribute__((format(printf, 1, 2)));

static char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		s = NULL;
	va_end(ap);
	return s ? s : xstrdup("");
}

static void add(struct findings *out, const char *id, const char *severity,
		struct pid_set *pids, char *message, char *fix)
{
	struct finding *f;

	out->v = xrealloc(out->v, out->n + 1, sizeof(*out->v));
	f = &out->v[out->n++];
	f->id = id;
	f->severity = severity;
	f->pids = pids->v;
	f->npids = pids->n;
	f->message = message;
	f->fix = fix;
	pids->v = NULL;
	pids->n = 0;
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

/* Where that function was called from most, over these processes. */
static const struct caller_stat *top_call_site(const struct model *m,
					       const struct pid_set *s,
					       uint32_t fn)
{
	const struct caller_stat *best = NULL;

	for (size_t i = 0; i < s->n; i++) {
		const struct proc_model *p = model_find(m, s->v[i]);

		for (size_t c = 0; p && c < p->ncallers; c++)
			if (p->callers[c].fn == fn && p->callers[c].symbol &&
			    (!best || p->callers[c].count > best->count))
				best = &p->callers[c];
	}
	return best;
}

/* ", mostly from localtime() called at main+0x1c (prog)", or "". */
static char *culprit_words(const struct model *m, const struct pid_set *s)
{
	uint32_t fn = tz_culprit(m, s);
	const struct caller_stat *site;

	if (fn == LIBC_NONE)
		return xstrdup("");
	site = top_call_site(m, s, fn);
	if (!site)
		return xasprintf(", mostly from %s()", libc_fn_name(fn));
	return xasprintf(", mostly from %s() called at %s (%s)",
			 libc_fn_name(fn), site->symbol,
			 site->module ? site->module : "?");
}

static void tz_repeated_access(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	const char *path = NULL, *top_path = NULL;
	uint64_t total = 0, top = 0;
	double rate = 0;
	pid_t top_pid = 0;
	char *msg, *culprit;

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
			rate = n / proc_seconds(m, p);
		}
	}
	if (!s.n)
		return;
	culprit = culprit_words(m, &s);
	msg = xasprintf("%zu process%s re-read time-zone files %llu times in all; "
			"pid %d accessed %s %llu times (%.0f/s)%s; %s",
			s.n, s.n == 1 ? "" : "es", (unsigned long long)total,
			top_pid, top_path, (unsigned long long)top, rate,
			culprit, tz_env_words(m, &s));
	free(culprit);
	add(out, "tz-repeated-access", "warning", &s, msg,
	    xstrdup("set TZ in the environment, e.g. TZ=:/etc/localtime, so the "
		    "C library stops re-checking the zone file on every "
		    "localtime()/mktime()/tzset()"));
}

static void tz_children_repeat(const struct model *m, struct findings *out)
{
	const struct proc_model *root = NULL;
	struct pid_set s = {};
	uint64_t child_total = 0;
	char *msg;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		if (p->depth == 0 && !root)
			root = p;
		if (p->depth > 0 && proc_tz_max_path(p, NULL) >= TZ_REPEAT_MIN) {
			pid_set_add(&s, p->pid);
			child_total += proc_tz_accesses(p);
		}
	}
	if (!s.n)
		return;
	msg = xasprintf("%zu child process%s each repeat the time-zone check: "
			"%.0f accesses per child on average (%llu in all) "
			"against %llu in the parent%s%d",
			s.n, s.n == 1 ? "" : "es", (double)child_total / s.n,
			(unsigned long long)child_total,
			root ? (unsigned long long)proc_tz_accesses(root) : 0ull,
			root ? " pid " : "", root ? root->pid : 0);
	add(out, "tz-children-repeat", "warning", &s, msg,
	    xstrdup("export TZ (e.g. TZ=:/etc/localtime) before the workers are "
		    "forked, so every child inherits it"));
}

static uint64_t vdso_clock_syscalls(const struct proc_model *p)
{
	uint64_t n = p->kinds[KIND_GETTIMEOFDAY].count +
		     p->kinds[KIND_TIME].count;

	for (size_t i = 0; i < p->nclockids; i++)
		if (clock_vdso_capable(p->clockids[i].clockid))
			n += p->clockids[i].count;
	return n;
}

static void vdso_clock_findings(const struct model *m, struct findings *out)
{
	bool has_vdso = m->clocksource[0] && clocksource_has_vdso(m->clocksource);
	struct pid_set s = {};
	uint64_t total = 0;
	char *msg;

	for (size_t i = 0; i < m->nprocs; i++) {
		uint64_t n = vdso_clock_syscalls(&m->procs[i]);

		if (n >= CLOCK_SYSCALL_MIN) {
			pid_set_add(&s, m->procs[i].pid);
			total += n;
		}
	}
	if (!s.n || !m->clocksource[0])
		return;
	if (!has_vdso) {
		msg = xasprintf("%llu reads of vDSO-capable clocks entered the "
				"kernel in %zu process%s: the clocksource '%s' "
				"has no vDSO mode, so every read is a syscall",
				(unsigned long long)total, s.n,
				s.n == 1 ? "" : "es", m->clocksource);
		add(out, "vdso-fallback", "warning", &s, msg,
		    xstrdup("switch to a clocksource the vDSO serves (tsc, "
			    "kvm-clock with a stable TSC): see "
			    "/sys/devices/system/clocksource/clocksource0/"
			    "available_clocksource"));
		return;
	}
	msg = xasprintf("%llu reads of vDSO-capable clocks entered the kernel in "
			"%zu process%s although the clocksource '%s' is served "
			"by the vDSO: the program calls the syscall directly",
			(unsigned long long)total, s.n, s.n == 1 ? "" : "es",
			m->clocksource);
	add(out, "clock-syscall-bypass", "warning", &s, msg,
	    xstrdup("call clock_gettime()/gettimeofday() through the C library "
		    "(not syscall(2), an old static libc or a runtime that skips "
		    "the vDSO), or use a *_COARSE clock"));
}

static void cpu_clock_syscalls(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	uint64_t total = 0;
	double top_rate = 0;
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
	add(out, "cpu-clock-syscalls", "info", &s, msg,
	    xstrdup("read CPU time less often, or use CLOCK_MONOTONIC where "
		    "wall time will do (served by the vDSO)"));
}

static void tz_file_missing(const struct model *m, struct findings *out)
{
	struct pid_set s = {};
	uint64_t errors = 0;
	char *msg;

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		uint64_t e = p->kinds[KIND_TZ_OPEN].errors;

		if (e >= TZ_REPEAT_MIN) {
			pid_set_add(&s, p->pid);
			errors += e;
		}
	}
	if (!s.n)
		return;
	msg = xasprintf("%llu failed opens of time-zone files in %zu process%s: "
			"the C library retries the missing file on every call",
			(unsigned long long)errors, s.n, s.n == 1 ? "" : "es");
	add(out, "tz-file-missing", "warning", &s, msg,
	    xstrdup("install the zone file (tzdata) or set TZ, e.g. TZ=UTC"));
}

void findings_build(const struct model *m, struct findings *out)
{
	memset(out, 0, sizeof(*out));
	tz_repeated_access(m, out);
	tz_children_repeat(m, out);
	tz_file_missing(m, out);
	vdso_clock_findings(m, out);
	cpu_clock_syscalls(m, out);
}

void findings_free(struct findings *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->v[i].pids);
		free(f->v[i].message);
		free(f->v[i].fix);
	}
	free(f->v);
	f->v = NULL;
	f->n = 0;
}
