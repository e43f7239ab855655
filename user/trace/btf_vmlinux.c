// SPDX-License-Identifier: GPL-2.0
/*
 * The running kernel's BTF, handed to libbpf.
 *
 * libbpf 1.1 read()s /sys/kernel/btf/vmlinux, and sysfs gives out one page
 * per call: 1,350 system calls for 5.5 MB, about 9 ms of the 50 ms that
 * `clocktrace run /bin/true` may take.  Linux 6.16 lets the file be mapped
 * (libbpf 1.5 maps it itself).  The link step routes libbpf's calls here
 * (ld --wrap=btf__load_vmlinux_btf); on a kernel that refuses the mapping,
 * libbpf's own reader runs as before.
 *
 * The tracer parses the kernel's BTF before libbpf does (user/trace/core_btf.c
 * needs it); that copy is kept and given to libbpf's next load, so it is
 * parsed once.
 */
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <bpf/btf.h>
#include "btf_vmlinux.h"

#define VMLINUX_BTF "/sys/kernel/btf/vmlinux"

struct btf *__real_btf__load_vmlinux_btf(void);
struct btf *__wrap_btf__load_vmlinux_btf(void);

/* btf__new() copies the data, so the mapping lives only for the call. */
static struct btf *btf_from_mapping(int fd)
{
	struct btf *btf = NULL;
	struct stat st;
	void *data;

	if (fstat(fd, &st) || st.st_size <= 0)
		return NULL;
	data = mmap(NULL, st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	if (data == MAP_FAILED)
		return NULL;
	btf = btf__new(data, st.st_size);
	munmap(data, st.st_size);
	return btf;
}

static struct btf *kept;

static struct btf *load(void)
{
	struct btf *btf = NULL;
	int fd;

	fd = open(VMLINUX_BTF, O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		btf = btf_from_mapping(fd);
		close(fd);
	}
	return btf ? btf : __real_btf__load_vmlinux_btf();
}

const struct btf *vmlinux_btf_keep(void)
{
	if (!kept)
		kept = load();
	return kept;
}

/* libbpf frees what it is given, so a kept copy is given only once. */
struct btf *__wrap_btf__load_vmlinux_btf(void)
{
	struct btf *btf = kept;

	kept = NULL;
	return btf ? btf : load();
}
