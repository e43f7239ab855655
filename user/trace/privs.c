// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "privs.h"
#include "util.h"

#define CAP(c)	(1ull << (c))

uint64_t privs_kept(const struct privs_need *need)
{
	/*
	 * CAP_BPF stays: before Linux 5.19 (Debian's 5.10 and 6.1 ... as the
	 * kernel matrix showed on 5.10) every bpf() command, a map lookup on
	 * a descriptor we hold included, is refused without it when
	 * unprivileged BPF is off.
	 */
	uint64_t mask = CAP(CAP_SYS_PTRACE) | CAP(CAP_DAC_READ_SEARCH) |
			CAP(CAP_BPF);

	if (need->signals_prog)
		mask |= CAP(CAP_KILL);
	/*
	 * A uprobe needs CAP_PERFMON, its program CAP_BPF; CAP_SYS_ADMIN for
	 * libraries and interpreters found later, as at start (uprobes on
	 * files under another process's root, older kernels' checks).
	 */
	if (need->attaches_later)
		mask |= CAP(CAP_PERFMON) | CAP(CAP_SYS_ADMIN);
	return mask;
}

static const char *const cap_names[] = {
	[CAP_DAC_READ_SEARCH] = "cap_dac_read_search",
	[CAP_KILL] = "cap_kill",
	[CAP_SYS_PTRACE] = "cap_sys_ptrace",
	[CAP_SYS_ADMIN] = "cap_sys_admin",
	[CAP_PERFMON] = "cap_perfmon",
	[CAP_BPF] = "cap_bpf",
};

const char *privs_names(uint64_t mask, char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (size_t cap = 0; cap < ARRAY_SIZE(cap_names) && len < size; cap++)
		if (mask & CAP(cap) && cap_names[cap])
			len += snprintf(buf + len, size - len, "%s%s",
					len ? "," : "", cap_names[cap]);
	return buf;
}

static int last_cap(void)
{
	int cap = CAP_LAST_CAP;

	/* The running kernel may know more capabilities than our headers. */
	while (prctl(PR_CAPBSET_READ, cap + 1, 0, 0, 0) >= 0)
		cap++;
	return cap;
}

int drop_privileges(const struct privs_need *need)
{
	uint64_t kept = privs_kept(need);
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int last = last_cap();

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (int cap = 0; cap <= last; cap++) {
		uint32_t bit = 1u << (cap % 32);

		if (cap >= 64 || kept & CAP(cap))
			continue;
		data[cap / 32].effective &= ~bit;
		data[cap / 32].permitted &= ~bit;
		data[cap / 32].inheritable &= ~bit;
		/* Needs CAP_SETPCAP, which goes last, below. */
		if (cap != CAP_SETPCAP)
			prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	}
	prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0);
	if (syscall(SYS_capset, &hdr, data)) {
		ct_warn("cannot drop capabilities: %s", strerror(errno));
		return -1;
	}
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
