// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "btf_vmlinux.h"
#include "clocktrace.core_roots.h"
#include "clocktrace.skel.h"
#include "cgroup.h"
#include "core_btf.h"
#include "kfeatures.h"
#include "libc_attach.h"
#include "tracer.h"
#include "uprobe_multi.h"
#include "util.h"
#include "variant.h"

#define BTF_PATH "/sys/kernel/btf/vmlinux"

static bool verbose_libbpf;

static int libbpf_print(enum libbpf_print_level level, const char *fmt,
			va_list ap)
{
	if (level == LIBBPF_DEBUG || (level == LIBBPF_INFO && !verbose_libbpf))
		return 0;
	if (!verbose_libbpf)
		return 0;
	return vfprintf(stderr, fmt, ap);
}

int tracer_check_privileges(void)
{
	struct trace_caps c;

	if (access(BTF_PATH, R_OK)) {
		ct_warn("this kernel has no BTF (%s): clocktrace needs a kernel "
		     "built with CONFIG_DEBUG_INFO_BTF=y", BTF_PATH);
		return EXIT_TOOL_FAILURE;
	}
	trace_caps_read(&c);
	if (trace_caps_enough(&c))
		return 0;
	ct_warn("permission denied: tracing needs root, or CAP_BPF and "
	     "CAP_PERFMON; this process lacks %s (try: sudo clocktrace ...)",
	     !c.bpf && !c.perfmon ? "both" : c.bpf ? "CAP_PERFMON" : "CAP_BPF");
	return EXIT_TOOL_FAILURE;
}

static void size_maps(struct clocktrace_bpf *skel, const struct tracer_opts *o)
{
	unsigned int n = o->max_procs;

	bpf_map__set_max_entries(skel->maps.procs, n);
	bpf_map__set_max_entries(skel->maps.proc_tz, n);
	bpf_map__set_max_entries(skel->maps.stats, n * 4);
	bpf_map__set_max_entries(skel->maps.clockids, n * 2);
	bpf_map__set_max_entries(skel->maps.tz_paths, n * 2);
	/* Without --libc nothing writes them: don't pay for their size. */
	bpf_map__set_max_entries(skel->maps.libc_stats, o->libc ? n * 4 : 1);
	bpf_map__set_max_entries(skel->maps.callers, o->libc ? n * 2 : 1);
	bpf_map__set_max_entries(skel->maps.lang_stacks, o->lang ? n : 1);
	bpf_map__set_max_entries(skel->maps.lang_sites, o->lang ? n * 4 : 1);
	bpf_map__set_max_entries(skel->maps.lang_names, o->lang ? n * 4 : 1);
	/* Fewer chains than sites: past them an event still has its line. */
	bpf_map__set_max_entries(skel->maps.lang_chains, o->lang ? n * 2 : 1);
	bpf_map__set_max_entries(skel->maps.lang_frame_names,
				 o->lang ? n * 4 : 1);
	bpf_map__set_max_entries(skel->maps.lang_procs, o->lang ? n : 1);
	bpf_map__set_max_entries(skel->maps.vdso_samples, o->vdso ? n * 8 : 1);
	bpf_map__set_max_entries(skel->maps.events, o->ringbuf_kb * 1024);
	bpf_map__set_max_entries(skel->maps.stack_budgets, o->stacks ? n : 1);
	if (!o->stacks)
		bpf_map__set_max_entries(skel->maps.stack_events, getpagesize());
	if (o->trace_all) {
		/* top runs for hours over every process: forget the oldest. */
		bpf_map__set_type(skel->maps.stats, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(skel->maps.stats, 0);
		bpf_map__set_type(skel->maps.clockids, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(skel->maps.clockids, 0);
		bpf_map__set_type(skel->maps.tz_paths, BPF_MAP_TYPE_LRU_HASH);
		bpf_map__set_map_flags(skel->maps.tz_paths, 0);
	}
}

static int attach_tracepoints(struct tracer *t)
{
	struct variant_tracepoint tp[VARIANT_TRACEPOINTS];
	/* fentry mode sees syscalls on their functions, not sys_enter/exit. */
	size_t first = t->attach == ATTACH_FENTRY ? 2 : 0;

	if (first && attach_mode_fentry_links(t->skel, t->fentry_links, true))
		return -1;
	variant_tracepoints(t->skel, tp);
	/* The skeleton destroys the links with itself. */
	for (size_t i = first; i < ARRAY_SIZE(tp); i++) {
		*tp[i].link = bpf_program__attach(tp[i].prog);
		if (!*tp[i].link) {
			ct_warn("cannot attach %s: %s",
			     bpf_program__name(tp[i].prog), strerror(errno));
			return -1;
		}
	}
	return 0;
}

static int handle_event(void *ctx, void *data, size_t size)
{
	struct tracer *t = ctx;

	const struct event *e = data;

	/* An exec notice must be whole: the handler reads its paths. */
	if (size < sizeof(*e) ||
	    (e->type == EVENT_EXEC && size < sizeof(struct exec_event)))
		return 0;
	if (t->opts.on_event)
		t->opts.on_event(t->opts.ctx, e);
	return 0;
}

/*
 * The CO-RE target: the kernel types our object names, copied into a memfd
 * (user/trace/core_btf.c) so that libbpf need not scan the whole kernel BTF once
 * per type.  -1: libbpf relocates against the whole BTF.
 */
static int open_core_btf(char *path, size_t len)
{
	const struct btf *vmlinux;
	struct btf *small;
	int fd;

	if (getenv("CLOCKTRACE_FULL_BTF"))
		return -1;
	vmlinux = vmlinux_btf_keep();
	if (!vmlinux)
		return -1;
	small = core_btf_build(vmlinux, core_roots, ARRAY_SIZE(core_roots));
	if (!small)
		return -1;
	fd = core_btf_memfd(small, path, len);
	btf__free(small);
	return fd;
}

static void set_cgroup_target(struct clocktrace_bpf *skel,
			      const struct cgroup_target *t)
{
	if (!t)
		return;
	skel->rodata->cgroup_targets = true;
	skel->rodata->target_cgroup_level = t->level;
	skel->rodata->target_cgroup_parent = t->parent_id;
	memcpy((char *)skel->rodata->target_cgroup_name, t->name,
	       sizeof(skel->rodata->target_cgroup_name));
}

/*
 * --libc and --lang probe each new executable as its exec notice comes:
 * they keep a wake-up per notice (so does CLOCKTRACE_WAKE_EACH, to measure
 * the difference).  Else the reader is woken only when a quarter of the
 * ring buffer waits.
 */
static void set_wake_policy(struct clocktrace_bpf *skel,
			    const struct tracer_opts *opts)
{
	skel->rodata->lazy_wakeup = !opts->libc && !opts->lang &&
				    !getenv("CLOCKTRACE_WAKE_EACH");
	skel->rodata->wake_avail_bytes = opts->ringbuf_kb * 1024ull / 4;
}

static struct clocktrace_bpf *open_and_load(const struct tracer_opts *opts,
					    enum attach_mode attach,
					    uint64_t vdso_size,
					    const char *core_btf, int *err)
{
	LIBBPF_OPTS(bpf_object_open_opts, o, .btf_custom_path = core_btf);
	struct clocktrace_bpf *skel;

	skel = clocktrace_bpf__open_opts(&o);
	if (!skel) {
		*err = -errno;
		return NULL;
	}
	skel->rodata->trace_all = opts->trace_all;
	skel->rodata->self_tgid = getpid();
	if (opts->comm)
		strncpy((char *)skel->rodata->target_comm, opts->comm,
			sizeof(skel->rodata->target_comm) - 1);
	skel->rodata->lang_enabled = opts->lang;
	skel->rodata->lang_depth = opts->lang_depth ?: LANG_DEPTH_DEFAULT;
	skel->rodata->stacks_enabled = opts->stacks;
	set_cgroup_target(skel, opts->cgroup);
	set_wake_policy(skel, opts);
	size_maps(skel, opts);
	variant_apply(skel, bpf_features_probe(), opts->max_procs);
	attach_mode_apply(skel, vmlinux_btf_keep(), attach, bpf_features_probe());
	libc_attach_prepare(skel, opts->libc);
	bpf_program__set_autoload(skel->progs.ruby_entry, opts->lang);
	bpf_program__set_autoload(skel->progs.python_line, opts->lang);
	bpf_program__set_autoload(skel->progs.lang_return, opts->lang);
	bpf_program__set_autoload(skel->progs.lang_start, opts->lang);
	/* Without --vdso an old kernel never sees a perf_event program. */
	bpf_program__set_autoload(skel->progs.vdso_sample, opts->vdso);
	skel->rodata->vdso_size = vdso_size;
	*err = clocktrace_bpf__load(skel);
	if (*err) {
		clocktrace_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

/* --attach fentry on a kernel that refuses it: one line, nothing loaded. */
static int choose_attach(struct tracer *t)
{
	if (!attach_mode_choose(vmlinux_btf_keep(), t->opts.attach, &t->attach,
				t->attach_why, sizeof(t->attach_why)))
		return 0;
	ct_warn("--attach fentry: this kernel refuses it (%s); use --attach auto "
	     "or tracepoint", t->attach_why);
	return -1;
}

static int load(struct tracer *t)
{
	const struct tracer_opts *opts = &t->opts;
	char core_btf[64];
	int err, fd;

	fd = open_core_btf(core_btf, sizeof(core_btf));
	t->skel = open_and_load(opts, t->attach, t->vdso.size, fd >= 0 ? core_btf : NULL,
				&err);
	if (!t->skel && fd >= 0) {
		if (opts->verbose)
			ct_warn("CO-RE against the kernel's types alone failed "
			     "(%s): trying the whole kernel BTF", strerror(-err));
		t->skel = open_and_load(opts, t->attach, t->vdso.size, NULL,
					&err);
	}
	if (fd >= 0)
		close(fd);
	if (!t->skel) {
		ct_warn("cannot load the BPF programs%s: %s%s",
		     t->attach == ATTACH_FENTRY ? " (--attach fentry)" : "",
		     strerror(-err),
		     opts->verbose ? "" : " (run with -v for the verifier's log)");
		return -1;
	}
	if (attach_tracepoints(t) ||
	    (opts->vdso && vdso_sampler_attach(&t->sampler,
					       t->skel->progs.vdso_sample,
					       opts->vdso_hz))) {
		tracer_close(t);
		return -1;
	}
	return 0;
}

/*
 * auto: the probe said fentry attaches, but one of our functions may
 * still refuse it; the tracepoints then see the same syscalls.
 */
static int load_any(struct tracer *t)
{
	if (!load(t))
		return 0;
	if (t->opts.attach != ATTACH_AUTO || t->attach != ATTACH_FENTRY)
		return -1;
	ct_warn("fentry failed: falling back to the syscall tracepoints");
	t->attach = ATTACH_TRACEPOINT;
	snprintf(t->attach_why, sizeof(t->attach_why),
		 "the fentry programs failed to load or attach");
	return load(t);
}

/*
 * Measured before anything is attached, so that our own tracing does not
 * slow the calls we time.
 */
static int open_vdso(struct vdso_image *img)
{
	if (vdso_image_open(img))
		return -1;
	vdso_image_measure(img);
	return 0;
}

int tracer_open(struct tracer *t, const struct tracer_opts *opts)
{
	memset(t, 0, sizeof(*t));
	t->opts = *opts;
	verbose_libbpf = opts->verbose;
	libbpf_set_print(libbpf_print);
	t->features = *bpf_features_probe();
	if (opts->vdso && open_vdso(&t->vdso))
		return -1;
	if (choose_attach(t) || load_any(t))
		return -1;
	t->rb = ring_buffer__new(bpf_map__fd(t->skel->maps.events), handle_event,
				 t, NULL);
	if (!t->rb) {
		ct_warn("cannot open the ring buffer: %s", strerror(errno));
		goto fail;
	}
	return 0;
fail:
	tracer_close(t);
	return -1;
}

void tracer_close(struct tracer *t)
{
	vdso_sampler_detach(&t->sampler);
	if (t->skel)
		attach_mode_fentry_links(t->skel, t->fentry_links, false);
	ring_buffer__free(t->rb);
	clocktrace_bpf__destroy(t->skel);
	t->rb = NULL;
	t->skel = NULL;
}

int tracer_add_proc(struct tracer *t, pid_t pid, pid_t ppid,
		    unsigned int depth, const char *comm)
{
	struct proc p = {
		.ppid = ppid,
		.depth = depth,
		.flags = PROC_ROOT,
		.start_ns = now_ns(),
	};
	__u32 key = pid;

	if (comm)
		strncpy(p.comm, comm, sizeof(p.comm) - 1);
	if (bpf_map_update_elem(bpf_map__fd(t->skel->maps.procs), &key, &p,
				BPF_ANY)) {
		ct_warn("cannot track pid %d: %s", pid, strerror(errno));
		return -1;
	}
	return 0;
}

int tracer_proc_exit_seen(struct tracer *t, pid_t pid)
{
	__u32 key = pid;
	struct proc p;

	if (bpf_map_lookup_elem(bpf_map__fd(t->skel->maps.procs), &key, &p))
		return -1;
	return !!(p.flags & PROC_EXITED);
}

void tracer_forget_proc(struct tracer *t, pid_t pid)
{
	__u32 key = pid;

	bpf_map_delete_elem(bpf_map__fd(t->skel->maps.procs), &key);
}

/*
 * A path read at an access is cut at TZ_PATH_LEN - 1 bytes: a longer file
 * would look like one of that length, so only shorter paths are watched.
 */
static int set_user_path(struct tracer *t, struct tz_user_path *u,
			 const char *path, bool exact)
{
	size_t len = strlen(path);

	if (path[0] != '/')
		return 0;
	if (len >= TZ_PATH_LEN - 1) {
		t->user_losses[LOSS_TZ_PATH_UNWATCHED]++;
		return 0;
	}
	u->len = len;
	u->exact = exact;
	memcpy(u->path, path, len);
	return 1;
}

int tracer_set_proc_tz(struct tracer *t, pid_t pid, const char *tz,
		       const char *tzdir)
{
	struct proc_tz pt = {};
	__u32 key = pid;
	int n = 0;

	if (tz)
		n += set_user_path(t, &pt.file, tz[0] == ':' ? tz + 1 : tz, true);
	if (tzdir)
		n += set_user_path(t, &pt.dir, tzdir, false);
	if (!n)
		return 0;
	return bpf_map_update_elem(bpf_map__fd(t->skel->maps.proc_tz), &key,
				   &pt, BPF_ANY);
}

int tracer_ring_fd(struct tracer *t)
{
	return ring_buffer__epoll_fd(t->rb);
}

int tracer_poll_events(struct tracer *t)
{
	return ring_buffer__consume(t->rb);
}

int tracer_poll_timeout_ms(const struct tracer *t, int idle_ms)
{
	if (!t->skel->rodata->lazy_wakeup || idle_ms < NOTICE_POLL_MS)
		return idle_ms;
	return NOTICE_POLL_MS;
}

static int set_link(struct bpf_program *prog, struct bpf_link **link, bool on)
{
	if (!on) {
		bpf_link__destroy(*link);
		*link = NULL;
		return 0;
	}
	if (*link)
		return 0;
	*link = bpf_program__attach(prog);
	if (*link)
		return 0;
	ct_warn("cannot attach %s: %s", bpf_program__name(prog), strerror(errno));
	return -1;
}

int tracer_count_syscalls(struct tracer *t, bool on)
{
	struct variant_tracepoint tp[VARIANT_TRACEPOINTS];
	struct variant_tracepoint *enter = &tp[0], *exit = &tp[1];

	if (t->attach == ATTACH_FENTRY)
		return attach_mode_fentry_links(t->skel, t->fentry_links, on);
	variant_tracepoints(t->skel, tp);
	/* The exit goes on first and off last: an entry seen is timed. */
	if (on)
		return set_link(exit->prog, exit->link, on) ||
		       set_link(enter->prog, enter->link, on);
	set_link(enter->prog, enter->link, on);
	return set_link(exit->prog, exit->link, on);
}

/* Deleting the first key until none is left needs no key list. */
static void empty_hash(struct bpf_map *map)
{
	char key[bpf_map__key_size(map)];
	int fd = bpf_map__fd(map);

	while (!bpf_map_get_next_key(fd, NULL, key))
		if (bpf_map_delete_elem(fd, key))
			break;
}

void tracer_reset(struct tracer *t)
{
	struct clocktrace_bpf *skel = t->skel;
	struct bpf_map *maps[] = {
		skel->maps.procs, skel->maps.stats, skel->maps.clockids,
		skel->maps.tz_paths, skel->maps.proc_tz, skel->maps.libc_stats,
		skel->maps.callers, skel->maps.caller_files,
	};
	int fd = bpf_map__fd(skel->maps.losses);
	__u64 zero = 0;

	for (size_t i = 0; i < ARRAY_SIZE(maps); i++)
		empty_hash(maps[i]);
	for (__u32 i = 0; i < LOSS_MAX; i++)
		bpf_map_update_elem(fd, &i, &zero, BPF_ANY);
	memset(t->user_losses, 0, sizeof(t->user_losses));
}
