/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Which process is traced: one in procs (a target or a descendant of one,
 * added at fork or exec) that has not exited, or in top's trace_all mode
 * every process (of the target cgroup, with --cgroup/--unit).  Inline in
 * every unit whose programs fire for processes we do not trace.
 */
#ifndef CLOCKTRACE_TARGETS_BPF_H
#define CLOCKTRACE_TARGETS_BPF_H

#include "shared.bpf.h"

enum { CGROUP_IN = 1, CGROUP_OUT = 2 };

/* cg's ancestor at the target's level (cg itself there), or NULL. */
static __always_inline struct cgroup *cgroup_at_target_level(struct cgroup *cg)
{
	int level = BPF_CORE_READ(cg, level);

	for (int i = 0; i < CGROUP_MAX_DEPTH && cg; i++) {
		if (level <= (int)target_cgroup_level)
			break;
		cg = BPF_CORE_READ(cg, self.parent, cgroup);
		level--;
	}
	return level == (int)target_cgroup_level ? cg : NULL;
}

static __always_inline bool cgroup_has_target_name(struct cgroup *cg)
{
	__u32 zero = 0;
	char *name = bpf_map_lookup_elem(&cgroup_name_scratch, &zero);

	if (!name || bpf_probe_read_kernel_str(name, CGROUP_NAME_LEN,
					       BPF_CORE_READ(cg, kn, name)) < 0)
		return false;
	for (int i = 0; i < CGROUP_NAME_LEN; i++) {
		if (name[i] != target_cgroup_name[i])
			return false;
		if (!name[i])
			return true;
	}
	return false;
}

static __always_inline bool cgroup_is_target(struct cgroup *cg)
{
	cg = cgroup_at_target_level(cg);
	if (!cg)
		return false;
	/* The root of the hierarchy has neither parent nor name. */
	if (!target_cgroup_level)
		return true;
	return BPF_CORE_READ(cg, self.parent, cgroup, kn, id) ==
	       target_cgroup_parent && cgroup_has_target_name(cg);
}

/*
 * The current task (a parent at fork, the task at exec, the caller of a
 * syscall in top) is in the target cgroup or below it.
 */
static __always_inline bool in_target_cgroup(void)
{
	struct task_struct *task;
	__u64 id;
	__u8 *seen, verdict;

	if (!cgroup_targets)
		return false;
	id = bpf_get_current_cgroup_id();
	seen = bpf_map_lookup_elem(&cgroup_verdicts, &id);
	if (seen)
		return *seen == CGROUP_IN;
	task = (struct task_struct *)bpf_get_current_task();
	verdict = cgroup_is_target(BPF_CORE_READ(task, cgroups, dfl_cgrp)) ?
		  CGROUP_IN : CGROUP_OUT;
	bpf_map_update_elem(&cgroup_verdicts, &id, &verdict, BPF_ANY);
	return verdict == CGROUP_IN;
}

static __always_inline bool is_traced(__u32 tgid)
{
	struct proc *p;

	if (tgid == self_tgid)
		return false;
	if (trace_all)
		return !cgroup_targets || in_target_cgroup();
	p = bpf_map_lookup_elem(&procs, &tgid);
	return p && !(p->flags & PROC_EXITED);
}

#endif /* CLOCKTRACE_TARGETS_BPF_H */
