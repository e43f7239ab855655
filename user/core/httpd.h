/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP responder for GET /metrics, run from the session's epoll
 * loop: one client at a time, non-blocking, a deadline per client, the
 * connection closed after each answer.  It never makes the loop wait.
 */
#ifndef CLOCKTRACE_HTTPD_H
#define CLOCKTRACE_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define HTTP_REQUEST_MAX	4096
#define HTTP_CLIENT_NS		(5ull * 1000000000ull)

/* The exposition, malloc'ed, in the format the scraper asked for. */
typedef char *(*http_body_fn)(void *ctx, bool prometheus_text, size_t *len);

struct http_server {
	int epfd;
	int lfd;			/* -1: not listening */
	int cfd;			/* the client being served, -1: none */
	uint64_t deadline_ns;
	char req[HTTP_REQUEST_MAX];
	size_t req_len;
	char *resp;
	size_t resp_len;
	size_t resp_off;
	http_body_fn body;
	void *ctx;
	uint64_t served;		/* answers sent whole */
};

/* "PORT", ":PORT", "HOST:PORT" or "[V6]:PORT"; numeric hosts; no host: loopback. */
int http_parse_addr(const char *s, struct sockaddr_storage *sa,
		    socklen_t *len);
/* Fails with one line on stderr. */
int http_listen(struct http_server *h, int epfd, const char *addr,
		http_body_fn body, void *ctx);
/* fd was ready; false when it is not one of ours. */
bool http_handle(struct http_server *h, int fd, uint32_t events);
/* Drops a client past its deadline: call on every wake-up. */
void http_expire(struct http_server *h);
void http_close(struct http_server *h);

/*
 * What to answer a whole request head: 200, 400, 404 or 405.  *prom_text
 * says whether the scraper wants the Prometheus text format.
 */
int http_route(const char *req, size_t len, bool *prom_text);

#endif /* CLOCKTRACE_HTTPD_H */
