/* SPDX-License-Identifier: GPL-2.0 */
/*
 * OpenMetrics out of a session: into the -o file at each interval and at
 * the end, and over HTTP (--listen) whenever a scraper asks.  Both read
 * the same per-group counters (user/core/metrics.c), fed from the maps.
 */
#ifndef CLOCKTRACE_EXPORTER_H
#define CLOCKTRACE_EXPORTER_H

#include <stdbool.h>

#include "cli.h"
#include "httpd.h"
#include "metrics.h"
#include "model.h"
#include "report_file.h"
#include "tracer.h"

struct exporter {
	struct metrics metrics;
	struct http_server http;	/* --listen */
	const struct opts *opts;
	struct tracer *tracer;
	/* top: each scrape reads the maps into a model of its own. */
	bool trace_all;
	/* Else the session's model is brought up to date, the counters too. */
	void (*collect)(void *ctx);
	void *ctx;
};

/* The series' grouping from the options, and --listen on epfd. */
int exporter_start(struct exporter *x, int epfd);
/* Into a file each exposition replaces the last (a snapshot, not a log). */
void exporter_write_file(struct exporter *x, struct report_file *r,
			 const struct model *m);
void exporter_close(struct exporter *x);

#endif /* CLOCKTRACE_EXPORTER_H */
