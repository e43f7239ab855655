// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/capability.h>
#include <sys/syscall.h>
#include <sys/utsname.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "libbpf_print.h"
#include "clocktrace.skel.h"
#include "kfeatures.h"
#include "libc_attach.h"
#include "uprobe_multi.h"
#include "util.h"
#include "variant.h"

#define BTF_PATH	"/sys/kernel/btf/vmlinux"
#define PMU_DIR		"/sys/bus/event_source/devices"

const char *const feature_tracepoints[FEAT_NR_TRACEPOINTS] = {
	"sys_enter", "sys_exit", "sched_process_fork", "sched_process_exec",
	"sched_process_exit",
};

const char *feat_word(enum feat_state s)
{
	return s == FEAT_YES ? "yes" : s == FEAT_NO ? "no" : "?";
}

static void set(struct feature *f, enum feat_state s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void set(struct feature *f, enum feat_state s, const char *fmt, ...)
{
	va_list ap;

	f->state = s;
	va_start(ap, fmt);
	vsnprintf(f->how, sizeof(f->how), fmt, ap);
	va_end(ap);
}

static bool has_cap(const struct __user_cap_data_struct *data, int cap)
{
	return data[cap / 32].effective & (1u << (cap % 32));
}

int trace_caps_read(struct trace_caps *c)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};

	memset(c, 0, sizeof(*c));
	if (syscall(SYS_capget, &hdr, data))
		return -1;
	c->sys_admin = has_cap(data, CAP_SYS_ADMIN);
	c->bpf = has_cap(data, CAP_BPF);
	c->perfmon = has_cap(data, CAP_PERFMON);
	return 0;
}

bool trace_caps_enough(const struct trace_caps *c)
{
	return c->sys_admin || (c->bpf && c->perfmon);
}

static void probe_permission(struct kernel_features *kf)
{
	struct trace_caps c;

	kf->euid = geteuid();
	if (trace_caps_read(&c))
		return;
	kf->cap_sys_admin = c.sys_admin;
	kf->cap_bpf = c.bpf;
	kf->cap_perfmon = c.perfmon;
	kf->privileged = trace_caps_enough(&c);
}

static void probe_kernel(struct kernel_features *kf)
{
	struct utsname u;

	if (uname(&u))
		return;
	snprintf(kf->release, sizeof(kf->release), "%s", u.release);
	snprintf(kf->machine, sizeof(kf->machine), "%s", u.machine);
	if (sscanf(u.release, "%d.%d", &kf->major, &kf->minor) != 2)
		kf->major = kf->minor = 0;
}

/* Whether enum ENUM_NAME of the kernel's BTF has the value VAL_NAME. */
static bool btf_has_enum_val(const struct btf *btf, const char *enum_name,
			     const char *val_name)
{
	const struct btf_type *t;
	const struct btf_enum *e;
	int id;

	id = btf__find_by_name_kind(btf, enum_name, BTF_KIND_ENUM);
	if (id < 0)
		return false;
	t = btf__type_by_id(btf, id);
	e = btf_enum(t);
	for (int i = 0; i < btf_vlen(t); i++)
		if (!strcmp(btf__name_by_offset(btf, e[i].name_off), val_name))
			return true;
	return false;
}

/*
 * A tp_btf program attaches to the raw tracepoint whose prototype the
 * kernel describes as typedef btf_trace_<name>.
 */
static void probe_tracepoints_btf(struct kernel_features *kf,
				  const struct btf *btf)
{
	char name[64];

	for (int i = 0; i < FEAT_NR_TRACEPOINTS; i++) {
		snprintf(name, sizeof(name), "btf_trace_%s",
			 feature_tracepoints[i]);
		if (btf__find_by_name_kind(btf, name, BTF_KIND_TYPEDEF) >= 0)
			set(&kf->tracepoint[i], FEAT_YES, "%s in kernel BTF",
			    name);
		else
			set(&kf->tracepoint[i], FEAT_NO, "no %s in kernel BTF",
			    name);
	}
}

static void probe_map_type(struct feature *f, enum bpf_map_type type,
			   const struct btf *btf, const char *enum_val,
			   bool privileged)
{
	int ret;

	if (privileged) {
		ret = libbpf_probe_bpf_map_type(type, NULL);
		if (ret == 1)
			set(f, FEAT_YES, "map created");
		else if (ret == 0)
			set(f, FEAT_NO, "the kernel refuses the map type");
		else
			set(f, FEAT_UNKNOWN, "probe failed: %s", strerror(-ret));
		return;
	}
	if (btf && btf_has_enum_val(btf, "bpf_map_type", enum_val))
		set(f, FEAT_YES, "%s in kernel BTF (not tried: no privilege)",
		    enum_val);
	else
		set(f, FEAT_UNKNOWN, "not tried: no privilege");
}

static bool pmu_exists(const char *name)
{
	char path[128];

	snprintf(path, sizeof(path), PMU_DIR "/%s/type", name);
	return !access(path, R_OK);
}

static const struct bpf_insn ret0[] = {
	{ .code = BPF_ALU64 | BPF_MOV | BPF_K, .dst_reg = BPF_REG_0 },
	{ .code = BPF_JMP | BPF_EXIT },
};

/* The same probe as --libc's choice of link (uprobe_multi.c). */
static void probe_uprobe_multi_link(struct feature *f)
{
	const char *step;
	int err = uprobe_multi_try(UPROBE_LINK_ENTRY, &step);

	if (!err)
		set(f, FEAT_YES, "link type known to the kernel");
	else if (err == -EINVAL || err == -EOPNOTSUPP)
		set(f, FEAT_NO, "%s: %s", step, strerror(-err));
	else
		set(f, FEAT_UNKNOWN, "%s: %s", step, strerror(-err));
}

static void probe_uprobes(struct kernel_features *kf, const struct btf *btf)
{
	if (pmu_exists("uprobe"))
		set(&kf->uprobe, FEAT_YES, PMU_DIR "/uprobe");
	else
		set(&kf->uprobe, FEAT_NO, "no uprobe PMU (CONFIG_UPROBE_EVENTS)");
	if (kf->uprobe.state == FEAT_NO)
		set(&kf->uprobe_multi, FEAT_NO, "no uprobes");
	else if (kf->privileged)
		probe_uprobe_multi_link(&kf->uprobe_multi);
	else if (btf && btf_has_enum_val(btf, "bpf_attach_type",
					 "BPF_TRACE_UPROBE_MULTI"))
		set(&kf->uprobe_multi, FEAT_YES,
		    "BPF_TRACE_UPROBE_MULTI in kernel BTF (not tried)");
	else
		set(&kf->uprobe_multi, FEAT_UNKNOWN, "not tried: no privilege");
}

/* fentry on vfs_read: a function every kernel has and may trace. */
static void probe_fentry(struct feature *f, const struct btf *btf)
{
	LIBBPF_OPTS(bpf_prog_load_opts, po,
		.expected_attach_type = BPF_TRACE_FENTRY);
	int id, prog, link;

	id = btf ? btf__find_by_name_kind(btf, "vfs_read", BTF_KIND_FUNC) : -1;
	if (id < 0) {
		set(f, FEAT_UNKNOWN, "no vfs_read in kernel BTF to try");
		return;
	}
	po.attach_btf_id = id;
	prog = bpf_prog_load(BPF_PROG_TYPE_TRACING, "ct_probe", "GPL", ret0,
			     ARRAY_SIZE(ret0), &po);
	if (prog < 0) {
		set(f, FEAT_NO, "program load: %s", strerror(errno));
		return;
	}
	link = bpf_raw_tracepoint_open(NULL, prog);
	if (link < 0) {
		set(f, FEAT_NO, "attach: %s", strerror(errno));
	} else {
		set(f, FEAT_YES, "loaded and attached");
		close(link);
	}
	close(prog);
}

static void probe_tracing(struct kernel_features *kf, const struct btf *btf)
{
	if (pmu_exists("kprobe"))
		set(&kf->kprobe, FEAT_YES, PMU_DIR "/kprobe");
	else
		set(&kf->kprobe, FEAT_NO, "no kprobe PMU (CONFIG_KPROBES unset)");
	if (kf->privileged)
		probe_fentry(&kf->fentry, btf);
	else
		set(&kf->fentry, FEAT_UNKNOWN, "not tried: no privilege");
}

static void attach_all(struct kernel_features *kf, struct clocktrace_bpf *s)
{
	struct variant_tracepoint tp[VARIANT_TRACEPOINTS];
	struct bpf_link *link;

	_Static_assert(VARIANT_TRACEPOINTS == FEAT_NR_TRACEPOINTS,
		       "one variant program per tracepoint");

	variant_tracepoints(s, tp);
	for (int i = 0; i < FEAT_NR_TRACEPOINTS; i++) {
		link = bpf_program__attach(tp[i].prog);
		if (!link) {
			set(&kf->tracepoint[i], FEAT_NO, "attach: %s",
			    strerror(errno));
			continue;
		}
		set(&kf->tracepoint[i], FEAT_YES, "%s attached",
		    bpf_program__name(tp[i].prog));
		bpf_link__destroy(link);
	}
}

/* The real object, so that what doctor says is what run will meet. */
static void probe_skeleton(struct kernel_features *kf)
{
	struct clocktrace_bpf *s;
	int err;

	s = clocktrace_bpf__open();
	if (!s) {
		set(&kf->skeleton, FEAT_NO, "open: %s", strerror(errno));
		return;
	}
	variant_apply(s, kf->bpf, 1);
	/* With the --libc programs this kernel runs. */
	libc_attach_prepare(s, true);
	err = clocktrace_bpf__load(s);
	if (err) {
		set(&kf->skeleton, FEAT_NO, "load: %s (clocktrace run -v "
		    "shows the verifier's log)", strerror(-err));
	} else {
		set(&kf->skeleton, FEAT_YES, "our BPF programs load");
		attach_all(kf, s);
	}
	clocktrace_bpf__destroy(s);
}

void features_probe(struct kernel_features *kf, bool try_load)
{
	libbpf_print_fn_t old = libbpf_set_print(libbpf_print_none);
	struct btf *btf = NULL;

	memset(kf, 0, sizeof(*kf));
	probe_kernel(kf);
	probe_permission(kf);
	if (!access(BTF_PATH, R_OK))
		btf = btf__load_vmlinux_btf();
	kf->btf = btf != NULL;
	if (btf)
		kf->btf_types = btf__type_cnt(btf);
	if (btf)
		probe_tracepoints_btf(kf, btf);
	else
		for (int i = 0; i < FEAT_NR_TRACEPOINTS; i++)
			set(&kf->tracepoint[i], FEAT_NO, "no kernel BTF");
	set(&kf->skeleton, FEAT_UNKNOWN, "not tried: no privilege");
	if (kf->privileged)
		kf->bpf = bpf_features_probe();
	if (try_load && btf && kf->privileged)
		probe_skeleton(kf);
	if (kf->privileged)
		attach_mode_choose(btf, ATTACH_AUTO, &kf->attach,
				   kf->attach_why, sizeof(kf->attach_why));
	probe_uprobes(kf, btf);
	probe_tracing(kf, btf);
	probe_map_type(&kf->ringbuf, BPF_MAP_TYPE_RINGBUF, btf,
		       "BPF_MAP_TYPE_RINGBUF", kf->privileged);
	btf__free(btf);
	libbpf_set_print(old);
}
