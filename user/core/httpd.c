// SPDX-License-Identifier: GPL-2.0
/*
 * GET /metrics over HTTP/1.x.  Whoever can reach the port is untrusted:
 * the request is read into a fixed buffer, only its first line and Accept
 * header are looked at, and a client that is slow to send or to read is
 * dropped at its deadline, so a stuck scraper costs the tracer nothing.
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
	h->cfd = -1;
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
	    bind(h->lfd, (struct sockaddr *)&sa, len) || listen(h->lfd, 16) ||
	    watch(h, EPOLL_CTL_ADD, h->lfd, EPOLLIN)) {
		ct_warn("--listen %s: %s", addr, strerror(errno));
		http_close(h);
		return -1;
	}
	return 0;
}

static void drop_client(struct http_server *h)
{
	if (h->cfd >= 0) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, h->cfd, NULL);
		close(h->cfd);
	}
	h->cfd = -1;
	free(h->resp);
	h->resp = NULL;
	h->req_len = h->resp_len = h->resp_off = 0;
	/* The next client may come in. */
	if (h->lfd >= 0)
		watch(h, EPOLL_CTL_MOD, h->lfd, EPOLLIN);
}

static void accept_client(struct http_server *h)
{
	int fd = accept4(h->lfd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);

	if (fd < 0)
		return;
	h->cfd = fd;
	h->deadline_ns = now_ns() + HTTP_CLIENT_NS;
	/* One at a time: the others wait in the backlog. */
	watch(h, EPOLL_CTL_MOD, h->lfd, 0);
	if (watch(h, EPOLL_CTL_ADD, fd, EPOLLIN))
		drop_client(h);
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
	if (sp - head != 3 || strncmp(head, "GET", 3))
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

static void set_response(struct http_server *h, int status, bool prom_text)
{
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
		     status == 405 ? "Allow: GET\r\n" : "");
	if (n < 0) {
		free(body);
		drop_client(h);
		return;
	}
	h->resp = xrealloc(resp, n + blen + 1, 1);
	memcpy(h->resp + n, body, blen);
	h->resp_len = n + blen;
	free(body);
}

static void send_some(struct http_server *h)
{
	while (h->resp_off < h->resp_len) {
		ssize_t n = send(h->cfd, h->resp + h->resp_off,
				 h->resp_len - h->resp_off, MSG_NOSIGNAL);

		if (n < 0 && errno == EAGAIN) {
			watch(h, EPOLL_CTL_MOD, h->cfd, EPOLLOUT);
			return;
		}
		if (n <= 0) {
			drop_client(h);
			return;
		}
		h->resp_off += n;
	}
	h->served++;
	shutdown(h->cfd, SHUT_WR);
	drop_client(h);
}

static void read_request(struct http_server *h)
{
	bool prom_text = false;
	ssize_t n;
	char *end;

	n = recv(h->cfd, h->req + h->req_len, sizeof(h->req) - h->req_len, 0);
	if (n < 0 && errno == EAGAIN)
		return;
	if (n <= 0) {
		drop_client(h);
		return;
	}
	h->req_len += n;
	end = memmem(h->req, h->req_len, "\r\n\r\n", 4);
	if (!end && h->req_len == sizeof(h->req)) {
		set_response(h, 431, false);
	} else if (!end) {
		return;
	} else {
		int status = http_route(h->req, end - h->req, &prom_text);

		set_response(h, status, prom_text);
	}
	if (h->resp)
		send_some(h);
}

bool http_handle(struct http_server *h, int fd, uint32_t events)
{
	if (fd < 0 || (fd != h->lfd && fd != h->cfd))
		return false;
	if (fd == h->lfd) {
		if (h->cfd < 0)
			accept_client(h);
	} else if (events & (EPOLLERR | EPOLLHUP) && !(events & EPOLLIN)) {
		drop_client(h);
	} else if (h->resp) {
		send_some(h);
	} else {
		read_request(h);
	}
	return true;
}

void http_expire(struct http_server *h)
{
	if (h->cfd >= 0 && now_ns() >= h->deadline_ns)
		drop_client(h);
}

void http_close(struct http_server *h)
{
	drop_client(h);
	if (h->lfd >= 0) {
		epoll_ctl(h->epfd, EPOLL_CTL_DEL, h->lfd, NULL);
		close(h->lfd);
	}
	h->lfd = -1;
}
