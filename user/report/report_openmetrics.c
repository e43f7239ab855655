// SPDX-License-Identifier: GPL-2.0
/*
 * Counters and histograms in the OpenMetrics text format, for the
 * collectors a fleet already runs (node_exporter's textfile collector,
 * a Prometheus scrape).  Histograms are per syscall kind over all traced
 * processes: per-pid histograms would explode a time series database.
 * The model given holds groups (user/core/metrics.c), by comm unless told.
 */
#include <string.h>

#include "clocks.h"
#include "container.h"
#include "container_names.h"
#include "escape.h"
#include "hist.h"
#include "report.h"
#include "util.h"

/*
 * Label values in the escaped form of escape.h, whole: a cut would merge
 * two series.
 */
static void label(FILE *f, const char *name, const char *value, bool more)
{
	fprintf(f, "%s=\"", name);
	escape_print_quoted(f, value, strlen(value));
	fprintf(f, "\"%s", more ? "," : "");
}

static const struct container_names no_names;

/*
 * A group's pod: its name and namespace from the runtime's files, its UID
 * from the cgroup path or those files ("": not known).  The UID keeps two
 * pods of one name (one deleted, one made again) two series.
 */
static void pod_labels(FILE *f, const struct container_names *n,
		       const char *uid, bool more)
{
	label(f, "pod", n->pod, true);
	label(f, "namespace", n->namespace, true);
	label(f, "pod_uid", uid, more);
}

/*
 * A container group: its name (as kubectl or podman ps shows it) and its
 * id, short as the runtimes print it ("": not in a container), and its
 * pod's.  A name not found is "", never the id passed off as one.
 */
static void container_labels(FILE *f, const struct proc_model *p, bool more)
{
	const struct container_names *n = p->names ? p->names : &no_names;
	char uid[POD_UID_LEN + 1] = "", id[13];

	snprintf(id, sizeof(id), "%.12s", p->container);
	if (!p->cgroup || !pod_uid(p->cgroup, uid))
		memcpy(uid, n->pod_uid, sizeof(uid));
	label(f, "container", n->name, true);
	label(f, "container_id", id, true);
	pod_labels(f, n, uid, more);
}

/*
 * A group is a comm, a cgroup, a container, a pod, or one process when
 * series are kept per pid.
 */
static void proc_labels(FILE *f, const struct proc_model *p,
			const struct om_opts *o, bool more)
{
	char pid[16];

	if (o->by == METRICS_BY_CGROUP) {
		label(f, "cgroup", p->cgroup ? p->cgroup : "?", more);
		return;
	}
	if (o->by == METRICS_BY_CONTAINER) {
		container_labels(f, p, more);
		return;
	}
	if (o->by == METRICS_BY_POD) {
		/* Its key, the pod's UID, is kept in container[]. */
		pod_labels(f, p->names ? p->names : &no_names, p->container,
			   more);
		return;
	}
	if (o->by == METRICS_BY_PID) {
		snprintf(pid, sizeof(pid), "%d", p->pid);
		label(f, "pid", pid, true);
	}
	label(f, "comm", p->comm, more);
}

/*
 * The Prometheus text format (0.0.4) names a counter family with its
 * _total suffix and has no UNIT line and no EOF.
 */
static void family(FILE *f, const struct om_opts *o, const char *name,
		   const char *type, const char *help)
{
	const char *suffix = o->prometheus_text && !strcmp(type, "counter") ?
			     "_total" : "";

	fprintf(f, "# TYPE %s%s %s\n# HELP %s%s %s\n", name, suffix, type,
		name, suffix, help);
}

static void tz_accesses(FILE *f, const struct model *m,
			const struct om_opts *o)
{
	family(f, o, "clocktrace_tz_accesses", "counter",
	       "Time-zone file accesses that reached the kernel.");
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (size_t k = 0; k < p->npaths; k++) {
			fputs("clocktrace_tz_accesses_total{", f);
			proc_labels(f, p, o, true);
			label(f, "op", kind_name(p->paths[k].kind), true);
			label(f, "path", p->paths[k].path, false);
			fprintf(f, "} %llu\n",
				(unsigned long long)p->paths[k].count);
		}
	}
}

static void clock_syscalls(FILE *f, const struct model *m,
			   const struct om_opts *o)
{
	char name[64];

	family(f, o, "clocktrace_clock_syscalls", "counter",
	       "Clock system calls that entered the kernel.");
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (int k = 0; k < KIND_FIRST_TZ; k++) {
			if (!p->kinds[k].count)
				continue;
			fputs("clocktrace_clock_syscalls_total{", f);
			proc_labels(f, p, o, true);
			label(f, "syscall", kind_name(k), false);
			fprintf(f, "} %llu\n",
				(unsigned long long)p->kinds[k].count);
		}
	}
	family(f, o, "clocktrace_clock_reads", "counter",
	       "clock_gettime system calls by clock id.");
	for (size_t i = 0; i < m->nprocs; i++) {
		const struct proc_model *p = &m->procs[i];

		for (size_t c = 0; c < p->nclockids; c++) {
			fputs("clocktrace_clock_reads_total{", f);
			proc_labels(f, p, o, true);
			label(f, "clock", clock_name(p->clockids[c].clockid, name,
						     sizeof(name)), false);
			fprintf(f, "} %llu\n",
				(unsigned long long)p->clockids[c].count);
		}
	}
}

static void latency_histograms(FILE *f, const struct model *m,
			       const struct om_opts *o)
{
	family(f, o, "clocktrace_syscall_latency_seconds", "histogram",
	       "Latency of the counted syscalls, all traced processes.");
	if (!o->prometheus_text)
		fputs("# UNIT clocktrace_syscall_latency_seconds seconds\n", f);
	for (int k = 0; k < KIND_MAX; k++) {
		__u64 slots[HIST_SLOTS] = {};
		uint64_t count = 0, sum_ns = 0, cum = 0;
		const char *kind = kind_name(k);

		for (size_t i = 0; i < m->nprocs; i++) {
			const struct latency *l = &m->procs[i].kinds[k];

			count += l->count;
			sum_ns += l->total_ns;
			for (int s = 0; s < HIST_SLOTS; s++)
				slots[s] += l->hist[s];
		}
		if (!count)
			continue;
		for (int s = 0; s < HIST_SLOTS - 1; s++) {
			cum += slots[s];
			fprintf(f, "clocktrace_syscall_latency_seconds_bucket{"
				"syscall=\"%s\",le=\"%.9g\"} %llu\n", kind,
				(hist_slot_hi(s) + 1) / 1e9,
				(unsigned long long)cum);
		}
		fprintf(f, "clocktrace_syscall_latency_seconds_bucket{syscall="
			"\"%s\",le=\"+Inf\"} %llu\n", kind,
			(unsigned long long)count);
		fprintf(f, "clocktrace_syscall_latency_seconds_count{syscall="
			"\"%s\"} %llu\n", kind, (unsigned long long)count);
		fprintf(f, "clocktrace_syscall_latency_seconds_sum{syscall="
			"\"%s\"} %.9f\n", kind, sum_ns / 1e9);
	}
}

static void losses(FILE *f, const struct model *m, const struct om_opts *o)
{
	family(f, o, "clocktrace_lost_events", "counter",
	       "Events that could not be recorded, by reason.");
	for (int i = 0; i < LOSS_MAX; i++)
		fprintf(f, "clocktrace_lost_events_total{reason=\"%s\"} %llu\n",
			loss_name(i), (unsigned long long)m->losses[i]);
}

void report_openmetrics(FILE *f, const struct model *m,
			const struct om_opts *o)
{
	tz_accesses(f, m, o);
	clock_syscalls(f, m, o);
	latency_histograms(f, m, o);
	losses(f, m, o);
	if (!o->prometheus_text)
		fputs("# EOF\n", f);
	fflush(f);
}
