// SPDX-License-Identifier: GPL-2.0
/*
 * Feature probes in the manner of libbpf-tools and retsnoop: load the
 * smallest program or map that needs the feature and see whether the
 * kernel takes it, instead of guessing from the version.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/bpf.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "libbpf_print.h"
#include "attach_mode.h"
#include "btf_vmlinux.h"
#include "clocktrace.skel.h"
#include "util.h"
#include "variant.h"

static char why[BPF_FEAT_MAX][96];

/* Whether a kprobe program may call helper id; tracing programs get the same. */
static bool helper_ok(enum bpf_func_id id, enum bpf_feature f,
		      const char *name)
{
	int ret = libbpf_probe_bpf_helper(BPF_PROG_TYPE_KPROBE, id, NULL);

	if (ret == 1)
		return true;
	snprintf(why[f], sizeof(why[f]), "%s: %s", name,
		 ret == 0 ? "unknown to the kernel" : strerror(-ret));
	return false;
}

static bool probe_task_storage(void)
{
	int ret = libbpf_probe_bpf_map_type(BPF_MAP_TYPE_TASK_STORAGE, NULL);

	if (ret != 1) {
		snprintf(why[BPF_FEAT_TASK_STORAGE], sizeof(why[0]),
			 "the kernel refuses a task storage map");
		return false;
	}
	return helper_ok(BPF_FUNC_task_storage_get, BPF_FEAT_TASK_STORAGE,
			 "bpf_task_storage_get") &&
	       helper_ok(BPF_FUNC_get_current_task_btf, BPF_FEAT_TASK_STORAGE,
			 "bpf_get_current_task_btf");
}

/* r0 = cmpxchg(fp - 8, r0, r1) on a stack slot: refused before 5.12. */
static bool probe_cmpxchg(void)
{
	const struct bpf_insn insns[] = {
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_1 },
		{ .code = BPF_STX | BPF_DW | BPF_MEM, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8 },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_STX | BPF_DW | BPF_ATOMIC, .dst_reg = BPF_REG_10,
		  .src_reg = BPF_REG_1, .off = -8, .imm = BPF_CMPXCHG },
		{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
		{ .code = BPF_JMP | BPF_EXIT },
	};
	int fd = bpf_prog_load(BPF_PROG_TYPE_SOCKET_FILTER, "ct_cmpxchg", "GPL",
			       insns, ARRAY_SIZE(insns), NULL);

	if (fd >= 0) {
		close(fd);
		return true;
	}
	snprintf(why[BPF_FEAT_CMPXCHG], sizeof(why[0]),
		 "a compare-and-swap program: %s", strerror(errno));
	return false;
}

/*
 * Before 6.1 a hash map's entries come from kmalloc in whatever context
 * the tracing program runs, and the verifier WARNs at load ("trace type
 * BPF program uses run-time allocation").  6.1 brought struct
 * bpf_mem_alloc, which hash maps allocate from since: its type in the
 * kernel's BTF says which.
 */
static bool probe_runtime_alloc(void)
{
	const struct btf *btf = vmlinux_btf_keep();

	if (btf && btf__find_by_name_kind(btf, "bpf_mem_alloc",
					  BTF_KIND_STRUCT) > 0)
		return true;
	snprintf(why[BPF_FEAT_RUNTIME_ALLOC], sizeof(why[0]),
		 btf ? "no BPF memory allocator (struct bpf_mem_alloc)"
		     : "the kernel's BTF cannot be read");
	return false;
}

static bool probe_feature(enum bpf_feature f)
{
	switch (f) {
	case BPF_FEAT_TASK_STORAGE:
		return probe_task_storage();
	case BPF_FEAT_BPF_LOOP:
		return helper_ok(BPF_FUNC_loop, f, "bpf_loop");
	case BPF_FEAT_CMPXCHG:
		return probe_cmpxchg();
	case BPF_FEAT_LIBC_HELPERS:
		return helper_ok(BPF_FUNC_get_attach_cookie, f,
				 "bpf_get_attach_cookie") &&
		       helper_ok(BPF_FUNC_find_vma, f, "bpf_find_vma");
	case BPF_FEAT_RUNTIME_ALLOC:
		return probe_runtime_alloc();
	case BPF_FEAT_MAX:
		break;
	}
	return false;
}

const struct bpf_features *bpf_features_probe(void)
{
	static struct bpf_features bf;
	static bool probed;
	libbpf_print_fn_t old;
	const char *knob;

	if (probed)
		return &bf;
	old = libbpf_set_print(libbpf_print_none);
	for (int f = 0; f < BPF_FEAT_MAX; f++) {
		knob = bpf_feature_knob(f);
		if (knob && getenv(knob)) {
			bf.forced_off[f] = true;
			snprintf(why[f], sizeof(why[f]), "turned off by %s",
				 knob);
			continue;
		}
		bf.has[f] = probe_feature(f);
	}
	libbpf_set_print(old);
	probed = true;
	return &bf;
}

const char *bpf_feature_why(enum bpf_feature f)
{
	return why[f];
}

/* Every hash map allocates its entries when the map is created. */
static void preallocate_hash_maps(struct bpf_object *obj)
{
	struct bpf_map *map;
	__u32 flags;

	bpf_object__for_each_map(map, obj) {
		flags = bpf_map__map_flags(map);
		if (bpf_map__type(map) == BPF_MAP_TYPE_HASH &&
		    (flags & BPF_F_NO_PREALLOC))
			bpf_map__set_map_flags(map, flags & ~BPF_F_NO_PREALLOC);
	}
}

void variant_apply(struct clocktrace_bpf *skel, const struct bpf_features *bf,
		   unsigned int max_procs)
{
	bool cas = bf->has[BPF_FEAT_CMPXCHG];
	unsigned int threads = max_procs * 4;

	bool loop = bf->has[BPF_FEAT_BPF_LOOP];

	skel->rodata->has_task_storage = bf->has[BPF_FEAT_TASK_STORAGE];
	if (!bf->has[BPF_FEAT_TASK_STORAGE]) {
		bpf_map__set_type(skel->maps.thread_states, BPF_MAP_TYPE_HASH);
		bpf_map__set_max_entries(skel->maps.thread_states,
			threads > THREAD_MAP_MIN ? threads : THREAD_MAP_MIN);
	}
	if (!bf->has[BPF_FEAT_RUNTIME_ALLOC])
		preallocate_hash_maps(skel->obj);
	bpf_program__set_autoload(skel->progs.sys_exit, cas);
	bpf_program__set_autoload(skel->progs.sys_exit_nocas, !cas);
	bpf_program__set_autoload(skel->progs.sched_exec, loop);
	bpf_program__set_autoload(skel->progs.sched_exec_bounded, !loop);
	/* The tracer may switch to fentry; nothing else loads those. */
	attach_mode_apply(skel, NULL, ATTACH_TRACEPOINT, bf);
}

void variant_tracepoints(struct clocktrace_bpf *skel,
			 struct variant_tracepoint tp[VARIANT_TRACEPOINTS])
{
	bool cas = bpf_program__autoload(skel->progs.sys_exit);
	bool loop = bpf_program__autoload(skel->progs.sched_exec);

	tp[0] = (struct variant_tracepoint){ skel->progs.sys_enter,
					     &skel->links.sys_enter };
	tp[1] = cas ? (struct variant_tracepoint){ skel->progs.sys_exit,
						   &skel->links.sys_exit } :
		      (struct variant_tracepoint){ skel->progs.sys_exit_nocas,
						   &skel->links.sys_exit_nocas };
	tp[2] = (struct variant_tracepoint){ skel->progs.sched_fork,
					     &skel->links.sched_fork };
	tp[3] = loop ? (struct variant_tracepoint){ skel->progs.sched_exec,
						    &skel->links.sched_exec } :
		       (struct variant_tracepoint){
				skel->progs.sched_exec_bounded,
				&skel->links.sched_exec_bounded };
	tp[4] = (struct variant_tracepoint){ skel->progs.sched_exit,
					     &skel->links.sched_exit };
}
