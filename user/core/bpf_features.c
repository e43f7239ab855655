// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <string.h>
#include <linux/types.h>

#include "bpf_features.h"
#include "clocktrace.h"

struct feature_text {
	const char *name;
	const char *knob;
	const char *with;
	const char *without;
	const char *fallback;	/* short, for the report's header */
};

#define STR(x)	#x
#define XSTR(x)	STR(x)

static const struct feature_text texts[BPF_FEAT_MAX] = {
	[BPF_FEAT_TASK_STORAGE] = {
		"task_storage", "CLOCKTRACE_NO_TASK_STORAGE",
		"per-thread state in task storage",
		"per-thread state in a hash map keyed by thread id "
		"(Linux < 5.11); a thread beyond its size is not timed and "
		"is counted (thread_state_unavailable)",
		"threads in a hash map",
	},
	[BPF_FEAT_BPF_LOOP] = {
		"bpf_loop", "CLOCKTRACE_NO_BPF_LOOP",
		"the environment is read with bpf_loop",
		"the environment is read in a bounded loop (Linux < 5.17), "
		"the same cap: " XSTR(ENV_ENTRIES_MAX) " entries, the rest "
		"counted (tz_paths_unwatched)",
		"bounded environment loop",
	},
	[BPF_FEAT_CMPXCHG] = {
		"cmpxchg", "CLOCKTRACE_NO_CMPXCHG",
		"latency minimum and maximum updated atomically",
		"no compare-and-swap (Linux < 5.12): a latency minimum or "
		"maximum written by two CPUs at once may keep the other's; "
		"counts stay exact",
		"plain min/max",
	},
	[BPF_FEAT_LIBC_HELPERS] = {
		"libc_helpers", "CLOCKTRACE_NO_LIBC_HELPERS",
		"--libc tells functions apart by attach cookie and names call "
		"sites in the kernel (bpf_find_vma)",
		"--libc has one entry program per function (no attach cookie, "
		"Linux < 5.15) and names call sites from /proc while the "
		"process lives (no bpf_find_vma, < 5.17)",
		"--libc without cookies",
	},
	[BPF_FEAT_RUNTIME_ALLOC] = {
		"runtime_alloc", "CLOCKTRACE_NO_RUNTIME_ALLOC",
		"hash map entries are allocated as they are needed (the BPF "
		"memory allocator)",
		"hash maps are preallocated at their full size (Linux < 6.1 "
		"warns that tracing programs allocating at run time are "
		"unsafe): about 35 MB of kernel memory at the default "
		"--max-procs 16384, 65 MB with --libc; --max-procs scales it",
		"preallocated maps",
	},
};

const char *bpf_feature_name(enum bpf_feature f)
{
	return texts[f].name;
}

const char *bpf_feature_knob(enum bpf_feature f)
{
	return texts[f].knob;
}

const char *bpf_feature_effect(enum bpf_feature f, bool has)
{
	return has ? texts[f].with : texts[f].without;
}

void bpf_features_fallbacks(const struct bpf_features *bf, char *buf,
			    size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (int f = 0; f < BPF_FEAT_MAX && used < len; f++) {
		if (bf->has[f])
			continue;
		used += snprintf(buf + used, len - used, "%s%s",
				 used ? ", " : "", texts[f].fallback);
	}
}
