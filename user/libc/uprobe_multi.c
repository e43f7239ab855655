// SPDX-License-Identifier: GPL-2.0
/* uprobe-multi links by hand: see uprobe_multi.h for why. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>

#include "uprobe_multi.h"

/*
 * The link_create part of union bpf_attr as Linux 6.6 lays it out for
 * uprobe_multi.  Our uapi headers predate it, so it is spelled out here and
 * padded to the size of the kernel's union (it rejects non-zero tails only).
 */
struct uprobe_multi_attr {
	uint32_t prog_fd;
	uint32_t target_fd;
	uint32_t attach_type;
	uint32_t flags;
	uint64_t path;
	uint64_t offsets;
	uint64_t ref_ctr_offsets;
	uint64_t cookies;
	uint32_t cnt;
	uint32_t multi_flags;
	uint32_t pid;
	uint32_t pad[17];
};

static int link_create(const struct uprobe_multi_attr *attr)
{
	int fd = syscall(SYS_bpf, BPF_LINK_CREATE, attr, sizeof(*attr));

	return fd < 0 ? -errno : fd;
}

int uprobe_multi_attach(int prog_fd, const char *path, const uint64_t *offsets,
			const uint64_t *cookies, uint32_t cnt,
			enum uprobe_link_kind kind, pid_t pid)
{
	struct uprobe_multi_attr attr;

	memset(&attr, 0, sizeof(attr));
	attr.prog_fd = prog_fd;
	attr.attach_type = kind == UPROBE_LINK_SESSION ?
			   UPROBE_SESSION_ATTACH_TYPE : UPROBE_MULTI_ATTACH_TYPE;
	attr.path = (uintptr_t)path;
	attr.offsets = (uintptr_t)offsets;
	attr.cookies = (uintptr_t)cookies;
	attr.cnt = cnt;
	attr.multi_flags = kind == UPROBE_LINK_RETURN ? UPROBE_MULTI_F_RETURN : 0;
	attr.pid = (uint32_t)pid;
	return link_create(&attr);
}

/* A program that does nothing, of the type uprobe-multi links take. */
static int load_probe_prog(enum uprobe_link_kind kind)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	LIBBPF_OPTS(bpf_prog_load_opts, opts,
		    .expected_attach_type = kind == UPROBE_LINK_SESSION ?
			UPROBE_SESSION_ATTACH_TYPE : UPROBE_MULTI_ATTACH_TYPE);

	return bpf_prog_load(BPF_PROG_TYPE_KPROBE, "ct_umulti_probe", "GPL",
			     insns, 2, &opts);
}

/*
 * A kernel that knows uprobe-multi looks the path up before anything is
 * attached, and fails with ENOENT on a path that does not exist; older
 * kernels reject the attach type itself (EINVAL, or EOPNOTSUPP without
 * uprobes).
 */
int uprobe_multi_try(enum uprobe_link_kind kind, const char **step)
{
	const char *missing = "/nonexistent/clocktrace-uprobe-multi-probe";
	uint64_t offset = 0;
	int prog = load_probe_prog(kind), link;

	*step = "program load";
	if (prog < 0)
		return -errno;
	*step = "link create";
	link = uprobe_multi_attach(prog, missing, &offset, NULL, 1, kind, 0);
	if (link >= 0)
		close(link);
	close(prog);
	return link == -ENOENT ? 0 : link >= 0 ? -EEXIST : link;
}

static bool probe_kernel(enum uprobe_link_kind kind)
{
	const char *step;

	return !uprobe_multi_try(kind, &step);
}

bool uprobe_multi_supported(void)
{
	static int supported = -1;

	/* CLOCKTRACE_NO_UPROBE_MULTI=1: the classic fallback, to measure it. */
	if (supported < 0)
		supported = !getenv("CLOCKTRACE_NO_UPROBE_MULTI") &&
			    probe_kernel(UPROBE_LINK_ENTRY);
	return supported;
}

bool uprobe_session_supported(void)
{
	static int supported = -1;

	if (supported < 0)
		supported = !getenv("CLOCKTRACE_NO_UPROBE_SESSION") &&
			    uprobe_multi_supported() &&
			    probe_kernel(UPROBE_LINK_SESSION);
	return supported;
}

static void *close_fd(void *arg)
{
	close((int)(intptr_t)arg);
	return NULL;
}

void uprobe_multi_close_all(int *fds, size_t n)
{
	pthread_t *threads = calloc(n, sizeof(*threads));
	bool *started = calloc(n, sizeof(*started));

	for (size_t i = 0; i < n; i++) {
		if (fds[i] < 0)
			continue;
		/* Without a thread (or memory for one), close it here. */
		started[i] = threads && started &&
			     !pthread_create(&threads[i], NULL, close_fd,
					     (void *)(intptr_t)fds[i]);
		if (!started[i])
			close(fds[i]);
	}
	for (size_t i = 0; i < n; i++) {
		if (started && started[i])
			pthread_join(threads[i], NULL);
		fds[i] = -1;
	}
	free(threads);
	free(started);
}
