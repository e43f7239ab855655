// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/prctl.h>
#include <sys/syscall.h>

#include "privs.h"
#include "util.h"

/*
 * BPF, PERFMON: read the maps, attach --libc probes found later.
 * SYS_PTRACE, DAC_READ_SEARCH: read /proc/PID/environ, maps and root of any
 * user's process.  KILL: forward ^C to a PROG run with -u.  SYS_ADMIN only
 * with --libc: uprobes on libraries seen later may need it.
 */
static const int kept[] = {
	CAP_BPF, CAP_PERFMON, CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH, CAP_KILL,
};

static bool is_kept(int cap, bool libc)
{
	if (cap == CAP_SYS_ADMIN)
		return libc;
	for (size_t i = 0; i < ARRAY_SIZE(kept); i++)
		if (kept[i] == cap)
			return true;
	return false;
}

static int last_cap(void)
{
	int cap = CAP_LAST_CAP;

	/* The running kernel may know more capabilities than our headers. */
	while (prctl(PR_CAPBSET_READ, cap + 1, 0, 0, 0) >= 0)
		cap++;
	return cap;
}

int drop_privileges(bool libc)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2];
	int last = last_cap();

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	for (int cap = 0; cap <= last; cap++) {
		uint32_t bit = 1u << (cap % 32);

		if (is_kept(cap, libc) || cap >= 64)
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
