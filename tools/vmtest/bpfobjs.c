// SPDX-License-Identifier: GPL-2.0
/*
 * bpfobjs - lists the BPF programs, maps and links the kernel holds, one
 * "KIND ID NAME" line each, straight from the bpf(2) id iterators.  The
 * guests of the kernel matrix have no bpftool; this is how they prove that
 * nothing of clocktrace's is left after it exits.  Built statically, with
 * no libbpf, so that it runs on every kernel and architecture of the matrix.
 *   bpfobjs runs   "prog ID NAME RUN_CNT" per program instead (the runs
 *                  counted while kernel.bpf_stats_enabled is 1)
 */
#include <errno.h>
#include <linux/bpf.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

struct kind {
	const char *name;
	int next_cmd;
	int fd_cmd;
};

static const struct kind kinds[] = {
	{ "prog", BPF_PROG_GET_NEXT_ID, BPF_PROG_GET_FD_BY_ID },
	{ "map", BPF_MAP_GET_NEXT_ID, BPF_MAP_GET_FD_BY_ID },
	{ "link", BPF_LINK_GET_NEXT_ID, BPF_LINK_GET_FD_BY_ID },
};

static long sys_bpf(int cmd, union bpf_attr *attr)
{
	return syscall(__NR_bpf, cmd, attr, sizeof(*attr));
}

static int with_runs;

/* The object's name; links have none before 6.x, so only its type is named. */
static void object_name(const struct kind *k, int fd, char *buf, size_t size)
{
	union {
		struct bpf_prog_info prog;
		struct bpf_map_info map;
		struct bpf_link_info link;
	} info;
	union bpf_attr attr;

	memset(&info, 0, sizeof(info));
	memset(&attr, 0, sizeof(attr));
	attr.info.bpf_fd = fd;
	attr.info.info_len = sizeof(info);
	attr.info.info = (unsigned long)&info;
	snprintf(buf, size, "?");
	if (sys_bpf(BPF_OBJ_GET_INFO_BY_FD, &attr) < 0)
		return;
	if (k->next_cmd == BPF_PROG_GET_NEXT_ID && with_runs)
		snprintf(buf, size, "%.*s %llu", BPF_OBJ_NAME_LEN, info.prog.name,
			 (unsigned long long)info.prog.run_cnt);
	else if (k->next_cmd == BPF_PROG_GET_NEXT_ID)
		snprintf(buf, size, "%.*s", BPF_OBJ_NAME_LEN, info.prog.name);
	else if (k->next_cmd == BPF_MAP_GET_NEXT_ID)
		snprintf(buf, size, "%.*s", BPF_OBJ_NAME_LEN, info.map.name);
	else
		snprintf(buf, size, "type%u", info.link.type);
}

/* Prints every object of kind K; -1 when the kernel refused to list them. */
static int list_kind(const struct kind *k)
{
	union bpf_attr attr;
	unsigned int id = 0;
	char name[64];
	int fd;

	for (;;) {
		memset(&attr, 0, sizeof(attr));
		attr.start_id = id;
		if (sys_bpf(k->next_cmd, &attr) < 0)
			/* Links have no ids before 5.8: nothing to list. */
			return errno == ENOENT || errno == EINVAL ? 0 : -1;
		id = attr.next_id;
		memset(&attr, 0, sizeof(attr));
		attr.prog_id = id;	/* prog_id, map_id and link_id share it */
		fd = sys_bpf(k->fd_cmd, &attr);
		if (fd < 0) {
			/* Freed between the two calls: it is gone, as wanted. */
			if (errno == ENOENT)
				continue;
			printf("%s %u ?\n", k->name, id);
			continue;
		}
		object_name(k, fd, name, sizeof(name));
		close(fd);
		printf("%s %u %s\n", k->name, id, name);
	}
}

int main(int argc, char **argv)
{
	size_t i, n = sizeof(kinds) / sizeof(kinds[0]);
	int status = 0;

	with_runs = argc > 1 && !strcmp(argv[1], "runs");
	if (with_runs)
		n = 1;	/* programs only */
	for (i = 0; i < n; i++) {
		if (list_kind(&kinds[i]) < 0) {
			fprintf(stderr, "bpfobjs: listing %ss: %s\n",
				kinds[i].name, strerror(errno));
			status = 1;
		}
	}
	return status;
}
