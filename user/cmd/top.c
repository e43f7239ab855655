// SPDX-License-Identifier: GPL-2.0
/*
 * clocktrace top: every process on the machine, ranked by time-zone file
 * accesses and kernel clock reads per second.  The kernel maps are LRU
 * hashes and each refresh builds a fresh model, so memory stays bounded
 * however many processes come and go.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "attach_mode.h"
#include "clocks.h"
#include "escape.h"
#include "json.h"
#include "procfs.h"
#include "cmds.h"
#include "report.h"
#include "top_group.h"
#include "util.h"

struct top_state {
	struct model prev;		/* at the last refresh */
	uint64_t last_ns;
	unsigned int refreshes;		/* so far (-n) */
};

static uint64_t minus(uint64_t cur, uint64_t prev)
{
	/* An LRU eviction restarts a counter: count from zero then. */
	return cur >= prev ? cur - prev : cur;
}

static uint64_t clockid_delta(const struct proc_model *p,
			      const struct proc_model *old, size_t i)
{
	for (size_t j = 0; old && j < old->nclockids; j++)
		if (old->clockids[j].clockid == p->clockids[i].clockid)
			return minus(p->clockids[i].count, old->clockids[j].count);
	return p->clockids[i].count;
}

static void fill_row(struct top_row *r, const struct proc_model *p,
		     const struct proc_model *old, double secs)
{
	uint64_t best = 0, clock = 0;

	memset(r, 0, sizeof(*r));
	r->pid = p->pid;
	r->top_clock = INT32_MIN;
	r->tz = minus(proc_tz_accesses(p), old ? proc_tz_accesses(old) : 0);
	for (int k = 0; k < KIND_FIRST_TZ; k++)
		clock += minus(p->kinds[k].count, old ? old->kinds[k].count : 0);
	for (size_t i = 0; i < p->nclockids; i++) {
		uint64_t n = clockid_delta(p, old, i);

		if (clock_is_cpu(p->clockids[i].clockid))
			r->cpu_clock += n;
		else if (clock_vdso_capable(p->clockids[i].clockid))
			r->vdso_clock += n;
		if (n > best) {
			best = n;
			r->top_clock = p->clockids[i].clockid;
		}
	}
	r->tz_rate = r->tz / secs;
	r->clock_rate = clock / secs;
}

static int by_rate(const void *a, const void *b)
{
	const struct top_row *x = a, *y = b;

	if (x->tz_rate != y->tz_rate)
		return x->tz_rate > y->tz_rate ? -1 : 1;
	if (x->clock_rate != y->clock_rate)
		return x->clock_rate > y->clock_rate ? -1 : 1;
	return (x->pid > y->pid) - (x->pid < y->pid);
}

static size_t rank(const struct model *cur, const struct model *prev,
		   double secs, struct top_row **rows)
{
	size_t n = 0;

	*rows = xcalloc(cur->nprocs, sizeof(**rows));
	for (size_t i = 0; i < cur->nprocs; i++) {
		struct top_row *r = &(*rows)[n];

		fill_row(r, &cur->procs[i], model_find(prev, cur->procs[i].pid),
			 secs);
		if (r->tz_rate > 0 || r->clock_rate > 0)
			n++;
	}
	qsort(*rows, n, sizeof(**rows), by_rate);
	return n;
}

/* The finding in a few words, from the same thresholds as the report. */
static const char *short_finding(const struct top_row *r, int tz_state,
				 const char *clocksource, double secs)
{
	if (r->tz / secs >= TZ_REPEAT_MIN && tz_state == ENV_UNSET)
		return "TZ unset: re-stats tz file";
	if (r->tz / secs >= TZ_REPEAT_MIN)
		return "re-reads tz files";
	if (r->cpu_clock / secs >= CPU_CLOCK_RATE_MIN)
		return "CPU-time clock syscalls";
	if (r->vdso_clock / secs >= CLOCK_SYSCALL_MIN)
		return clocksource_has_vdso(clocksource) ?
		       "clock syscalls bypass vDSO" : "no vDSO: clock syscalls";
	return "";
}

/* comm and tz as the process has them: each renderer escapes them. */
struct row_facts {
	char comm[32];
	char *tz;		/* TZ's value, or NULL */
	int tz_state;
	char clock[48];
	const char *finding;
};

static void row_facts(struct row_facts *f, const struct top_row *r,
		      const char *clocksource, double secs)
{
	char name[48];
	int found;

	snprintf(f->comm, sizeof(f->comm), "?");
	proc_comm(r->pid, f->comm, sizeof(f->comm));
	f->tz = NULL;
	found = proc_getenv(r->pid, "TZ", &f->tz);
	f->tz_state = found < 0 ? ENV_UNKNOWN : found ? ENV_SET : ENV_UNSET;
	if (r->top_clock == INT32_MIN)
		snprintf(f->clock, sizeof(f->clock), "-");
	else
		snprintf(f->clock, sizeof(f->clock), "%s",
			 clock_name(r->top_clock, name, sizeof(name)));
	f->finding = short_finding(r, f->tz_state, clocksource, secs);
}

static void print_groups_screen(struct session *s, FILE *out,
				const struct top_row *rows, size_t n,
				unsigned int top)
{
	struct top_group *g;
	size_t ng = top_group_rows(rows, n, session_opts(s)->top_by, &g);

	top_groups_print_screen(out, session_opts(s)->top_by, g, ng, top);
	top_groups_free(g, ng);
}

static void print_screen(struct session *s, FILE *out,
			 const struct top_row *rows, size_t n, double secs)
{
	unsigned int top = session_opts(s)->top_n ? session_opts(s)->top_n : 20;
	bool tty = term_can_redraw(fileno(out));
	char stamp[32];
	time_t t = time(NULL);
	struct tm tm;

	localtime_r(&t, &tm);
	strftime(stamp, sizeof(stamp), "%H:%M:%S", &tm);
	if (tty)
		fputs("\033[H\033[2J", out);
	fprintf(out, "clocktrace top - %s, %zu active processes, "
		"clocksource %s, %llu lost\n", stamp, n,
		session_model(s)->clocksource[0] ? session_model(s)->clocksource : "?",
		(unsigned long long)model_lost(session_model(s)));
	if (session_opts(s)->top_by != TOP_BY_PROCESS) {
		print_groups_screen(s, out, rows, n, top);
		if (!tty)
			fputc('\n', out);
		fflush(out);
		return;
	}
	fprintf(out, "%8s %-16s %10s %10s %-26s %-16s %s\n", "PID", "COMM",
		"TZ/s", "CLOCK/s", "TOP CLOCK", "TZ", "FINDING");
	for (size_t i = 0; i < n && i < top; i++) {
		struct row_facts f = {};
		char *comm, *tz;

		row_facts(&f, &rows[i], session_model(s)->clocksource, secs);
		comm = escape_dup(f.comm, ESCAPE_TEXT);
		tz = f.tz_state == ENV_SET ? escape_dup(f.tz, ESCAPE_TEXT) :
		     xstrdup(f.tz_state == ENV_UNSET ? "(unset)" : "?");
		fprintf(out, "%8d %-16s %10.0f %10.0f %-26s %-16s %s\n",
			rows[i].pid, comm, rows[i].tz_rate,
			rows[i].clock_rate, f.clock, tz, f.finding);
		free(comm);
		free(tz);
		free(f.tz);
	}
	if (!tty)
		fputc('\n', out);
	fflush(out);
}

/* top --by: one object per group; its header is the per-process one. */
static void print_groups_json(struct session *s, struct json *j,
			      const struct top_row *rows, size_t n,
			      unsigned int top)
{
	struct top_group *g;
	size_t ng = top_group_rows(rows, n, session_opts(s)->top_by, &g);

	json_str(j, "by", session_opts(s)->top_by == TOP_BY_CGROUP ? "cgroup" :
		 "container");
	top_groups_json(j, session_opts(s)->top_by, g, ng, top);
	json_obj_end(j);
	json_finish(j);
	top_groups_free(g, ng);
}

static void print_json_line(struct session *s, FILE *out,
			    const struct top_row *rows, size_t n, double secs)
{
	unsigned int top = session_opts(s)->top_n ? session_opts(s)->top_n : 20;
	struct json j;

	json_init(&j, out, false);
	json_obj_begin(&j, NULL);
	json_u64(&j, "time", realtime_ns() / 1000000000ull);
	json_double(&j, "interval_s", secs);
	json_str(&j, "clocksource", session_model(s)->clocksource);
	json_u64(&j, "lost_events", model_lost(session_model(s)));
	json_str(&j, "attach", attach_mode_name(session_model(s)->kernel.attach));
	if (session_opts(s)->top_by != TOP_BY_PROCESS) {
		print_groups_json(s, &j, rows, n, top);
		return;
	}
	json_arr_begin(&j, "processes");
	for (size_t i = 0; i < n && i < top; i++) {
		struct row_facts f = {};

		row_facts(&f, &rows[i], session_model(s)->clocksource, secs);
		json_obj_begin(&j, NULL);
		json_i64(&j, "pid", rows[i].pid);
		json_str(&j, "comm", f.comm);
		json_double(&j, "tz_per_s", rows[i].tz_rate);
		json_double(&j, "clock_per_s", rows[i].clock_rate);
		json_str(&j, "top_clock", rows[i].top_clock == INT32_MIN ?
			 NULL : f.clock);
		if (f.tz_state == ENV_UNKNOWN)
			json_null(&j, "tz_env");
		else
			json_str(&j, "tz_env", f.tz_state == ENV_SET ? f.tz : "");
		json_str(&j, "finding", f.finding);
		json_obj_end(&j);
		free(f.tz);
	}
	json_arr_end(&j);
	json_obj_end(&j);
	json_finish(&j);
}

/* What a refresh shows, beside the model. */
struct top_view {
	struct session *s;
	const struct top_row *rows;
	size_t n;
	double secs;
};

static void screen_view(FILE *out, const struct model *m, void *ctx)
{
	const struct top_view *v = ctx;

	(void)m;
	print_screen(v->s, out, v->rows, v->n, v->secs);
}

static void json_view(FILE *out, const struct model *m, void *ctx)
{
	const struct top_view *v = ctx;

	(void)m;
	print_json_line(v->s, out, v->rows, v->n, v->secs);
}

static const struct session_views top_views = {
	.text = screen_view,
	.json = json_view,
};

static void refresh(struct session *s, struct top_state *st)
{
	struct model cur = { .mode = "top" }, *m = session_model(s);
	struct top_view v = { .s = s };
	struct top_row *rows;
	uint64_t now = now_ns();
	double secs = (now - st->last_ns) / 1e9;

	st->last_ns = now;
	tracer_collect(session_tracer(s), &cur);
	memcpy(m->losses, cur.losses, sizeof(cur.losses));
	cur.start_ns = m->start_ns;
	cur.end_ns = now;
	memcpy(cur.clocksource, m->clocksource, sizeof(cur.clocksource));
	v.n = rank(&cur, &st->prev, secs > 0 ? secs : 1e-9, &rows);
	v.rows = rows;
	v.secs = secs;
	session_show(s, &cur, &top_views, &v, true);
	free(rows);
	model_free(&st->prev);
	st->prev = cur;
}

static int prepare_top(struct session *s, int argc, char **argv)
{
	int err = targets_resolve_cgroup(session_opts(s));

	(void)argc;
	(void)argv;
	if (!err)
		err = session_open_outputs(s, stdout);
	return err ? err : SESSION_GO_ON;
}

/* Nothing to seed: the kernel side traces every process. */
static int seed_top(struct session *s)
{
	struct top_state *st = session_state(s);

	session_model(s)->start_ns = now_ns();
	st->last_ns = session_model(s)->start_ns;
	return 0;
}

/* A refresh; the session is over after -n COUNT of them. */
static bool top_tick(struct session *s)
{
	struct top_state *st = session_state(s);
	unsigned int n = session_opts(s)->iterations;

	refresh(s, st);
	return n && ++st->refreshes >= n;
}

static void cleanup_top(struct session *s)
{
	struct top_state *st = session_state(s);

	model_free(&st->prev);
}

static int finish_top(struct session *s)
{
	return session_commit_report(s);
}

static const struct session_ops top_ops = {
	.mode = MODE_TOP,
	.trace_all = true,
	.state_size = sizeof(struct top_state),
	.prepare = prepare_top,
	.seed = seed_top,
	.tick = top_tick,
	.finish = finish_top,
	.cleanup = cleanup_top,
};

int cmd_top(int argc, char **argv)
{
	return session_main(&top_ops, argc, argv);
}
