// SPDX-License-Identifier: GPL-2.0
/*
 * doctor -p PID: what a process's TZ, TZDIR and C library mean for the
 * cost of its time calls.  The rules are glibc's and musl's (see NOTES):
 * glibc re-checks /etc/localtime on every localtime(), mktime() and
 * tzset() when TZ is unset; musl loads the zone once; TZ set to anything
 * stops the re-check.
 */
#include <ctype.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "doctor_proc.h"
#include "procfs.h"
#include "util.h"

#define MAPS_MAX	(8u << 20)
#define SCAN_MAX	(64u << 20)
#define SCAN_CHUNK	65536

const char *libc_kind_name(enum libc_kind k)
{
	switch (k) {
	case LIBC_KIND_GLIBC: return "glibc";
	case LIBC_KIND_MUSL: return "musl";
	case LIBC_KIND_NONE: return "none";
	default: return "unknown";
	}
}

/*
 * Looks for needle in a file; on a hit copies the printable bytes that
 * follow it into out.  Bounded: a process's files are not ours to trust.
 */
static bool file_find(const char *path, const char *needle, char *out,
		      size_t size)
{
	size_t nlen = strlen(needle), keep = nlen + size, have = 0, total = 0;
	char *buf = xcalloc(1, SCAN_CHUNK + keep + 1);
	bool found = false;
	ssize_t r;
	int fd;

	fd = open_regular(path);
	if (fd < 0)
		goto out;
	while (!found && total < SCAN_MAX &&
	       (r = read(fd, buf + have, SCAN_CHUNK)) > 0) {
		char *hit;

		have += r;
		total += r;
		buf[have] = '\0';
		hit = memmem(buf, have, needle, nlen);
		if (hit && (size_t)(buf + have - hit) >= nlen + size - 1) {
			size_t i = 0;
			const char *s = hit + nlen;

			while (i + 1 < size && isgraph((unsigned char)s[i])) {
				out[i] = s[i];
				i++;
			}
			out[i] = '\0';
			found = true;
		} else if (have > keep) {
			/* Keep a tail so that a needle across chunks is seen. */
			memmove(buf, buf + have - keep, keep);
			have = keep;
		}
	}
	close(fd);
out:
	free(buf);
	return found;
}

static void classify_mapping(struct proc_facts *p, const char *path,
			     bool *loader)
{
	const char *base = path_base_name(path);

	if (runtime_of_path(base) != RUNTIME_UNKNOWN &&
	    p->runtime == RUNTIME_UNKNOWN)
		p->runtime = runtime_of_path(base);
	if (!strncmp(base, "ld-linux", 8))
		*loader = true;
	if (!strncmp(base, "ld-musl-", 8) || !strncmp(base, "libc.musl-", 10)) {
		*loader = true;
		p->libc = LIBC_KIND_MUSL;
	} else if (!strncmp(base, "libc.so.6", 9) ||
		   !strncmp(base, "libc-2.", 7)) {
		p->libc = LIBC_KIND_GLIBC;
	} else {
		return;
	}
	snprintf(p->libc_path, sizeof(p->libc_path), "%s", path);
}

/* A static binary carries its C library; its error strings betray it. */
static void identify_static(struct proc_facts *p)
{
	char path[64], ver[32];

	snprintf(path, sizeof(path), "/proc/%d/exe", p->pid);
	if (file_find(path, "glibc", ver, 2))
		p->libc = LIBC_KIND_GLIBC;
	else if (file_find(path, "musl", ver, 2))
		p->libc = LIBC_KIND_MUSL;
}

struct mappings {
	struct proc_facts *p;
	bool loader;		/* a dynamic loader is mapped */
	bool any;		/* a file is mapped at all */
};

static void classify_file(const struct maps_entry *e, void *ctx)
{
	struct mappings *m = ctx;

	m->any = true;
	classify_mapping(m->p, e->path, &m->loader);
}

static void read_libc(struct proc_facts *p)
{
	char path[64 + sizeof(p->libc_path)];
	struct mappings m = { .p = p };

	if (maps_for_each_file(p->pid, MAPS_MAX, classify_file, &m))
		return;
	if (!m.any) {
		p->libc = LIBC_KIND_NONE;	/* a kernel thread maps no file */
		return;
	}
	p->is_static = !m.loader;
	if (p->is_static)
		identify_static(p);
	/* Through /proc/PID/root: the process may live in another mount ns. */
	if (p->libc == LIBC_KIND_GLIBC && p->libc_path[0]) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", p->pid,
			 p->libc_path);
		file_find(path, "release version ", p->libc_version,
			  sizeof(p->libc_version));
		/* "2.36." ends a sentence. */
		size_t n = strlen(p->libc_version);
		if (n && p->libc_version[n - 1] == '.')
			p->libc_version[n - 1] = '\0';
	}
}

int proc_facts_read(pid_t pid, struct proc_facts *p)
{
	char *exe;

	memset(p, 0, sizeof(*p));
	p->pid = pid;
	if (!proc_exists(pid) || proc_comm(pid, p->comm, sizeof(p->comm)))
		return -1;
	p->tz_state = proc_getenv(pid, "TZ", &p->tz);
	p->tzdir_state = proc_getenv(pid, "TZDIR", &p->tzdir);
	exe = proc_exe(pid);
	p->runtime = runtime_of_path(exe);
	free(exe);
	read_libc(p);
	return 0;
}

void proc_facts_free(struct proc_facts *p)
{
	free(p->tz);
	free(p->tzdir);
	p->tz = p->tzdir = NULL;
}

const char *proc_tz_finding(const struct proc_facts *p, enum check_status *st)
{
	*st = CHECK_OK;
	if (p->libc == LIBC_KIND_NONE)
		return "no C library mapped: nothing to say about TZ";
	if (p->libc == LIBC_KIND_MUSL)
		return "musl loads the zone once and never re-checks it: "
		       "TZ makes no difference to the cost";
	if (p->tz_state < 0) {
		*st = CHECK_WARN;
		return "environ unreadable: TZ unknown (run doctor as root)";
	}
	if (p->tz_state > 0)
		return "TZ set: localtime() never re-checks the zone file";
	*st = CHECK_WARN;
	if (p->libc == LIBC_KIND_GLIBC)
		return "TZ unset: every localtime() will stat /etc/localtime "
		       "(start it with TZ=:/etc/localtime)";
	return "TZ unset and the C library unknown: if it is glibc, every "
	       "localtime() will stat /etc/localtime";
}

const char *proc_runtime_finding(const struct proc_facts *p,
				 enum check_status *st, char *buf, size_t size)
{
	const char *name = runtime_name(p->runtime);

	*st = CHECK_OK;
	if (!name || p->runtime == RUNTIME_C || p->libc != LIBC_KIND_GLIBC ||
	    p->tz_state < 0)
		return NULL;
	if (p->tz_state > 0) {
		snprintf(buf, size, "%s, TZ set: none of its calls re-checks "
			 "the zone file", name);
		return buf;
	}
	*st = CHECK_WARN;
	snprintf(buf, size, "%s, TZ unset: %s", name,
		 runtime_tz_fix(p->runtime));
	return buf;
}

static void env_line(struct checks *c, const char *name, int state,
		     const char *val)
{
	if (state < 0) {
		check_add(c, name, CHECK_WARN, "unknown (environ unreadable)");
		return;
	}
	if (!state) {
		check_add(c, name, CHECK_OK, "unset");
		return;
	}
	check_add(c, name, CHECK_OK, "%s", val);
}

void doctor_process_checks(struct checks *c, const struct proc_facts *p)
{
	enum check_status st;
	const char *finding;

	check_add(c, "process", CHECK_OK, "%d (%s)", p->pid, p->comm);
	env_line(c, "process TZ", p->tz_state, p->tz);
	env_line(c, "process TZDIR", p->tzdir_state, p->tzdir);
	check_add(c, "process libc", CHECK_OK, "%s%s%s%s%s, %s",
		  libc_kind_name(p->libc), p->libc_version[0] ? " " : "",
		  p->libc_version, p->libc_path[0] ? " " : "", p->libc_path,
		  p->libc == LIBC_KIND_NONE ? "no mappings" :
		  p->is_static ? "statically linked" : "dynamically linked");
	char buf[512];

	finding = proc_tz_finding(p, &st);
	check_add(c, "process finding", st, "%s", finding);
	finding = proc_runtime_finding(p, &st, buf, sizeof(buf));
	if (finding)
		check_add(c, "process runtime", st, "%s", finding);
}
