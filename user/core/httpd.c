// SPDX-License-Identifier: GPL-2.0
/*
 * GET and HEAD /metrics over HTTP/1.x.  Whoever can reach the port is
 * untrusted: each request is read into a fixed buffer, only its first
 * line and Accept header are looked at, a client that is slow to send or
 * to read is dropped at its deadline, and the connections one peer (and
 * all of them) may hold are capped (httpd.h), so idle or stuck clients
 * cost the tracer nothing and keep no scraper out.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>

#include "httpd.h"
#include "util.h"

static int parse_port(const char *s)
{
	uint64_t v;

	if (parse_u64(s, 1, 65535, &v))
		return -1;
	return (int)v;
}

static int set_v4(struct sockaddr_storage *sa, socklen_t *len,
		  const char *host, int port)
{
	struct sockaddr_in *in = (struct sockaddr_in *)sa;

	in->sin_family = AF_INET;
	in->sin_port = htons(port);
	if (!*host || !strcmp(host, "localhost"))
		host = "127.0.0.1";
	*len = sizeof(*in);
	return inet_pton(AF_INET, host, &in->sin_addr) == 1 ? 0 : -1;
}

static int set_v6(struct sockaddr_storage *sa, socklen_t *len,
		  const char *host, int port)
{
	struct sockaddr_in6 *in6 = (struct sockaddr_in6 *)sa;

	in6->sin6_family = AF_INET6;
	in6->sin6_port = htons(port);
	*len = sizeof(*in6);
	return inet_pton(AF_INET6, host, &in6->sin6_addr) == 1 ? 0 : -1;
}

int http_parse_addr(const char *s, struct sockaddr_storage *sa,
		    socklen_t *len)
{
	char host[64];
	const char *colon = strrchr(s, ':');
	int port;

	memset(sa, 0, sizeof(*sa));
	if (!colon)
		return (port = parse_port(s)) < 0 ? -1 : set_v4(sa, len, "", port);
	port = parse_port(colon + 1);
	if (port < 0 || (size_t)(colon - s) >= sizeof(host))
		return -1;
	memcpy(host, s, colon - s);
	host[colon - s] = '\0';
	if (host[0] != '[')
		return set_v4(sa, len, host, port);
	if (colon - s < 2 || host[colon - s - 1] != ']')
		return -1;
	host[colon - s - 1] = '\0';
	return set_v6(sa, len, host + 1, port);
}

static int watch(struct http_server *h, int op, int fd, uint32_t events)
{
	struct epoll_event ev = { .events = events, .data.fd = fd };

	return epoll_ctl(h->epfd, op, fd, &ev);
}

int http_listen(struct http_server *h, int epfd, const char *addr,
		http_body_fn body, void *ctx)
{
	struct sockaddr_storage sa;
	socklen_t len;
	int one = 1;

	memset(h, 0, sizeof(*h));
	h->epfd = epfd;
	h->body = body;
	h->ctx = ctx;
	h->lfd = -1;
	if (http_parse_addr(addr, &sa, &len)) {
		ct_warn("--listen: not an address and port: %s", addr);
		return -1;
	}
	h->lfd = socket(sa.ss_family, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC,
			0);
	if (h->lfd < 0 ||
	    setsockopt(h->lfd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one)) ||
	    bind(h->lfd, (struct sockaddr *)&sa, len) ||
	    listen(h->lfd, HTTP_CLIENTS_MAX) ||
	    watch(h, EPOLL_CTL_ADD, h->lfd, EPOLLIN)) {
		ct_warn("--listen %s: %s", addr, strerror(errno));
		http_close(h);
		return -1;
	}
	return 0;
}

void http_peer_of(const struct sockaddr_storage *sa, struct http_peer *p)
{
	const struct sockaddr_in6 *in6 = (const struct sockaddr_in6 *)sa;
	const struct sockaddr_in *in = (const struct sockaddr_in *)sa;

	memset(p, 0, sizeof(*p));
	if (sa->ss_family == AF_INET) {
		p->addr[10] = p->addr[11] = 0xff;
		memcpy(p->addr + 12, &in->sin_addr, 4);
	} else if (sa->ss_family == AF_INET6 &&
		   IN6_IS_ADDR_V4MAPPED(&in6->sin6_addr)) {
		memcpy(p->addr, &in6->sin6_addr, 16);
	} else if (sa->ss_family == AF_INET6) {
		/* One host of IPv6 most often has a whole /64 to pick from. */
		memcpy(p->addr, &in6->sin6_addr, 8);
	}
}

static void drop_client(struct http_server *h, struct http_client *c)
{
	epoll_ctl(h->epfd, EPOLL_CTL_DEL, c->fd, NULL);
	close(c->fd);
	free(c->req);
	free(c->resp);
	/* The last client takes the freed slot: epoll knows them by fd. */
	*c = h->clients[--h->nclients];
}

static struct http_client *find_client(struct http_server *h, int fd)
{
	for (size_t i = 0; i < h->nclients; i++)
		if (h->clients[i].fd == fd)
			return &h->clients[i];
	return NULL;
}

static size_t peer_count(const struct http_server *h,
			 const struct http_peer *p)
{
	size_t n = 0;

	for (size_t i = 0; i < h->nclients; i++)
		n += !memcmp(&h->clients[i].peer, p, sizeof(*p));
	return n;
}

/* The peer holding the most connections (the first such). */
static const struct http_peer *busiest_peer(const struct http_server *h)
{
	const struct http_peer *best = NULL;
	size_t most = 0;

	for (size_t i = 0; i < h->nclients; i++) {
		size_t n = peer_count(h, &h->clients[i].peer);

		if (n > most) {
			most = n;
			best = &h->clients[i].peer;
		}
	}
	return best;
}

static void read_request(struct http_server *h, struct http_client *c);

/*
 * What p's waiting connections sent since: a request that has come is
 * answered now.  Backwards: a drop moves the last client into the slot.
 */
static void read_peer(struct http_server *h, const struct http_peer *p)
{
	for (size_t i = h->nclients; i-- > 0;) {
		struct http_client *c = &h->clients[i];

		if (!c->resp && !memcmp(&c->peer, p, sizeof(*p)))
			read_request(h, c);
	}
}

/* One that sent nothing goes before one that sent part; then the older. */
static bool idler(const struct http_client *a, const struct http_client *b)
{
	if ((a->req_len == 0) != (b->req_len == 0))
		return a->req_len == 0;
	return a->since_ns < b->since_ns;
}

/* The connection of p to replace: still reading its head, the idlest. */
static struct http_client *victim_of(struct http_server *h,
				     const struct http_peer *p)
{
	struct http_client *v = NULL;

	for (size_t i = 0; i < h->nclients; i++) {
		struct http_client *c = &h->clients[i];

		if (c->resp || memcmp(&c->peer, p, sizeof(*p)))
			continue;
		if (!v || idler(c, v))
			v = c;
	}
	return v;
}

/*
 * Room for one more connection of peer p: its idlest one goes when it
 * holds HTTP_PEER_MAX, the busiest peer's when all slots are taken.
 */
static bool make_room(struct http_server *h, const struct http_peer *p)
{
	const struct http_peer *from = p;
	struct http_peer busiest;
	struct http_client *victim;

	if (peer_count(h, p) < HTTP_PEER_MAX && h->nclients < HTTP_CLIENTS_MAX)
		return true;
	if (peer_count(h, p) < HTTP_PEER_MAX) {
		busiest = *busiest_peer(h);
		from = &busiest;
	}
	read_peer(h, from);
	if (peer_count(h, p) < HTTP_PEER_MAX && h->nclients < HTTP_CLIENTS_MAX)
		return true;
	victim = victim_of(h, from);
	if (!victim)
		return false;
	drop_client(h, victim);
	return true;
}

/* false: nothing more in the backlog. */
static bool accept_client(struct http_server *h)
{
	struct sockaddr_storage sa;
	socklen_t salen = sizeof(sa);
	struct http_client *c;
	struct http_peer peer;
	int fd;

	fd = accept4(h->lfd, (struct sockaddr *)&sa, &salen,
		     SOCK_NONBLOCK | SOCK_CLOEXEC);
	if (fd < 0)
		return errno == ECONNABORTED || errno == EINTR;
	http_peer_of(&sa, &peer);
	if (!make_room(h, &peer)) {
		close(fd);
		return true;
	}
	c = &h->clients[h->nclients];
	*c = (struct http_client){
		.fd = fd, .peer = peer, .since_ns = now_ns(),
		.req = xcalloc(1, HTTP_REQUEST_MAX),
	};
	h->nclients++;
	if (watch(h, EPOLL_CTL_ADD, fd, EPOLLIN)) {
		drop_client(h, c);
		return true;
	}
	/* A scraper most often sent its request with the connection. */
	read_request(h, c);
	return true;
}

/* Case-insensitive search for an Accept header's media type. */
static bool accepts_openmetrics(const char *head)
{
	for (const char *l = strchr(head, '\n'); l; l = strchr(l + 1, '\n')) {
		const char *eol = strchr(l + 1, '\n');
		size_t n = eol ? (size_t)(eol - l - 1) : strlen(l + 1);
		char line[512];

		if (strncasecmp(l + 1, "accept:", 7))
			continue;
		snprintf(line, sizeof(line), "%.*s", (int)n, l + 1);
		return strstr(line, "application/openmetrics-text") != NULL;
	}
	return false;
}

int http_route(const char *req, size_t len, bool *prom_text)
{
	char head[HTTP_REQUEST_MAX + 1];
	const char *target, *sp;

	if (len > HTTP_REQUEST_MAX || memchr(req, '\0', len))
		return 400;
	memcpy(head, req, len);
	head[len] = '\0';
	sp = strchr(head, ' ');
	if (!sp || sp == head)
		return 400;
	if (!(sp - head == 3 && !strncmp(head, "GET", 3)) &&
	    !(sp - head == 4 && !strncmp(head, "HEAD", 4)))
		return 405;
	target = sp + 1;
	sp = strchr(target, ' ');
	if (!sp || strncmp(sp + 1, "HTTP/1.", 7))
		return 400;
	if (strncmp(target, "/metrics", 8) ||
	    (target[8] != ' ' && target[8] != '?'))
		return 404;
	*prom_text = !accepts_openmetrics(head);
	return 200;
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	default: return "Bad Request";
	}
}

/* The answer to c, whole in memory; HEAD: its header alone. */
static void set_response(struct http_server *h, struct http_client *c,
			 int status, bool prom_text)
{
	bool head_only = status == 200 && !strncmp(c->req, "HEAD ", 5);
	size_t blen = 0;
	char *body = NULL, *resp;
	const char *type = "text/plain; charset=utf-8";
	int n;

	if (status == 200)
		body = h->body(h->ctx, prom_text, &blen);
	if (status == 200 && !prom_text)
		type = "application/openmetrics-text; version=1.0.0; charset=utf-8";
	else if (status == 200)
		type = "text/plain; version=0.0.4; charset=utf-8";
	if (!body) {
		body = xstrdup(status == 200 ? "" : reason(status));
		blen = strlen(body);
	}
	n = asprintf(&resp, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\n"
		     "Content-Length: %zu\r\n%sConnection: close\r\n\r\n",
		     status, reason(status), type, blen,
		     status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (n < 0) {
		free(body);
		drop_client(h, c);
		return;
	}
	if (head_only)
		blen = 0;
	c->resp = xrealloc(resp, n + blen + 1, 1);
	memcpy(c->resp + n, body, blen);
	c->resp_len = n + blen;
	free(body);
}

static void send_some(struct http_server *h, struct http_client *c)
{
	while (c->resp_off < c->resp_len) {
		ssize_t n = send(c->fd, c->resp + c->resp_off,
				 c->resp_len - c->resp_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			watch(h, EPOLL_CTL_MOD, c->fd, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			drop_client(h, c);
			return;
		}
		c->resp_off += n;
	}
	h->served++;
	shutdown(c->fd, SHUT_WR);
	drop_client(h, c);
}

static void read_request(struct http_server *h, struct http_client *c)
{
	bool prom_text = false;
	ssize_t n;
	char *end;

	n = recv(c->fd, c->req + c->req_len, HTTP_REQUEST_MAX - c->req_len, 0);
	if (n < 0 && (errno == EAGAIN || errno == EINTR))
		return;
	if (n <= 0) {
		drop_client(h, c);
		return;
	}
	c->req_len += n;
	end = memmem(c->req, c->req_len, "\r\n\r\n", 4);
	if (!end && c->req_len == HTTP_REQUEST_MAX) {
		set_response(h, c, 431, false);
	} else if (!end) {
		return;
	} else {
		int status = http_route(c->req, end - c->req, &prom_text);

		set_response(h, c, status, prom_text);
	}
	if (c->resp)
		send_some(h, c);
}

bool http_handle(struct http_server *h, int fd, uint32_t events)
{
	struct http_client *c;

	if (fd < 0)
		return false;
	if (fd == h->lfd) {
		for (int i = 0; i < HTTP_ACCEPT_BURST && accept_client(h); i++)
			;
		return true;
	}
	c = find_client(h, fd);
	if (!c)
		return false;
	if (events & (EPOLLERR | EPOLLHUP) && !(events & EPOLLIN))
		drop_client(h, c);
	else if (c->resp)
		send_some(h, c);
	else
		read_request(h, c);
	return true;
}

/* The deadline of a client: its head within 2 s, all of it within 5 s. */
static bool past_deadline(const struct http_client *c, uint64_t now)
{
	return now - c->since_ns >= (c->resp ? HTTP_CLIENT_NS : HTTP_HEAD_NS);
}

void http_expire(struct http_server *h)
{
	uint64_t now = now_ns();

	/* Backwards: a drop moves the last client into the freed slot. */
	for (size_t i = h->nclients; i-- > 0;) {
		if (!past_deadline(&h->clients[i], now))
			continue;
		drop_client(h, &h->clients[i]);
	}
}

void http_close(struct http_server *h)
{
	while (h->nclients)
		drop_client(h, &h->clients[h->nclients - 1]);
	if (h->lfd >= 0) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, h->lfd, NULL);
		close(h->lfd);
	}
	h->lfd = -1;
}
