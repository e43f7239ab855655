// SPDX-License-Identifier: GPL-2.0
/*
 * OpenMetrics out of a session: into the -o file at each interval and at
 * the end, and over HTTP (--listen) whenever a scraper asks.  Both read
 * the same per-group counters (user/core/metrics.c), fed from the maps.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "report.h"
#include "session.h"
#include "util.h"

/* top's maps hold no names nor places: the live ones are read here. */
static void name_live_procs(struct session *s, struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		if (!p->comm[0])
			proc_comm(p->pid, p->comm, sizeof(p->comm));
		if (s->opts.metrics_by_cgroup && !p->cgroup)
			session_learn_proc_place(p);
	}
}

static void render(struct session *s, FILE *f, bool prometheus_text)
{
	struct om_opts o = {
		.pid_label = s->opts.metrics_by_pid,
		.cgroup_label = s->opts.metrics_by_cgroup,
		.prometheus_text = prometheus_text,
	};

	report_openmetrics(f, &s->metrics.groups, &o);
}

/*
 * OpenMetrics into a file is a snapshot, not a log: each interval and the
 * final report replace what the file held (renamed into place whole), so a
 * textfile collector never reads two expositions, nor half of one.
 */
void session_write_openmetrics(struct session *s, const struct model *m)
{
	FILE *f = report_file_stream(&s->report);

	if (s->ops->trace_all)
		name_live_procs(s, (struct model *)m);
	metrics_update(&s->metrics, m);
	if (!f)
		return;
	render(s, f, false);
	report_file_snapshot(&s->report);
}

/* A scrape: the maps as they are now, then the exposition in memory. */
static char *scrape(void *ctx, bool prometheus_text, size_t *len)
{
	struct session *s = ctx;
	struct model fresh = { .mode = "top" };
	char *buf = NULL;
	FILE *f;

	tracer_poll_events(&s->tracer);
	if (s->ops->trace_all) {
		tracer_collect(&s->tracer, &fresh);
		name_live_procs(s, &fresh);
		metrics_update(&s->metrics, &fresh);
		model_free(&fresh);
	} else {
		session_collect(s);
	}
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	render(s, f, prometheus_text);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int session_start_exporter(struct session *s)
{
	s->metrics.by = s->opts.metrics_by_pid ? METRICS_BY_PID :
			s->opts.metrics_by_cgroup ? METRICS_BY_CGROUP :
			METRICS_BY_COMM;
	if (!s->opts.listen)
		return 0;
	return http_listen(&s->http, s->epfd, s->opts.listen, scrape, s);
}
