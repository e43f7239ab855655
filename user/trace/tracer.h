/* SPDX-License-Identifier: GPL-2.0 */
/* The BPF side's life: open, configure, load, attach, seed, read, destroy. */
#ifndef CLOCKTRACE_TRACER_H
#define CLOCKTRACE_TRACER_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "attach_mode.h"
#include "bpf_features.h"
#include "model.h"
#include "vdso_image.h"
#include "vdso_sample.h"

struct clocktrace_bpf;
struct ring_buffer;
struct event;
struct cgroup_target;

typedef void (*event_fn)(void *ctx, const struct event *e);

struct tracer_opts {
	bool trace_all;			/* every process on the machine */
	unsigned int max_procs;
	unsigned int ringbuf_kb;
	bool verbose;
	bool libc;			/* load the --libc uprobe programs */
	bool lang;			/* load the --lang USDT programs */
	unsigned int lang_depth;	/* --lang-depth */
	bool vdso;			/* sample for vDSO reads */
	bool stacks;			/* copy user stacks at the events */
	unsigned int vdso_hz;		/* --vdso-rate */
	const char *comm;		/* attach --comm: also processes exec'ing it */
	/* --cgroup/--unit: also those forking or exec'ing in it (top: only it) */
	const struct cgroup_target *cgroup;
	enum attach_mode attach;	/* --attach: where syscalls are seen */
	event_fn on_event;
	void *ctx;
};

struct tracer {
	struct clocktrace_bpf *skel;
	struct ring_buffer *rb;
	struct tracer_opts opts;
	struct bpf_features features;	/* the variant that was loaded */
	enum attach_mode attach;	/* tracepoint or fentry, as loaded */
	char attach_why[128];		/* how that was decided */
	struct bpf_link *fentry_links[FENTRY_LINKS_MAX];
	struct vdso_image vdso;		/* --vdso: ours, to read offsets with */
	struct vdso_sampler sampler;
	/* Losses seen in userspace; the kernel's own are in the losses map. */
	__u64 user_losses[LOSS_MAX];
};

/*
 * Process notices do not wake the reader (see lazy_wakeup in the BPF
 * program): the session polls for them at least every NOTICE_POLL_MS.
 */
#define NOTICE_POLL_MS	10

/* Fails with one line on stderr; returns EXIT_TOOL_FAILURE then. */
int tracer_check_privileges(void);
int tracer_open(struct tracer *t, const struct tracer_opts *opts);
void tracer_close(struct tracer *t);

int tracer_add_proc(struct tracer *t, pid_t pid, pid_t ppid,
		    unsigned int depth, const char *comm);
/*
 * The TZ=:file and TZDIR of a process already running (attach targets);
 * the kernel side reads them itself at every exec and fork.
 */
/*
 * 1 when the kernel side saw PID exit, 0 when it did not (yet), -1 when
 * PID is not traced.
 */
int tracer_proc_exit_seen(struct tracer *t, pid_t pid);
/* A process that exited before it could be traced: not one of ours. */
void tracer_forget_proc(struct tracer *t, pid_t pid);
int tracer_set_proc_tz(struct tracer *t, pid_t pid, const char *tz,
		       const char *tzdir);

int tracer_ring_fd(struct tracer *t);
int tracer_poll_events(struct tracer *t);
/* How long the session may wait: idle_ms, or less while notices may wait. */
int tracer_poll_timeout_ms(const struct tracer *t, int idle_ms);

/*
 * run --compare: timed runs detach the syscall probes (their cost would
 * be timed too) and keep the process events; counted runs attach them.
 */
int tracer_count_syscalls(struct tracer *t, bool on);
/* Forget every process and counter: the next run starts from nothing. */
void tracer_reset(struct tracer *t);

/* Everything the maps hold, into m (which may already hold processes). */
int tracer_collect(struct tracer *t, struct model *m);
/*
 * Deletes the entries of the exited processes among pids, keeping the rest
 * in place; pids is reordered, its first (returned) entries evicted.
 */
size_t tracer_evict(struct tracer *t, pid_t *pids, size_t n);

#endif /* CLOCKTRACE_TRACER_H */
