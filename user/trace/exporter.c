// SPDX-License-Identifier: GPL-2.0
/* OpenMetrics out of a session (exporter.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "exporter.h"
#include "procfs.h"
#include "report.h"
#include "targets.h"

/* top's maps hold no names nor places: the live ones are read here. */
static void name_live_procs(const struct exporter *x, struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		if (!p->comm[0])
			proc_comm(p->pid, p->comm, sizeof(p->comm));
		if (x->opts->metrics_by >= METRICS_BY_CGROUP && !p->cgroup)
			targets_learn_place(p);
	}
}

static void render(struct exporter *x, FILE *f, bool prometheus_text)
{
	struct om_opts o = {
		.by = x->opts->metrics_by,
		.prometheus_text = prometheus_text,
	};

	report_openmetrics(f, &x->metrics.groups, &o);
}

/*
 * Each interval and the final report replace what the file held (renamed
 * into place whole), so a textfile collector never reads two expositions,
 * nor half of one.
 */
void exporter_write_file(struct exporter *x, struct report_file *r,
			 const struct model *m)
{
	FILE *f = report_file_stream(r);

	if (x->trace_all)
		name_live_procs(x, (struct model *)m);
	metrics_update(&x->metrics, m);
	if (!f)
		return;
	render(x, f, false);
	report_file_snapshot(r);
}

/* A scrape: the maps as they are now, then the exposition in memory. */
static char *scrape(void *ctx, bool prometheus_text, size_t *len)
{
	struct exporter *x = ctx;
	struct model fresh = { .mode = "top" };
	char *buf = NULL;
	FILE *f;

	tracer_poll_events(x->tracer);
	if (x->trace_all) {
		tracer_collect(x->tracer, &fresh);
		name_live_procs(x, &fresh);
		metrics_update(&x->metrics, &fresh);
		model_free(&fresh);
	} else {
		x->collect(x->ctx);
	}
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	render(x, f, prometheus_text);
	if (fclose(f)) {
		free(buf);
		return NULL;
	}
	return buf;
}

int exporter_start(struct exporter *x, int epfd)
{
	x->metrics.by = x->opts->metrics_by;
	if (!x->opts->listen)
		return 0;
	return http_listen(&x->http, epfd, x->opts->listen, scrape, x);
}

void exporter_close(struct exporter *x)
{
	http_close(&x->http);
	metrics_free(&x->metrics);
}
