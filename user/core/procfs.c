// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "procfs.h"
#include "util.h"

int environ_lookup(const char *buf, size_t len, const char *name,
		   const char **val, size_t *val_len)
{
	size_t nlen = strlen(name), i = 0;

	while (i < len) {
		const char *entry = buf + i;
		const char *end = memchr(entry, '\0', len - i);
		size_t elen = end ? (size_t)(end - entry) : len - i;

		if (elen > nlen && !memcmp(entry, name, nlen) &&
		    entry[nlen] == '=') {
			*val = entry + nlen + 1;
			*val_len = elen - nlen - 1;
			return 1;
		}
		i += elen + 1;
	}
	return 0;
}

static const char *parse_hex(const char *s, uint64_t *v)
{
	uint64_t x = 0;
	int digits = 0;

	for (; isxdigit((unsigned char)*s) && digits < 17; s++, digits++) {
		int c = tolower((unsigned char)*s);

		x = x << 4 | (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
	}
	if (!digits || digits > 16)
		return NULL;
	*v = x;
	return s;
}

static const char *skip_field(const char *s)
{
	while (*s && *s != ' ')
		s++;
	while (*s == ' ')
		s++;
	return s;
}

/* "fd:01 1234": major and minor in hex, the inode in decimal. */
static const char *parse_dev(const char *s, struct maps_entry *e)
{
	uint64_t major, minor;
	char *end;

	s = parse_hex(s, &major);
	if (!s || *s++ != ':')
		return NULL;
	s = parse_hex(s, &minor);
	if (!s || *s != ' ' || major > 0xfff || minor > 0xfffff)
		return NULL;
	e->dev_major = major;
	e->dev_minor = minor;
	while (*s == ' ')
		s++;
	if (!isdigit((unsigned char)*s))
		return NULL;
	errno = 0;
	e->ino = strtoull(s, &end, 10);
	if (errno || end == s)
		return NULL;
	return s;
}

int maps_parse_line(const char *line, struct maps_entry *e)
{
	const char *s = line;

	memset(e, 0, sizeof(*e));
	s = parse_hex(s, &e->start);
	if (!s || *s++ != '-')
		return -1;
	s = parse_hex(s, &e->end);
	if (!s || *s++ != ' ' || e->end < e->start)
		return -1;
	if (strlen(s) < 5)
		return -1;
	e->exec = s[2] == 'x';
	s = skip_field(s);		/* perms */
	s = parse_hex(s, &e->offset);
	if (!s || *s != ' ')
		return -1;
	s = skip_field(s);		/* offset */
	s = parse_dev(s, e);
	if (!s)
		return -1;
	s = skip_field(s);		/* inode */
	if (*s && *s != '\n')
		e->path = s;
	return 0;
}

char *read_file(const char *path, size_t max, size_t *len)
{
	int fd = open_regular(path);
	size_t cap = 4096, n = 0;
	char *buf;

	if (fd < 0)
		return NULL;
	buf = xcalloc(1, cap + 1);
	for (;;) {
		ssize_t r;

		if (n == cap) {
			if (cap >= max)
				break;
			cap = cap * 2 < max ? cap * 2 : max;
			buf = xrealloc(buf, cap + 1, 1);
		}
		r = read(fd, buf + n, cap - n);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			break;
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	if (len)
		*len = n;
	return buf;
}

int maps_for_each_file(pid_t pid, size_t max, maps_file_fn fn, void *ctx)
{
	char path[64], *buf, *line, *save = NULL;
	struct maps_entry e;

	snprintf(path, sizeof(path), "/proc/%d/maps", pid);
	buf = read_file(path, max, NULL);
	if (!buf)
		return -1;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save))
		if (!maps_parse_line(line, &e) && e.path && e.path[0] == '/')
			fn(&e, ctx);
	free(buf);
	return 0;
}

int proc_getenv(pid_t pid, const char *name, char **value)
{
	char path[64], *buf;
	const char *val;
	size_t len, vlen;
	int found;

	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	buf = read_file(path, PROCFS_ENVIRON_MAX, &len);
	if (!buf)
		return -1;
	/* A kernel thread or a zombie has an empty environ: unknown. */
	if (!len) {
		free(buf);
		return -1;
	}
	found = environ_lookup(buf, len, name, &val, &vlen);
	if (found && value)
		*value = strndup(val, vlen < 4096 ? vlen : 4096);
	free(buf);
	return found;
}

int proc_comm(pid_t pid, char *buf, size_t size)
{
	char path[64], *s;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	s = read_file(path, 64, &len);
	if (!s)
		return -1;
	if (len && s[len - 1] == '\n')
		s[--len] = '\0';
	snprintf(buf, size, "%s", s);
	free(s);
	return 0;
}

char *proc_exe(pid_t pid)
{
	char path[64], target[PATH_MAX];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/exe", pid);
	n = readlink(path, target, sizeof(target) - 1);
	if (n <= 0)
		return NULL;
	target[n] = '\0';
	return xstrdup(target);
}

pid_t proc_ppid(pid_t pid)
{
	char path[64], *buf, *s;
	int ppid = -1;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	buf = read_file(path, 4096, NULL);
	if (!buf)
		return -1;
	/* comm may hold spaces and ')': the last ')' ends it. */
	s = strrchr(buf, ')');
	if (s && sscanf(s + 1, " %*c %d", &ppid) != 1)
		ppid = -1;
	free(buf);
	return ppid;
}

/* The last number of the line that starts with NAME: (NSpid lists one per level). */
static pid_t status_field(const char *buf, size_t len, const char *name)
{
	char key[16], line[256];
	int klen = snprintf(key, sizeof(key), "\n%s:", name);
	const char *p = memmem(buf, len, key, klen), *eol;
	long last = 0;
	char *tok, *save = NULL;

	if (!p)
		return 0;
	p += klen;
	eol = memchr(p, '\n', buf + len - p);
	snprintf(line, sizeof(line), "%.*s",
		 (int)((eol ? eol : buf + len) - p), p);
	for (tok = strtok_r(line, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		last = strtol(tok, NULL, 10);
	return last > 0 && last <= INT32_MAX ? (pid_t)last : 0;
}

pid_t status_tgid(const char *buf, size_t len)
{
	return status_field(buf, len, "Tgid");
}

pid_t status_nspid(const char *buf, size_t len)
{
	return status_field(buf, len, "NSpid");
}

static pid_t proc_status_field(pid_t pid, pid_t (*field)(const char *, size_t))
{
	char path[64], *buf;
	size_t len;
	pid_t v;

	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	buf = read_file(path, 1 << 16, &len);
	if (!buf)
		return -1;
	v = field(buf, len);
	free(buf);
	return v;
}

pid_t proc_tgid(pid_t pid)
{
	return proc_status_field(pid, status_tgid);
}

pid_t proc_nspid(pid_t pid)
{
	return proc_status_field(pid, status_nspid);
}

bool proc_exists(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

void proc_for_each(void (*fn)(pid_t pid, void *ctx), void *ctx)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return;
	while ((de = readdir(d))) {
		uint64_t pid;

		if (!parse_u64(de->d_name, 1, INT_MAX, &pid))
			fn(pid, ctx);
	}
	closedir(d);
}

int proc_stat_parse(const char *buf, char *state, unsigned long *flags)
{
	/* comm may hold spaces and ')': the last ')' ends it. */
	const char *s = strrchr(buf, ')');

	if (!s || sscanf(s + 1, " %c %*d %*d %*d %*d %*d %lu", state,
			 flags) != 2)
		return -1;
	return 0;
}

int proc_state(pid_t pid, char *state, unsigned long *flags)
{
	char path[64], *buf;
	int err;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	buf = read_file(path, 4096, NULL);
	if (!buf)
		return -1;
	err = proc_stat_parse(buf, state, flags);
	free(buf);
	return err;
}
