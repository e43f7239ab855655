/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A small HTTP responder for GET and HEAD /metrics, run from the session's
 * epoll loop.  Many clients at once, each a small state machine (reading
 * its request head, then sending its answer), none of them ever making the
 * loop wait.  Whoever can reach the port is untrusted, so what they may
 * hold is bounded:
 *   - HTTP_HEAD_NS to send the whole request head, HTTP_CLIENT_NS from
 *     the connection to the last byte of the answer taken: a client that
 *     is slower is dropped;
 *   - HTTP_PEER_MAX connections of one peer address (IPv6: its /64), and
 *     HTTP_CLIENTS_MAX in all.  A connection past a cap replaces the
 *     oldest of that peer (or of the peer holding most) still reading its
 *     head: idle connections cannot keep a scrape out, whoever opens
 *     them.  Before one is chosen, each of that peer's is read once
 *     more, so a scraper whose request has come is answered, not
 *     replaced; one that sent nothing goes before one that sent part of
 *     its head, and one being answered is never replaced.
 */
#ifndef CLOCKTRACE_HTTPD_H
#define CLOCKTRACE_HTTPD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/socket.h>

#define HTTP_REQUEST_MAX	4096
#define HTTP_HEAD_NS		(2ull * 1000000000ull)
#define HTTP_CLIENT_NS		(5ull * 1000000000ull)
#define HTTP_PEER_MAX		32
#define HTTP_CLIENTS_MAX	128
/* Connections taken from the backlog per wake-up: the loop has more to do. */
#define HTTP_ACCEPT_BURST	32

/* The exposition, malloc'ed, in the format the scraper asked for. */
typedef char *(*http_body_fn)(void *ctx, bool prometheus_text, size_t *len);

/* One peer: an IPv4 address as ::ffff:a.b.c.d, an IPv6 one cut to /64. */
struct http_peer {
	uint8_t addr[16];
};

struct http_client {
	int fd;
	struct http_peer peer;
	uint64_t since_ns;		/* accepted */
	char *req;			/* HTTP_REQUEST_MAX bytes */
	size_t req_len;
	char *resp;			/* NULL: the head is still coming */
	size_t resp_len;
	size_t resp_off;
};

struct http_server {
	int epfd;
	int lfd;			/* -1: not listening */
	struct http_client clients[HTTP_CLIENTS_MAX];
	size_t nclients;
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
 * What to answer a whole request head: 200 (GET or HEAD /metrics), 400,
 * 404 or 405.  *prom_text says whether the scraper wants the Prometheus
 * text format.
 */
int http_route(const char *req, size_t len, bool *prom_text);
/* The peer a connection from sa counts against. */
void http_peer_of(const struct sockaddr_storage *sa, struct http_peer *p);

#endif /* CLOCKTRACE_HTTPD_H */
