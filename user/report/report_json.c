// SPDX-License-Identifier: GPL-2.0
/* The JSON report.  Field names are a contract with scripts: keep them. */
#include <stdlib.h>
#include <string.h>

#include "clocks.h"
#include "compare.h"
#include "container_names.h"
#include "hist.h"
#include "json.h"
#include "report.h"
#include "roles.h"
#include "util.h"

static void json_hist(struct json *j, const __u64 *slots)
{
	json_arr_begin(j, "hist");
	for (int i = 0; i < HIST_SLOTS; i++) {
		if (!slots[i])
			continue;
		json_obj_begin(j, NULL);
		json_u64(j, "lo_ns", hist_slot_lo(i));
		json_u64(j, "hi_ns", hist_slot_hi(i));
		json_u64(j, "count", slots[i]);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_latency(struct json *j, const char *key,
			 const struct latency *l)
{
	json_obj_begin(j, key);
	json_u64(j, "count", l->count);
	json_u64(j, "errors", l->errors);
	json_u64(j, "total_ns", l->total_ns);
	json_u64(j, "min_ns", l->count ? l->min_ns : 0);
	json_u64(j, "max_ns", l->max_ns);
	json_hist(j, l->hist);
	json_obj_end(j);
}

static void json_tz(struct json *j, const struct proc_model *p)
{
	json_obj_begin(j, "tz");
	json_u64(j, "accesses", proc_tz_accesses(p));
	json_u64(j, "errors", proc_tz_errors(p));
	/* Not under any path: another thread rewrote it during the call. */
	json_u64(j, "path_changed", p->tz_changed);
	json_obj_begin(j, "paths");
	for (size_t i = 0; i < p->npaths; i++) {
		const char *path = p->paths[i].path;
		bool seen = false;

		for (size_t k = 0; k < i; k++)
			seen |= !strcmp(p->paths[k].path, path);
		if (seen)
			continue;
		json_obj_begin(j, path);
		for (size_t k = i; k < p->npaths; k++)
			if (!strcmp(p->paths[k].path, path))
				json_u64(j, kind_name(p->paths[k].kind),
					 p->paths[k].count);
		json_obj_end(j);
	}
	json_obj_end(j);
	json_obj_begin(j, "latency");
	for (int k = KIND_FIRST_TZ; k < KIND_MAX; k++)
		if (p->kinds[k].count)
			json_latency(j, kind_name(k), &p->kinds[k]);
	json_obj_end(j);
	json_obj_end(j);
}

static const char *libc_state_name(enum libc_state st)
{
	return st == LIBC_STATE_PROBED ? "probed" : st == LIBC_STATE_ABSENT ? "absent" :
	       "unknown";
}

static void json_libc_fn(struct json *j, const struct model *m,
			 const struct libc_stats *s, uint32_t f)
{
	uint8_t probe = m->libc.probe[f];
	const char *reason = libc_unobservable_reason(probe);

	json_obj_begin(j, libc_fn_name(f));
	json_bool(j, "observable", !reason);
	if (reason) {
		json_null(j, "count");
		json_str(j, "reason", reason);
	} else {
		json_u64(j, "count", s->calls);
		json_bool(j, "timed", libc_fn_timed(f));
		/* What a call costs: see the README, "When to use --libc". */
		json_str(j, "probe_insn", probe & LIBC_PROBE_STEPPED ?
			 "single-stepped" : "emulated");
		json_u64(j, "total_ns", s->lat.total_ns);
		/* total_ns, min_ns, max_ns, hist: probe traps included. */
		json_bool(j, "latency_includes_probe", true);
		json_u64(j, "min_ns", s->lat.count ? s->lat.min_ns : 0);
		json_u64(j, "max_ns", s->lat.max_ns);
		json_hist(j, s->lat.hist);
	}
	if (probe & LIBC_PROBE_ALIAS)
		json_bool(j, "alias", true);
	json_obj_begin(j, "kernel");
	json_u64(j, "tz_accesses", s->tz_accesses);
	json_u64(j, "clock_syscalls", s->clock_syscalls);
	json_u64(j, "kernel_ns", s->kernel_ns);
	json_obj_end(j);
	json_obj_end(j);
}

static void json_callers(struct json *j, const struct proc_model *p)
{
	json_arr_begin(j, "callers");
	for (size_t i = 0; i < p->ncallers; i++) {
		const struct caller_stat *c = &p->callers[i];
		char addr[32];

		snprintf(addr, sizeof(addr), "0x%llx", (unsigned long long)c->addr);
		json_obj_begin(j, NULL);
		json_str(j, "function", libc_fn_name(c->fn));
		json_str(j, "caller", c->symbol ? c->symbol : addr);
		json_str(j, "module", c->module);
		json_str(j, "address", addr);
		json_str(j, "build_id", c->build_id);
		if (c->has_offset)
			json_u64(j, "offset", c->offset);
		else
			json_null(j, "offset");
		json_str(j, "source", c->source);
		json_u64(j, "count", c->count);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* --lang-depth: the frames that called the site, innermost first. */
static void json_lang_stack(struct json *j, const struct lang_site_stat *s)
{
	json_arr_begin(j, "stack");
	for (uint32_t i = 0; i < s->nouter; i++) {
		const struct lang_site_stat *o = &s->outer[i];

		json_obj_begin(j, NULL);
		json_str(j, "file", o->file);
		json_u64(j, "line", o->line);
		json_str(j, "function", o->func);
		json_str(j, "class", o->cls);
		json_obj_end(j);
	}
	json_arr_end(j);
	json_bool(j, "stack_cut", s->stack_cut);
}

static void json_lang_sites(struct json *j, const struct proc_model *p)
{
	json_arr_begin(j, "lang_sites");
	for (size_t i = 0; i < p->nlang_sites; i++) {
		const struct lang_site_stat *s = &p->lang_sites[i];

		json_obj_begin(j, NULL);
		json_str(j, "lang", lang_name(s->lang));
		json_str(j, "file", s->file);
		json_u64(j, "line", s->line);
		json_str(j, "function", s->func);
		json_str(j, "class", s->cls);
		json_str(j, "libc_function",
			 s->libc_fn ? libc_fn_name(s->libc_fn) : NULL);
		json_u64(j, "tz_accesses", s->tz_accesses);
		json_u64(j, "clock_syscalls", s->clock_syscalls);
		json_lang_stack(j, s);
		json_obj_end(j);
	}
	json_arr_end(j);
}

static void json_libc(struct json *j, const struct model *m,
		      const struct proc_model *p)
{
	json_str(j, "libc_state", libc_state_name(p->libc_state));
	json_str(j, "libc_path", p->libc_path);
	/* false: a library it used was probed late, calls before not seen */
	json_bool(j, "libc_complete", !p->libc_late);
	json_obj_begin(j, "libc");
	for (uint32_t f = 1; f < LIBC_FN_MAX && p->libc_state != LIBC_STATE_ABSENT;
	     f++) {
		const struct libc_stats *s = proc_libc(p, f);

		/* Every unobservable function is said so; others when called. */
		if (s->calls || libc_unobservable_reason(m->libc.probe[f]))
			json_libc_fn(j, m, s, f);
	}
	json_obj_end(j);
	json_callers(j, p);
}

static const char *or_null(const char *s)
{
	return s[0] ? s : NULL;
}

/*
 * What its container's runtime calls it and its pod; null: not known.
 * The pod's UID from the runtime, else from the cgroup path.
 */
static void json_container_names(struct json *j, const struct proc_model *p)
{
	const struct container_names none = {}, *n = p->names ? p->names : &none;
	char uid[POD_UID_LEN + 1] = "";

	if (n->pod_uid[0])
		memcpy(uid, n->pod_uid, sizeof(uid));
	else if (p->container[0] && p->cgroup && !pod_uid(p->cgroup, uid))
		uid[0] = '\0';
	json_str(j, "container_name", or_null(n->name));
	json_str(j, "pod", or_null(n->pod));
	json_str(j, "namespace", or_null(n->namespace));
	json_str(j, "pod_uid", or_null(uid));
}

static void json_proc(struct json *j, const struct model *m,
		      const struct proc_model *p)
{
	char buf[64];

	json_obj_begin(j, NULL);
	json_i64(j, "pid", p->pid);
	json_i64(j, "ppid", p->ppid);
	json_u64(j, "depth", p->depth);
	json_str(j, "comm", p->comm);
	json_str(j, "exe", p->exe);
	json_u64(j, "start_ns", p->start_ns > m->start_ns ?
		 p->start_ns - m->start_ns : 0);
	if (p->exited) {
		json_u64(j, "exit_ns", p->exit_ns > m->start_ns ?
			 p->exit_ns - m->start_ns : 0);
		json_i64(j, "exit_status", p->exit_status);
		json_u64(j, "cpu_ns", p->cpu_ns);
	} else {
		json_null(j, "exit_ns");
		json_null(j, "cpu_ns");
	}
	if (p->tz_state == ENV_UNKNOWN)
		json_null(j, "tz_env");
	else
		json_str(j, "tz_env", p->tz_state == ENV_SET ? p->tz : "");
	json_str(j, "cgroup", p->cgroup);
	json_str(j, "container", p->container[0] ? p->container : NULL);
	if (p->container_unverified[0])
		json_str(j, "container_unverified", p->container_unverified);
	json_container_names(j, p);
	if (p->nspid && p->nspid != p->pid)
		json_i64(j, "nspid", p->nspid);
	json_obj_begin(j, "clock");
	for (int k = 0; k < KIND_FIRST_TZ; k++)
		if (p->kinds[k].count)
			json_latency(j, kind_name(k), &p->kinds[k]);
	json_obj_end(j);
	json_obj_begin(j, "clock_ids");
	for (size_t i = 0; i < p->nclockids; i++)
		json_u64(j, clock_name(p->clockids[i].clockid, buf, sizeof(buf)),
			 p->clockids[i].count);
	json_obj_end(j);
	json_tz(j, p);
	if (m->libc_enabled)
		json_libc(j, m, p);
	if (m->lang_enabled)
		json_lang_sites(j, p);
	if (m->vdso_enabled)
		report_vdso_json_proc(j, m, p);
	json_obj_end(j);
}

static void json_cost(struct json *j, const struct finding_cost *c)
{
	if (!c->known) {
		json_null(j, "cost");
		return;
	}
	json_obj_begin(j, "cost");
	json_u64(j, "kernel_ns", c->kernel_ns);
	json_double(j, "per_second_ns", c->per_second_ns);
	json_double(j, "cpu_percent", c->cpu_percent);
	json_u64(j, "saving_ns", c->saving_ns);
	json_obj_end(j);
}

static void json_group(struct json *j, const char *key,
		       const struct role_group *g)
{
	json_obj_begin(j, key);
	json_u64(j, "processes", g->procs);
	json_u64(j, "tz_accesses", g->tz);
	json_u64(j, "clock_syscalls", g->clock);
	json_u64(j, "cpu_ns", g->cpu_ns);
	json_u64(j, "cpu_processes", g->cpu_procs);
	json_u64(j, "wall_ns", g->wall_ns);
	json_obj_end(j);
}

/* Parent versus children per process tree (roles.h), the busiest first. */
static void json_trees(struct json *j, const struct model *m)
{
	struct proc_trees trees;

	roles_build(m, &trees);
	json_arr_begin(j, "trees");
	for (size_t i = 0; i < trees.n; i++) {
		json_obj_begin(j, NULL);
		json_i64(j, "root", trees.v[i].root);
		json_i64(j, "forker", trees.v[i].forker);
		json_u64(j, "wrappers", trees.v[i].wrappers);
		json_group(j, "parent", &trees.v[i].parent);
		json_group(j, "children", &trees.v[i].children);
		json_obj_end(j);
	}
	json_arr_end(j);
	roles_free(&trees);
}

static void json_findings(struct json *j, const struct findings *fs)
{
	json_arr_begin(j, "findings");
	for (size_t i = 0; i < fs->n; i++) {
		const struct finding *f = &fs->v[i];

		json_obj_begin(j, NULL);
		json_str(j, "id", f->id);
		json_str(j, "severity", f->severity);
		json_arr_begin(j, "pids");
		for (size_t k = 0; k < f->npids; k++)
			json_i64(j, NULL, f->pids[k]);
		json_arr_end(j);
		json_str(j, "message", f->message);
		json_str(j, "fix", f->fix);
		json_str(j, "runtime", f->runtime);
		json_str(j, "runtime_fix", f->runtime_fix);
		json_arr_begin(j, "fixes");
		for (size_t k = 0; k < f->nfixes; k++) {
			json_obj_begin(j, NULL);
			json_str(j, "where", f->fixes[k].where);
			json_str(j, "how", f->fixes[k].how);
			json_obj_end(j);
		}
		json_arr_end(j);
		json_cost(j, &f->cost);
		json_str(j, "see", f->see);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/* A long attach: exited processes evicted from the maps, per comm. */
static void json_folded(struct json *j, const struct model *m)
{
	json_u64(j, "evicted_processes", m->evicted);
	json_arr_begin(j, "exited_groups");
	for (size_t i = 0; i < m->nfolded; i++) {
		const struct proc_model *g = &m->folded[i];

		json_obj_begin(j, NULL);
		json_str(j, "comm", g->comm);
		json_u64(j, "processes", g->folded);
		json_u64(j, "clock_syscalls", proc_clock_syscalls(g));
		json_tz(j, g);
		json_obj_end(j);
	}
	json_arr_end(j);
}

/*
 * Which variant of the BPF object ran: true where the kernel had it, and
 * where syscalls were seen ("tracepoint" or "fentry").
 */
static void json_kernel(struct json *j, const struct kernel_run *k)
{
	json_obj_begin(j, "kernel");
	json_str(j, "release", k->release[0] ? k->release : NULL);
	json_str(j, "attach", k->attach != ATTACH_AUTO ?
		 attach_mode_name(k->attach) : NULL);
	json_obj_begin(j, "features");
	for (int f = 0; f < BPF_FEAT_MAX; f++)
		json_bool(j, bpf_feature_name(f), k->features.has[f]);
	json_obj_end(j);
	json_obj_end(j);
}

/* Which mechanism followed each language's frames, and its cost. */
static void json_lang_run(struct json *j, const struct lang_run *r)
{
	json_obj_begin(j, "lang");
	json_obj_begin(j, "mechanism");
	json_str(j, "ruby", lang_ruby_mechanism(r));
	json_str(j, "python", lang_python_mechanism(r));
	json_obj_end(j);
	/* Measured on the reference machine; see README, "--lang". */
	json_obj_begin(j, "cost");
	json_str(j, "ruby_frame", "~1 us per kernel event, nothing per method call");
	json_str(j, "ruby", "two traps per C-method call (Time.now ~40x slower)");
	json_str(j, "python_frame", "~1 us per kernel event, nothing per line");
	json_str(j, "python_usdt", "one trap per line (~270x slower)");
	json_obj_end(j);
	json_u64(j, "usdt_files", r->files);
	json_u64(j, "python_frame_files", r->py_frame_files);
	json_u64(j, "python_frame_processes", r->py_frame_procs);
	json_u64(j, "ruby_frame_files", r->rb_frame_files);
	json_u64(j, "ruby_frame_processes", r->rb_frame_procs);
	json_u64(j, "python_lines_unknown", r->py_lines_unknown);
	json_obj_begin(j, "unattributed");
	for (int i = 0; i < LANG_UN_MAX; i++)
		json_u64(j, lang_unattributed_name(i), r->unattributed[i]);
	json_obj_end(j);
	json_obj_end(j);
}

/* How many containers the processes are in, and how many of them are nameless. */
static void json_container_counts(struct json *j, const struct model *m)
{
	size_t n = 0, unnamed = 0;
	const char **seen = xcalloc(m->nprocs + 1, sizeof(*seen));

	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];
		size_t k = 0;

		if (!p->container[0])
			continue;
		while (k < n && strcmp(seen[k], p->container))
			k++;
		if (k < n)
			continue;
		seen[n++] = p->container;
		unnamed += !container_names_known(p->names);
	}
	free(seen);
	json_obj_begin(j, "containers");
	json_u64(j, "seen", n);
	json_u64(j, "unnamed", unnamed);
	json_obj_end(j);
}

static void json_losses(struct json *j, const struct model *m)
{
	json_u64(j, "lost_events", model_lost(m));
	json_obj_begin(j, "losses");
	for (int i = 0; i < LOSS_MAX; i++)
		json_u64(j, loss_name(i), m->losses[i]);
	json_obj_end(j);
}

void report_json(FILE *f, const struct model *m, const struct findings *fs,
		 bool pretty)
{
	report_json_compare(f, m, fs, pretty, NULL);
}

void report_json_compare(FILE *f, const struct model *m,
			 const struct findings *fs, bool pretty,
			 const struct compare *cmp)
{
	struct json j;

	json_init(&j, f, pretty);
	json_obj_begin(&j, NULL);
	json_str(&j, "version", CLOCKTRACE_VERSION);
	json_str(&j, "mode", m->mode);
	json_arr_begin(&j, "command");
	for (int i = 0; i < m->ncommand; i++)
		json_str(&j, NULL, m->command[i]);
	json_arr_end(&j);
	json_u64(&j, "duration_ns", model_duration_ns(m));
	if (m->has_exit) {
		/* Exactly one of the two is set: a process exits or is killed. */
		json_obj_begin(&j, "exit");
		if (m->exit_signal) {
			json_null(&j, "code");
			json_i64(&j, "signal", m->exit_signal);
		} else {
			json_i64(&j, "code", m->exit_code);
			json_null(&j, "signal");
		}
		json_obj_end(&j);
	}
	json_str(&j, "clocksource", m->clocksource);
	if (m->libc_enabled)
		/* Whether --libc's probes trapped in other processes too. */
		json_str(&j, "libc_probes", m->libc.systemwide ? "systemwide" :
							       "per_process");
	json_kernel(&j, &m->kernel);
	json_u64(&j, "events", model_events(m));
	json_losses(&j, m);
	json_container_counts(&j, m);
	if (m->lang_enabled)
		json_lang_run(&j, &m->lang);
	if (m->vdso_enabled)
		report_vdso_json_run(&j, m);
	json_arr_begin(&j, "processes");
	for (size_t i = 0; i < m->nprocs; i++)
		json_proc(&j, m, &m->procs[i]);
	json_arr_end(&j);
	json_folded(&j, m);
	report_stacks_json(&j, m);
	json_trees(&j, m);
	json_findings(&j, fs);
	if (cmp)
		compare_json(&j, cmp);
	json_obj_end(&j);
	json_finish(&j);
}
