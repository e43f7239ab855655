// SPDX-License-Identifier: GPL-2.0
/*
 * --vdso: vDSO clock reads never enter the kernel and no probe can sit in
 * the vDSO (it has no file), so they are sampled instead.  A cpu-clock
 * perf event per CPU runs this program every period of CPU time; for a
 * traced process it counts the sample under the offset of the interrupted
 * user instruction in the process's [vdso], or as "outside" (elsewhere in
 * user mode, or in the kernel).  One map update per sample; userspace
 * symbolizes the offsets and turns the counts into an estimate.
 */
#include "shared.bpf.h"
#include "targets.bpf.h"

/* The [vdso] text's size: the same image in every process of this kernel. */
const volatile __u64 vdso_size = 0;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 16384 * 8);
	__type(key, struct vdso_key);
	__type(value, __u64);
} vdso_samples SEC(".maps");

/*
 * mm->context.vdso is where the kernel mapped the vDSO's text (its ELF
 * header) on x86_64 and arm64 alike, in every kernel we support.  A
 * kernel thread has no mm: never in the vDSO.
 */
static __always_inline __u32 vdso_offset(__u64 ip)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 base = (__u64)BPF_CORE_READ(task, mm, context.vdso);

	if (!base || ip < base || ip - base >= vdso_size)
		return VDSO_OFF_OUTSIDE;
	return ip - base;
}

SEC("perf_event")
int vdso_sample(struct bpf_perf_event_data *ctx)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;
	struct vdso_key key = { .tgid = tgid };
	__u64 one = 1, *n;

	if (!tgid || !is_traced(tgid))
		return 0;
	/* A kernel-mode ip is never inside the user mapping. */
	key.off = vdso_offset(PT_REGS_IP(&ctx->regs));
	n = bpf_map_lookup_elem(&vdso_samples, &key);
	if (n) {
		__sync_fetch_and_add(n, 1);
		return 0;
	}
	if (!bpf_map_update_elem(&vdso_samples, &key, &one, BPF_NOEXIST))
		return 0;
	/* Another CPU created it meanwhile. */
	n = bpf_map_lookup_elem(&vdso_samples, &key);
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		count_loss(LOSS_VDSO_MAP_FULL);
	return 0;
}
