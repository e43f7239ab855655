// SPDX-License-Identifier: GPL-2.0
/* run --compare's figures: medians per role, the verdict, text and JSON. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "compare.h"
#include "util.h"

uint64_t compare_hash(uint64_t h, const void *buf, size_t len)
{
	const unsigned char *p = buf;

	for (size_t i = 0; i < len; i++) {
		h ^= p[i];
		h *= 0x100000001b3ull;
	}
	return h;
}

const char *compare_role_name(enum compare_role role)
{
	static const char *const names[] = { "all", "parent", "children" };

	return names[role];
}

const char *compare_variant_name(enum compare_variant v)
{
	return v == VARIANT_BEFORE ? "before" : "after";
}

static enum compare_role role_of(const struct proc_model *p)
{
	return p->depth ? ROLE_CHILDREN : ROLE_PARENT;
}

static void sample_proc(struct role_sample *r, uint64_t *first, uint64_t *last,
			const struct model *m, const struct proc_model *p)
{
	uint64_t end = p->exited && p->exit_ns ? p->exit_ns : m->end_ns;

	r->processes++;
	r->cpu_ns += p->cpu_ns;
	r->tz_accesses += proc_tz_accesses(p);
	r->clock_syscalls += proc_clock_syscalls(p);
	if (p->start_ns && (!*first || p->start_ns < *first))
		*first = p->start_ns;
	if (end > *last)
		*last = end;
}

void compare_sample(const struct model *m, struct role_sample out[ROLE_MAX])
{
	uint64_t first[ROLE_MAX] = {}, last[ROLE_MAX] = {};

	memset(out, 0, sizeof(*out) * ROLE_MAX);
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		enum compare_role role = role_of(p);

		sample_proc(&out[role], &first[role], &last[role], m, p);
		sample_proc(&out[ROLE_ALL], &first[ROLE_ALL], &last[ROLE_ALL],
			    m, p);
	}
	for (int r = 0; r < ROLE_MAX; r++)
		out[r].wall_ns = last[r] > first[r] ? last[r] - first[r] : 0;
}

void compare_add_run(struct compare *c, const struct compare_run *r)
{
	c->runs = xrealloc(c->runs, c->nruns + 1, sizeof(*c->runs));
	c->runs[c->nruns++] = *r;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

static struct compare_figure figure(uint64_t *v, size_t n)
{
	struct compare_figure f = {};

	if (!n)
		return f;
	qsort(v, n, sizeof(*v), cmp_u64);
	f.min = v[0];
	f.max = v[n - 1];
	f.median = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	return f;
}

static void summarize_side(struct compare *c, enum compare_role role,
			   enum compare_variant var)
{
	struct compare_side *s = &c->side[role][var];
	uint64_t *wall = xcalloc(c->nruns + 1, sizeof(*wall));
	uint64_t *cpu = xcalloc(c->nruns + 1, sizeof(*cpu));
	size_t n = 0;

	memset(s, 0, sizeof(*s));
	for (size_t i = 0; i < c->nruns; i++) {
		const struct compare_run *r = &c->runs[i];

		if (r->variant != var)
			continue;
		if (r->counted) {
			s->tz_accesses = r->role[role].tz_accesses;
			s->clock_syscalls = r->role[role].clock_syscalls;
			s->processes = r->role[role].processes;
			continue;
		}
		wall[n] = r->role[role].wall_ns;
		cpu[n++] = r->role[role].cpu_ns;
	}
	s->timed = n;
	s->wall = figure(wall, n);
	s->cpu = figure(cpu, n);
	free(wall);
	free(cpu);
}

/* Equal within each variant, and then across: only then is a difference real. */
static void check_outputs(struct compare *c)
{
	const struct compare_run *first[VARIANT_MAX] = {};
	bool stable[VARIANT_MAX] = { true, true };

	c->exit_differs = false;
	for (size_t i = 0; i < c->nruns; i++) {
		const struct compare_run *r = &c->runs[i];
		const struct compare_run **f = &first[r->variant];

		if (!*f)
			*f = r;
		else if (r->stdout_hash != (*f)->stdout_hash ||
			 r->stdout_bytes != (*f)->stdout_bytes)
			stable[r->variant] = false;
		for (size_t k = 0; k < i; k++)
			if (c->runs[k].variant != r->variant &&
			    c->runs[k].status != r->status)
				c->exit_differs = true;
	}
	c->stdout_varies = !stable[VARIANT_BEFORE] || !stable[VARIANT_AFTER];
	c->stdout_differs = !c->stdout_varies && first[VARIANT_BEFORE] &&
		first[VARIANT_AFTER] &&
		(first[VARIANT_BEFORE]->stdout_hash != first[VARIANT_AFTER]->stdout_hash ||
		 first[VARIANT_BEFORE]->stdout_bytes != first[VARIANT_AFTER]->stdout_bytes);
}

double compare_speedup(const struct compare *c, enum compare_role role)
{
	const struct compare_side *b = &c->side[role][VARIANT_BEFORE];
	const struct compare_side *a = &c->side[role][VARIANT_AFTER];

	if (!a->wall.median || !b->wall.median)
		return 0;
	return (double)b->wall.median / a->wall.median;
}

/* ", 120,001 tz accesses → 1": what the fix changed in the kernel. */
static void verdict_counts(char *buf, size_t size, const char *what,
			   uint64_t before, uint64_t after)
{
	char b[32], a[32];

	snprintf(buf, size, ", %s %s \u2192 %s", fmt_count(b, sizeof(b), before),
		 what, fmt_count(a, sizeof(a), after));
}

/*
 * A change of at least VERDICT_CLOCK_SHARE percent of the larger count and
 * VERDICT_CLOCK_MIN syscalls: "873 -> 877" is noise, "5,000 -> 0" is not.
 */
#define VERDICT_CLOCK_SHARE	10
#define VERDICT_CLOCK_MIN	10

static bool clock_change_explained(uint64_t before, uint64_t after)
{
	uint64_t hi = before > after ? before : after;
	uint64_t delta = hi - (before > after ? after : before);

	return delta >= VERDICT_CLOCK_MIN && delta * 100 >= hi * VERDICT_CLOCK_SHARE;
}

static void build_verdict(struct compare *c)
{
	const struct compare_side *b = &c->side[ROLE_ALL][VARIANT_BEFORE];
	const struct compare_side *a = &c->side[ROLE_ALL][VARIANT_AFTER];
	double x = compare_speedup(c, ROLE_ALL);
	char speed[96], tz[96], clk[96] = "", fix[96] = "no fix";

	if (c->nfix)
		escape_bytes(fix, sizeof(fix), c->fix[0], strlen(c->fix[0]));
	if (!x)
		snprintf(speed, sizeof(speed), "not timed");
	else if (b->timed < 2 || a->timed < 2)
		/* One run each has no spread to tell a change from noise. */
		snprintf(speed, sizeof(speed), "%.2fx here in one run of each, "
			 "not judged (--repeat 3 or more)", x);
	else if (b->wall.min > a->wall.max)
		snprintf(speed, sizeof(speed), "%.1fx faster here", x);
	else if (a->wall.min > b->wall.max)
		snprintf(speed, sizeof(speed), "%.1fx slower here", 1 / x);
	else
		snprintf(speed, sizeof(speed),
			 "no measurable change here (%.2fx, the ranges overlap)", x);
	verdict_counts(tz, sizeof(tz), "tz accesses", b->tz_accesses,
		       a->tz_accesses);
	/*
	 * Clock syscalls only when the fix changed them: most fixes are TZ's,
	 * and a runtime's own reads of a CPU clock drift from run to run.
	 */
	if (clock_change_explained(b->clock_syscalls, a->clock_syscalls))
		verdict_counts(clk, sizeof(clk), "clock syscalls",
			       b->clock_syscalls, a->clock_syscalls);
	snprintf(c->verdict, sizeof(c->verdict), "%s%s: %s%s%s", fix,
		 c->nfix > 1 ? " ..." : "", speed, tz, clk);
}

void compare_summarize(struct compare *c)
{
	for (int r = 0; r < ROLE_MAX; r++)
		for (int v = 0; v < VARIANT_MAX; v++)
			summarize_side(c, r, v);
	check_outputs(c);
	build_verdict(c);
}

void compare_free(struct compare *c)
{
	free(c->runs);
	c->runs = NULL;
	c->nruns = 0;
}
