// SPDX-License-Identifier: GPL-2.0
/* The bench table and its verdict, as text and as JSON, from one model. */
#include <math.h>
#include <string.h>

#include "bench_table.h"
#include "clocks.h"
#include "json.h"
#include "util.h"

static const char *kernel_word(int entered)
{
	return entered > 0 ? "yes" : entered == 0 ? "no" : "?";
}

static void print_row(FILE *f, const struct bench_row *r)
{
	char label[64], calls[32], elapsed[32], spread[32];

	bench_row_label(r, label, sizeof(label));
	if (r->err) {
		fprintf(f, "%9s  %-15s %11s %9s  %-7s  %-6s  %-7s  %s: %s\n",
			"-", "-", "-", "-", bench_path_name(r->path), "?",
			r->process == BENCH_CHILD ? "child" : "parent", label,
			strerror(r->err));
		return;
	}
	snprintf(spread, sizeof(spread), "%.1f..%.1f", r->ns_min, r->ns_max);
	fprintf(f, "%9.1f  %-15s %11s %9s  %-7s  %-6s  %-7s  %s\n",
		r->ns_per_call, spread, fmt_count(calls, sizeof(calls), r->calls),
		fmt_duration(elapsed, sizeof(elapsed), r->elapsed_ns),
		bench_path_name(r->path), kernel_word(r->entered_kernel),
		r->process == BENCH_CHILD ? "child" : "parent", label);
}

static void print_clock_verdict(FILE *f, const struct bench_clock_verdict *c)
{
	char name[32];

	fprintf(f, "  %-26s %s %.0f ns", clock_name(c->clock, name, sizeof(name)),
		c->vdso ? "vDSO  " : "kernel", c->libc_ns);
	if (!isnan(c->syscall_ns))
		fprintf(f, " (syscall %.0f ns, %.1fx)", c->syscall_ns,
			c->syscall_ns / c->libc_ns);
	fprintf(f, ": %s%s\n", c->why, c->conflict ?
		"; but the timing disagrees: entered_kernel unknown" : "");
}

static void print_tz_verdict(FILE *f, const struct bench_verdict *v)
{
	for (size_t i = 0; i < v->ntz; i++) {
		const struct bench_tz_verdict *t = &v->tz[i];

		if (isnan(t->unset_ns) || isnan(t->set_ns))
			continue;
		/* Within half a nanosecond, or slower: no "saves -0 ns". */
		if (t->unset_ns - t->set_ns < 0.5) {
			fprintf(f, "  %-12s TZ=%s saves nothing here (%.0f -> "
				"%.0f ns)\n", t->name, BENCH_TZ_FILE,
				t->unset_ns, t->set_ns);
			continue;
		}
		fprintf(f, "  %-12s TZ=%s saves %.0f ns per call "
			"(%.0f -> %.0f ns, %.1fx)\n", t->name, BENCH_TZ_FILE,
			t->unset_ns - t->set_ns, t->unset_ns, t->set_ns,
			t->unset_ns / t->set_ns);
	}
}

static void print_child_verdict(FILE *f, const struct bench_verdict *v)
{
	char label[64];

	if (!v->child_pairs) {
		fputs("  forked child / parent: not measured (add --fork)\n", f);
		return;
	}
	fprintf(f, "  forked child / parent: %.2fx (median of %zu rows; "
		"largest %.2fx, %s)\n", v->child_ratio, v->child_pairs,
		v->child_max_ratio,
		bench_row_label(v->child_max_row, label, sizeof(label)));
}

void bench_print_text(FILE *f, const struct bench_report *b,
		      const struct bench_verdict *v)
{
	fprintf(f, "clocktrace bench: clocksource %s (available: %s), vDSO %s, "
		"%s\n", b->clocksource, b->available,
		b->vdso ? "mapped" : "not mapped", b->libc);
	fprintf(f, "each row: at least %.2f s of calls in 5 or more trials after "
		"a warm-up%s; ", b->duration, b->cpu >= 0 ? ", pinned" : "");
	fprintf(f, "kernel: %s\n\n", b->counted ?
		"syscalls counted (perf, raw_syscalls:sys_enter)" :
		"from the vDSO and glibc rules, checked against the timing");
	fprintf(f, "%9s  %-15s %11s %9s  %-7s  %-6s  %-7s  %s\n", "ns/call",
		"min..max", "calls", "elapsed", "path", "kernel", "process",
		"call");
	for (size_t i = 0; i < b->n; i++)
		print_row(f, &b->rows[i]);
	fputs("\nVerdict:\n", f);
	for (size_t i = 0; i < v->nclocks; i++)
		print_clock_verdict(f, &v->clocks[i]);
	print_tz_verdict(f, v);
	print_child_verdict(f, v);
}

static void json_num_or_null(struct json *j, const char *key, double v)
{
	if (isnan(v))
		json_null(j, key);
	else
		json_double(j, key, v);
}

static void json_row(struct json *j, const struct bench_row *r)
{
	char name[32];

	json_obj_begin(j, NULL);
	json_str(j, "name", r->name);
	json_str(j, "clock", r->clock == BENCH_NO_CLOCK ? NULL :
		 clock_name(r->clock, name, sizeof(name)));
	json_str(j, "path", bench_path_name(r->path));
	json_str(j, "tz", bench_tz_name(r->tz));
	json_str(j, "process", r->process == BENCH_CHILD ? "child" : "parent");
	json_num_or_null(j, "ns_per_call", r->err ? NAN : r->ns_per_call);
	json_num_or_null(j, "ns_min", r->err ? NAN : r->ns_min);
	json_num_or_null(j, "ns_max", r->err ? NAN : r->ns_max);
	json_u64(j, "trials", r->trials);
	json_u64(j, "calls", r->calls);
	json_u64(j, "elapsed_ns", r->elapsed_ns);
	if (r->entered_kernel < 0)
		json_null(j, "entered_kernel");
	else
		json_bool(j, "entered_kernel", r->entered_kernel);
	json_str(j, "entered_kernel_basis", bench_basis_name(r->basis));
	json_num_or_null(j, "syscalls_per_call",
			 r->syscalls_per_call < 0 ? NAN : r->syscalls_per_call);
	json_str(j, "error", r->err ? strerror(r->err) : NULL);
	json_obj_end(j);
}

static void json_verdict(struct json *j, const struct bench_verdict *v)
{
	char name[32];

	json_obj_begin(j, "verdict");
	json_arr_begin(j, "clocks");
	for (size_t i = 0; i < v->nclocks; i++) {
		const struct bench_clock_verdict *c = &v->clocks[i];

		json_obj_begin(j, NULL);
		json_str(j, "clock", clock_name(c->clock, name, sizeof(name)));
		json_bool(j, "vdso", c->vdso);
		json_str(j, "reason", c->why);
		json_num_or_null(j, "libc_ns", c->libc_ns);
		json_num_or_null(j, "syscall_ns", c->syscall_ns);
		json_bool(j, "timing_conflict", c->conflict);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_arr_begin(j, "tz");
	for (size_t i = 0; i < v->ntz; i++) {
		const struct bench_tz_verdict *t = &v->tz[i];

		json_obj_begin(j, NULL);
		json_str(j, "name", t->name);
		json_num_or_null(j, "unset_ns", t->unset_ns);
		json_num_or_null(j, "set_ns", t->set_ns);
		json_num_or_null(j, "saving_ns", t->unset_ns - t->set_ns);
		json_num_or_null(j, "ratio", t->unset_ns / t->set_ns);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_num_or_null(j, "child_parent_ratio",
			 v->child_pairs ? v->child_ratio : NAN);
	json_num_or_null(j, "child_parent_max_ratio",
			 v->child_pairs ? v->child_max_ratio : NAN);
	json_obj_end(j);
}

static void json_available(struct json *j, const char *avail)
{
	char copy[256], *save = NULL;

	snprintf(copy, sizeof(copy), "%s", avail);
	json_arr_begin(j, "available_clocksources");
	for (char *s = strtok_r(copy, " ", &save); s;
	     s = strtok_r(NULL, " ", &save))
		json_str(j, NULL, s);
	json_arr_end(j);
}

void bench_print_json(FILE *f, const struct bench_report *b,
		      const struct bench_verdict *v)
{
	struct json j;

	json_init(&j, f, true);
	json_obj_begin(&j, NULL);
	json_str(&j, "clocksource", b->clocksource[0] ? b->clocksource : NULL);
	json_available(&j, b->available);
	json_bool(&j, "vdso", b->vdso);
	json_str(&j, "libc", b->libc);
	json_double(&j, "duration_s", b->duration);
	if (b->cpu >= 0)
		json_i64(&j, "cpu", b->cpu);
	else
		json_null(&j, "cpu");
	json_bool(&j, "fork", b->fork);
	json_bool(&j, "syscalls_counted", b->counted);
	json_arr_begin(&j, "rows");
	for (size_t i = 0; i < b->n; i++)
		json_row(&j, &b->rows[i]);
	json_arr_end(&j);
	json_verdict(&j, v);
	json_obj_end(&j);
	json_finish(&j);
}
