// SPDX-License-Identifier: GPL-2.0
/* run --compare in text and JSON.  JSON names are a contract (issue 17). */
#include <string.h>
#include <sys/wait.h>

#include "compare.h"
#include "util.h"

static void json_figure(struct json *j, const char *key,
			const struct compare_figure *f)
{
	char k[64];

	json_u64(j, key, f->median);
	snprintf(k, sizeof(k), "%s_min", key);
	json_u64(j, k, f->min);
	snprintf(k, sizeof(k), "%s_max", key);
	json_u64(j, k, f->max);
}

static void json_side(struct json *j, const char *key,
		      const struct compare_side *s)
{
	json_obj_begin(j, key);
	json_u64(j, "processes", s->processes);
	json_figure(j, "wall_ns", &s->wall);
	json_figure(j, "cpu_ns", &s->cpu);
	json_u64(j, "tz_accesses", s->tz_accesses);
	json_u64(j, "clock_syscalls", s->clock_syscalls);
	json_obj_end(j);
}

static void json_sides(struct json *j, const struct compare *c,
		       enum compare_role role)
{
	const struct compare_side *b = &c->side[role][VARIANT_BEFORE];
	const struct compare_side *a = &c->side[role][VARIANT_AFTER];

	json_side(j, "before", b);
	json_side(j, "after", a);
	json_double(j, "speedup", compare_speedup(c, role));
	json_double(j, "cpu_speedup", a->cpu.median ?
		    (double)b->cpu.median / a->cpu.median : 0);
}

/* NAME=VALUE as "NAME": "VALUE". */
static void json_env(struct json *j, const char *var)
{
	const char *eq = strchr(var, '=');
	char name[256];

	snprintf(name, sizeof(name), "%.*s", (int)(eq - var), var);
	json_str(j, name, eq + 1);
}

static void json_fix(struct json *j, const struct compare *c)
{
	json_obj_begin(j, "fix");
	for (size_t i = 0; i < c->nfix; i++)
		json_env(j, c->fix[i]);
	json_obj_end(j);
}

static void json_status(struct json *j, int status)
{
	if (WIFSIGNALED(status)) {
		json_null(j, "exit_code");
		json_i64(j, "exit_signal", WTERMSIG(status));
	} else {
		json_i64(j, "exit_code", WEXITSTATUS(status));
		json_null(j, "exit_signal");
	}
}

static void json_runs(struct json *j, const struct compare *c)
{
	char hash[20];

	json_arr_begin(j, "runs");
	for (size_t i = 0; i < c->nruns; i++) {
		const struct compare_run *r = &c->runs[i];

		json_obj_begin(j, NULL);
		json_str(j, "variant", compare_variant_name(r->variant));
		json_bool(j, "counted", r->counted);
		json_u64(j, "wall_ns", r->role[ROLE_ALL].wall_ns);
		json_u64(j, "cpu_ns", r->role[ROLE_ALL].cpu_ns);
		json_u64(j, "rusage_cpu_ns", r->rusage_cpu_ns);
		json_u64(j, "processes", r->role[ROLE_ALL].processes);
		/* A timed run has no syscall probes: no counts, not zero. */
		if (r->counted) {
			json_u64(j, "tz_accesses", r->role[ROLE_ALL].tz_accesses);
			json_u64(j, "clock_syscalls",
				 r->role[ROLE_ALL].clock_syscalls);
		} else {
			json_null(j, "tz_accesses");
			json_null(j, "clock_syscalls");
		}
		json_status(j, r->status);
		snprintf(hash, sizeof(hash), "%016llx",
			 (unsigned long long)r->stdout_hash);
		json_str(j, "stdout_fnv1a", hash);
		json_u64(j, "stdout_bytes", r->stdout_bytes);
		json_obj_end(j);
	}
	json_arr_end(j);
}

void compare_json(struct json *j, const struct compare *c)
{
	json_obj_begin(j, "compare");
	json_fix(j, c);
	json_u64(j, "repeat", c->repeat);
	json_sides(j, c, ROLE_ALL);
	json_arr_begin(j, "roles");
	for (int r = ROLE_PARENT; r < ROLE_MAX; r++) {
		json_obj_begin(j, NULL);
		json_str(j, "role", compare_role_name(r));
		json_sides(j, c, r);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_obj_begin(j, "preset");
	for (size_t i = 0; i < c->npreset; i++)
		json_env(j, c->preset[i]);
	json_obj_end(j);
	json_str(j, "verdict", c->verdict);
	json_bool(j, "exit_differs", c->exit_differs);
	json_bool(j, "stdout_differs", c->stdout_differs);
	json_bool(j, "stdout_varies", c->stdout_varies);
	json_runs(j, c);
	json_obj_end(j);
}

/* "386.1 ms (358.0-414.3)": the range in the median's unit. */
static char *fmt_figure(char *buf, size_t size, const struct compare_figure *f)
{
	double unit = f->max >= 1e9 ? 1e9 : f->max >= 1e6 ? 1e6 : 1e3;
	const char *name = unit == 1e9 ? "s" : unit == 1e6 ? "ms" : "us";

	snprintf(buf, size, "%.1f %s (%.1f-%.1f)", f->median / unit, name,
		 f->min / unit, f->max / unit);
	return buf;
}

static void text_times(FILE *f, const struct compare *c)
{
	fprintf(f, "  %-9s %5s  %-26s %-26s %8s\n", "ROLE", "PROCS",
		"WALL BEFORE (MIN-MAX)", "WALL AFTER", "SPEED-UP");
	for (int r = 0; r < ROLE_MAX; r++) {
		const struct compare_side *b = &c->side[r][VARIANT_BEFORE];
		const struct compare_side *a = &c->side[r][VARIANT_AFTER];
		char wb[96], wa[96];

		if (r != ROLE_ALL && !b->processes && !a->processes)
			continue;
		fprintf(f, "  %-9s %5u  %-26s %-26s %7.2fx\n",
			compare_role_name(r), b->processes,
			fmt_figure(wb, sizeof(wb), &b->wall),
			fmt_figure(wa, sizeof(wa), &a->wall),
			compare_speedup(c, r));
	}
	fprintf(f, "\n  %-9s %-26s %s\n", "ROLE", "CPU BEFORE (MIN-MAX)",
		"CPU AFTER");
	for (int r = 0; r < ROLE_MAX; r++) {
		char cb[96], ca[96];

		if (r != ROLE_ALL && !c->side[r][VARIANT_BEFORE].processes)
			continue;
		fprintf(f, "  %-9s %-26s %s\n", compare_role_name(r),
			fmt_figure(cb, sizeof(cb), &c->side[r][VARIANT_BEFORE].cpu),
			fmt_figure(ca, sizeof(ca), &c->side[r][VARIANT_AFTER].cpu));
	}
}

static void text_counts(FILE *f, const struct compare *c)
{
	fprintf(f, "\n  %-9s %14s %14s %16s %16s\n", "ROLE", "TZ BEFORE",
		"TZ AFTER", "CLOCK-SC BEFORE", "CLOCK-SC AFTER");
	for (int r = 0; r < ROLE_MAX; r++) {
		const struct compare_side *b = &c->side[r][VARIANT_BEFORE];
		const struct compare_side *a = &c->side[r][VARIANT_AFTER];
		char n[4][32];

		if (r != ROLE_ALL && !b->processes)
			continue;
		fprintf(f, "  %-9s %14s %14s %16s %16s\n", compare_role_name(r),
			fmt_count(n[0], sizeof(n[0]), b->tz_accesses),
			fmt_count(n[1], sizeof(n[1]), a->tz_accesses),
			fmt_count(n[2], sizeof(n[2]), b->clock_syscalls),
			fmt_count(n[3], sizeof(n[3]), a->clock_syscalls));
	}
}

void compare_text(FILE *f, const struct compare *c)
{
	char fix[256];

	fputs("\nCOMPARE (PROG as it is, then with", f);
	for (size_t i = 0; i < c->nfix; i++) {
		escape_bytes(fix, sizeof(fix), c->fix[i], strlen(c->fix[i]));
		fprintf(f, " %s", fix);
	}
	fprintf(f, "; %u timed run%s of each, alternating, without the syscall "
		"probes; counts from one traced run of each)\n", c->repeat,
		c->repeat == 1 ? "" : "s");
	text_times(f, c);
	text_counts(f, c);
	fprintf(f, "\n  verdict: %s\n", c->verdict);
	for (size_t i = 0; i < c->npreset; i++) {
		escape_bytes(fix, sizeof(fix), c->preset[i], strlen(c->preset[i]));
		fprintf(f, "  note: PROG as it is already had %s in its "
			"environment\n", fix);
	}
	if (c->exit_differs)
		fputs("  warning: PROG's exit status differs between the two "
		      "variants\n", f);
	if (c->stdout_differs)
		fputs("  warning: PROG's standard output differs between the "
		      "two variants (it is the same from run to run of each)\n", f);
	else if (c->stdout_varies)
		fputs("  note: PROG's standard output changes from run to run, "
		      "so it was not compared\n", f);
}
