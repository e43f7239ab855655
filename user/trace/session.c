// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a tracing session, the same for run, attach and top:
 * session_main() below; what differs is in each mode's session_ops
 * (run.c, attach.c, top.c).
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/epoll.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/stat.h>
#include <sys/timerfd.h>
#include <sys/utsname.h>
#include <sys/wait.h>

#include "cgroup.h"
#include "clocks.h"
#include "clock_cost.h"
#include "clocktrace.h"
#include "compare.h"
#include "exporter.h"
#include "findings.h"
#include "lang_probe.h"
#include "libc_probe.h"
#include "privs.h"
#include "procfs.h"
#include "report.h"
#include "report_file.h"
#include "report_html.h"
#include "reader.h"
#include "session.h"
#include "stacks.h"
#include "timeline.h"
#include "util.h"

#define POLL_MS 100

/* PROG's part of a session (run): its launch, exit and captured stdout. */
struct prog {
	struct launch launch;
	struct session_prog done;
	int capture_fd;			/* run --compare: PROG's stdout */
};

struct session {
	const struct session_ops *ops;
	void *state;			/* the mode's: ops->state_size bytes */
	struct opts opts;
	struct tracer tracer;
	struct targets targets;
	struct libc_probe libc;
	struct lang_probe lang;
	struct stacks stacks;		/* --stacks */
	struct prog prog;
	struct model model;
	struct model prev;		/* at the last interval report */
	struct report_file report;	/* -o, or stderr (top: stdout) */
	struct report_file html;	/* --html FILE; no stream without */
	struct timeline timeline;	/* -i with --html */
	struct exporter exporter;
	sigset_t old_mask;
	int epfd;
	int sigfd;
	int timerfd;
	int interrupts;
	int abort_signal;		/* second ^C: leave now, no report */
	/* Exit notices, and how many there were at the last look. */
	uint64_t exits_seen;
	uint64_t exits_checked;		/* at the last liveness check */
	uint64_t alive_checked_ns;
	uint64_t exits_evicted;		/* at the last eviction */
	bool status;			/* a live status line on stderr */
	uint64_t status_ns;
};

struct opts *session_opts(struct session *s)
{
	return &s->opts;
}

struct model *session_model(struct session *s)
{
	return &s->model;
}

struct tracer *session_tracer(struct session *s)
{
	return &s->tracer;
}

struct targets *session_targets(struct session *s)
{
	return &s->targets;
}

void *session_state(struct session *s)
{
	return s->state;
}

const struct session_prog *session_prog(const struct session *s)
{
	return &s->prog.done;
}

int session_abort_signal(const struct session *s)
{
	return s->abort_signal;
}

unsigned int session_interrupts(const struct session *s)
{
	return s->interrupts;
}

void session_switch_ops(struct session *s, const struct session_ops *ops)
{
	s->ops = ops;
	free(s->state);
	s->state = xcalloc(1, ops->state_size ? ops->state_size : 1);
}

static void on_event(void *ctx, const struct event *e)
{
	struct session *s = ctx;
	struct proc_model *p = model_proc(&s->model, e->pid);

	if (e->nspid)
		p->nspid = e->nspid;
	/*
	 * No /proc read at fork: the notice may come after the process is
	 * gone, and a child starts in its parent's cgroup.
	 */
	switch (e->type) {
	case EVENT_FORK:
		/* First: the probes follow the parent that this names. */
		targets_learn_fork(&s->model, p, e);
		if (s->opts.libc)
			libc_probe_fork(&s->libc, p);
		if (s->opts.stacks)
			stacks_note_fork(&s->stacks, e->pid, e->ppid);
		break;
	case EVENT_EXEC:
		targets_learn_exec(&s->model, p, (const struct exec_event *)e);
		/*
		 * A Python's frames are read only once it is registered,
		 * and it may fork workers soon after it starts: first.  The
		 * C library of a new image is most often probed already.
		 */
		if (s->opts.lang)
			lang_probe_exec(&s->lang, p);
		if (s->opts.libc)
			libc_probe_process(&s->libc, &s->tracer, p);
		if (s->opts.stacks)
			stacks_note_exec(&s->stacks, e->pid);
		break;
	case EVENT_EXIT:
		s->exits_seen++;
		break;
	}
}

static int add_timer(struct session *s, double seconds, int *fd)
{
	struct itimerspec its = {};
	struct epoll_event ev = { .events = EPOLLIN };

	*fd = timerfd_create(CLOCK_MONOTONIC, TFD_CLOEXEC);
	if (*fd < 0)
		return -1;
	its.it_value.tv_sec = (time_t)seconds;
	its.it_value.tv_nsec = (long)((seconds - (time_t)seconds) * 1e9);
	if (!its.it_value.tv_sec && !its.it_value.tv_nsec)
		its.it_value.tv_nsec = 1;
	its.it_interval = its.it_value;
	ev.data.fd = *fd;
	timerfd_settime(*fd, 0, &its, NULL);
	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, *fd, &ev);
}

static int watch_fd(struct session *s, int fd)
{
	struct epoll_event ev = { .events = EPOLLIN, .data.fd = fd };

	return epoll_ctl(s->epfd, EPOLL_CTL_ADD, fd, &ev);
}

/* Signals arrive on a descriptor, so the loop has one place to wait. */
static int setup_signals(struct session *s)
{
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGHUP);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_BLOCK, &mask, &s->old_mask);
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);
	/* A signal ends a wait for the file reader: the loop acts first. */
	reader_set_wake_fd(s->sigfd);
	return s->sigfd < 0 ? -1 : 0;
}

static void note_kernel(struct kernel_run *k, const struct tracer *t)
{
	struct utsname u;

	if (!uname(&u))
		snprintf(k->release, sizeof(k->release), "%s", u.release);
	k->features = t->features;
	k->attach = t->attach;
}

static void session_collect(struct session *s);

static void collect_for_scrape(void *ctx)
{
	session_collect(ctx);
}

static int session_setup(struct session *s)
{
	struct tracer_opts o = {
		.trace_all = s->ops->trace_all,
		.max_procs = s->opts.max_procs,
		.ringbuf_kb = s->opts.ringbuf_kb,
		.verbose = s->opts.verbose,
		.libc = s->opts.libc,
		.lang = s->opts.lang,
		.lang_depth = s->opts.lang_depth,
		.vdso = s->opts.vdso,
		.stacks = s->opts.stacks,
		.vdso_hz = s->opts.vdso_hz,
		.comm = s->opts.comm,
		.cgroup = s->opts.cgtarget,
		.attach = s->opts.attach,
		.on_event = on_event,
		.ctx = s,
	};

	/* A reader that goes away (| head) must not kill us mid-session. */
	signal(SIGPIPE, SIG_IGN);
	s->epfd = epoll_create1(EPOLL_CLOEXEC);
	if (s->epfd < 0 || setup_signals(s))
		return -1;
	s->exporter.opts = &s->opts;
	s->exporter.tracer = &s->tracer;
	s->exporter.trace_all = s->ops->trace_all;
	s->exporter.collect = collect_for_scrape;
	s->exporter.ctx = s;
	/*
	 * What a clock read costs here, to price the reads the vDSO could
	 * have served (vdso-fallback): timed before anything is attached,
	 * as our own tracing would slow every syscall timed (a few ms).
	 */
	clock_cost_measure(&s->model.clock_cost);
	if (tracer_open(&s->tracer, &o) ||
	    exporter_start(&s->exporter, s->epfd))
		return -1;
	if (watch_fd(s, tracer_ring_fd(&s->tracer)) || watch_fd(s, s->sigfd))
		return -1;
	if (s->opts.libc)
		libc_probe_init(&s->libc, &s->tracer, s->opts.verbose,
				s->ops->libc_per_process);
	if (s->opts.lang)
		lang_probe_init(&s->lang, &s->tracer, s->opts.verbose,
				s->opts.lang_usdt);
	if (s->opts.stacks && stacks_init(&s->stacks, &s->tracer))
		return -1;
	if (s->opts.stacks && s->opts.lang)
		s->stacks.lang = &s->lang;
	s->targets = (struct targets){
		.tracer = &s->tracer,
		.model = &s->model,
		.libc = s->opts.libc ? &s->libc : NULL,
		.lang = s->opts.lang ? &s->lang : NULL,
	};
	s->model.mode = mode_name(s->opts.mode);
	s->model.libc_enabled = s->opts.libc;
	read_clocksource(s->model.clocksource, sizeof(s->model.clocksource),
			 "current_clocksource");
	note_kernel(&s->model.kernel, &s->tracer);
	return 0;
}

/* Parse the command line, check privileges: every tracing command's start. */
static struct session *session_new(const struct session_ops *ops, int argc,
				   char **argv, int *err)
{
	struct session *s = xcalloc(1, sizeof(*s));

	s->ops = ops;
	s->state = xcalloc(1, ops->state_size ? ops->state_size : 1);
	s->exporter.http.lfd = -1;
	s->prog.capture_fd = -1;
	*err = cli_parse(ops->mode, argc, argv, &s->opts);
	if (!*err)
		*err = tracer_check_privileges();
	return s;
}

static void session_teardown(struct session *s)
{
	if (s->opts.libc)
		libc_probe_close(&s->libc);
	if (s->opts.lang)
		lang_probe_close(&s->lang);
	reader_stop();
	reader_set_wake_fd(-1);
	exporter_close(&s->exporter);
	tracer_close(&s->tracer);
	stacks_free(&s->stacks);
	if (s->epfd > 0)
		close(s->epfd);
	if (s->sigfd > 0)
		close(s->sigfd);
	if (s->timerfd > 0)
		close(s->timerfd);
}

/* Detach, close and free: safe at any point after session_new. */
static void session_free(struct session *s)
{
	if (s->ops->cleanup)
		s->ops->cleanup(s);
	free(s->state);
	launch_abort(&s->prog.launch);
	session_teardown(s);
	report_file_discard(&s->report);
	report_file_discard(&s->html);
	timeline_free(&s->timeline);
	model_free(&s->model);
	model_free(&s->prev);
	free(s->opts.pids);
	cgroup_target_free(s->opts.cgtarget);
	free(s);
}

static void forward_signal(struct session *s, const struct signalfd_siginfo *si)
{
	/* A terminal's ^C reaches PROG's process group by itself. */
	if (s->prog.launch.pid > 0 && !s->prog.done.exited &&
	    si->ssi_code != SI_KERNEL)
		kill(s->prog.launch.pid, si->ssi_signo);
}

/* Returns true when the session should end now. */
static bool handle_signal(struct session *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		if (++s->interrupts > 1) {
			s->abort_signal = si.ssi_signo;
			return true;
		}
		if (s->ops->passes_signals) {
			forward_signal(s, &si);
			continue;
		}
		return true;
	}
	return false;
}

static uint64_t timeval_ns(const struct timeval *tv)
{
	return tv->tv_sec * 1000000000ull + tv->tv_usec * 1000ull;
}

/*
 * PROG's pidfd stays readable once PROG has exited: it leaves the epoll
 * set at the first wake-up, or --follow would spin on it until the last
 * descendant is gone.
 */
static void reap_prog(struct session *s)
{
	struct rusage ru;
	int status;

	epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->prog.launch.pidfd, NULL);
	if (wait4(s->prog.launch.pid, &status, WNOHANG, &ru) !=
	    s->prog.launch.pid)
		return;
	s->prog.done.exited = true;
	s->prog.done.status = status;
	s->prog.done.cpu_ns = timeval_ns(&ru.ru_utime) +
			      timeval_ns(&ru.ru_stime);
	s->model.end_ns = now_ns();
}

static bool evicting(const struct session *s)
{
	return s->ops->evicts && !s->opts.libc && !s->opts.lang;
}

/*
 * A fork, exec or exit notice read after its process was evicted makes it
 * anew in the model, with no entry in the maps: it must not look alive.
 */
static void drop_evicted_ghosts(struct session *s)
{
	for (size_t i = s->model.nprocs; i-- > 0;) {
		pid_t pid = s->model.procs[i].pid;

		if (!s->model.procs[i].in_maps && !s->model.procs[i].exited)
			model_remove(&s->model, pid);
	}
}

/*
 * The OpenMetrics series follow every collect when something will show
 * them: they keep a copy of the model (6 MiB at 2,000 processes).
 */
static bool wants_metrics(const struct session *s)
{
	return s->opts.listen || s->opts.format == FORMAT_OPENMETRICS;
}

static void session_collect(struct session *s)
{
	tracer_collect(&s->tracer, &s->model);
	if (s->opts.stacks)
		stacks_collect(&s->stacks, &s->model);
	if (evicting(s) && s->model.evicted)
		drop_evicted_ghosts(s);
	if (wants_metrics(s))
		metrics_update(&s->exporter.metrics, &s->model);
}

/* A report's collect: every stack copy unwound, none left to wait. */
static void collect_for_report(struct session *s)
{
	s->stacks.flush = true;
	session_collect(s);
	s->stacks.flush = false;
}

static bool session_any_alive(struct session *s)
{
	session_collect(s);
	for (size_t i = 0; i < s->model.nprocs; i++)
		if (!s->model.procs[i].exited)
			return true;
	return false;
}

/*
 * A long attach: once a quarter of --max-procs has exited, the exited
 * processes leave the kernel maps (their last counts were read by the
 * session_collect just before), summed per comm, so --max-procs bounds the
 * processes alive at once, not every process ever seen.  Below that the
 * report keeps every process.  --libc and --lang keep theirs: their call
 * sites and script lines are resolved at the end.
 */
static unsigned int evict_threshold(const struct session *s)
{
	return s->opts.max_procs / 4 ? s->opts.max_procs / 4 : 1;
}

static void evict_exited(struct session *s)
{
	pid_t *pids;
	size_t n = 0;

	s->exits_evicted = s->exits_seen;
	if (!evicting(s))
		return;
	pids = xcalloc(s->model.nprocs + 1, sizeof(*pids));
	for (size_t i = 0; i < s->model.nprocs; i++)
		if (s->model.procs[i].exited)
			pids[n++] = s->model.procs[i].pid;
	n = n >= evict_threshold(s) ? tracer_evict(&s->tracer, pids, n) : 0;
	for (size_t i = 0; i < n; i++) {
		model_fold(&s->model, pids[i]);
		model_remove(&s->prev, pids[i]);
		metrics_forget(&s->exporter.metrics, pids[i]);
	}
	free(pids);
}

/*
 * Without interval reports, as exit notices come; with them, at each
 * report, after it showed the last interval.
 */
static void maybe_evict(struct session *s)
{
	if (s->opts.interval > 0 ||
	    s->exits_seen - s->exits_evicted < evict_threshold(s))
		return;
	tracer_poll_events(&s->tracer);
	session_collect(s);
	evict_exited(s);
}

int session_commit_report(struct session *s)
{
	int err = report_file_commit(&s->report);

	/* Both are tried: one failing must not cost the other. */
	return report_file_commit(&s->html) ? EXIT_TOOL_FAILURE : err;
}

/*
 * The one place a view is chosen by --format.  TOTALS: what the
 * OpenMetrics series grow from, per-process totals (m itself, but in an
 * interval, which shows the growth).
 */
static void show(struct session *s, const struct model *m,
		 const struct model *totals, const struct session_views *v,
		 void *ctx, bool publish)
{
	FILE *f = report_file_stream(&s->report);
	void (*view)(FILE *, const struct model *, void *) = v->text;

	if (s->opts.format == FORMAT_OPENMETRICS) {
		exporter_write_file(&s->exporter, &s->report, totals);
		return;
	}
	if (!f)
		return;	/* a write failed: said once, the end says 125 */
	if (s->opts.format == FORMAT_JSON && v->json)
		view = v->json;
	else if (s->opts.format == FORMAT_FOLDED && v->folded)
		view = v->folded;
	view(f, m, ctx);
	if (publish)
		report_file_publish(&s->report);
}

void session_show(struct session *s, const struct model *m,
		  const struct session_views *v, void *ctx, bool publish)
{
	show(s, m, m, v, ctx, publish);
}

void session_show_html(struct session *s, const struct model *m,
		       const struct findings *fs, const struct compare *c)
{
	FILE *html = report_file_stream(&s->html);

	if (html)
		report_html(html, m, fs, c, c ? NULL : &s->timeline);
}

/* What a view of a model needs beside it. */
struct view_ctx {
	const struct findings *fs;
	const struct report_opts *ro;
};

static void interval_text(FILE *f, const struct model *m, void *ctx)
{
	const struct view_ctx *vc = ctx;

	report_interval_text(f, m, vc->ro);
}

static void interval_json(FILE *f, const struct model *m, void *ctx)
{
	const struct view_ctx *vc = ctx;

	report_json(f, m, vc->fs, false);
}

static const struct session_views interval_views = {
	.text = interval_text,
	.json = interval_json,
};

static void final_text(FILE *f, const struct model *m, void *ctx)
{
	const struct view_ctx *vc = ctx;

	report_text(f, m, vc->fs, vc->ro);
}

static void final_json(FILE *f, const struct model *m, void *ctx)
{
	const struct view_ctx *vc = ctx;

	report_json(f, m, vc->fs, true);
}

static void final_folded(FILE *f, const struct model *m, void *ctx)
{
	(void)ctx;
	report_folded(f, m);
}

static const struct session_views final_views = {
	.text = final_text,
	.json = final_json,
	.folded = final_folded,
};

bool session_print_interval(struct session *s)
{
	struct model delta = {};
	struct findings fs = {};
	struct report_opts ro = { .top_n = s->opts.top_n ? s->opts.top_n : 10 };
	struct view_ctx vc = { .fs = &fs, .ro = &ro };
	char label[64] = "";

	tracer_poll_events(&s->tracer);
	collect_for_report(s);
	s->model.end_ns = now_ns();
	model_delta(&s->prev, &s->model, &delta);
	if (s->opts.timestamps) {
		time_t t = time(NULL);
		struct tm tm;

		localtime_r(&t, &tm);
		strftime(label, sizeof(label), "%H:%M:%S", &tm);
	}
	ro.interval_label = label;
	if (s->opts.html)
		timeline_add(&s->timeline, &delta, delta.end_ns - s->model.start_ns);
	findings_build(&delta, &fs);
	show(s, &delta, &s->model, &interval_views, &vc, true);
	findings_free(&fs);
	model_free(&delta);
	model_copy(&s->prev, &s->model);
	evict_exited(s);
	return false;
}

void session_start_status(struct session *s)
{
	/* Interval reports would interleave with it. */
	s->status = term_can_redraw(STDERR_FILENO) && s->opts.interval == 0;
	s->status_ns = now_ns();
}

static void stop_status(struct session *s)
{
	if (s->status)
		fputs("\r\033[K", stderr);
	s->status = false;
}

/* One line on a terminal's stderr, redrawn in place once a second. */
static void update_status(struct session *s)
{
	char d[32], ev[32];
	uint64_t now = now_ns();

	if (!s->status || now - s->status_ns < 1000000000ull)
		return;
	s->status_ns = now;
	session_collect(s);
	fprintf(stderr, "\r\033[K[%s] %zu processes, %s events, %llu lost",
		fmt_duration(d, sizeof(d), now - s->model.start_ns),
		s->model.nprocs, fmt_count(ev, sizeof(ev), model_events(&s->model)),
		(unsigned long long)model_lost(&s->model));
	fflush(stderr);
}

/*
 * Reading every map is the costly part of a wake-up: ask again only when an
 * exit was notified since, or a second went by (a notice lost to a full
 * ring buffer must not keep us waiting forever).
 */
bool session_all_gone(struct session *s)
{
	uint64_t now = now_ns();

	if (s->exits_seen == s->exits_checked &&
	    now - s->alive_checked_ns < 1000000000ull)
		return false;
	s->exits_checked = s->exits_seen;
	s->alive_checked_ns = now;
	return !session_any_alive(s);
}

static void die_of_signal(int sig)
{
	_exit(128 + sig);
}

/*
 * Once the loop is over, nothing may keep clocktrace from ending: signals
 * already queued count as they would have in the loop, and from now on
 * SIGINT, SIGTERM, SIGHUP and SIGQUIT end it at once (128+N, no report),
 * whatever the report is waiting for.  The first three kill it with their
 * default action: only a fatal signal wakes a wait the kernel allows to be
 * killed only (a FUSE request its server never answers); SIGQUIT would
 * dump core, so it exits instead.
 */
static void enter_end_phase(struct session *s)
{
	struct sigaction quit = { .sa_handler = die_of_signal };
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t mask;

	handle_signal(s);
	sigemptyset(&mask);
	for (size_t i = 0; i < ARRAY_SIZE(sigs); i++) {
		signal(sigs[i], SIG_DFL);
		sigaddset(&mask, sigs[i]);
	}
	sigaction(SIGQUIT, &quit, NULL);
	sigaddset(&mask, SIGQUIT);
	sigprocmask(SIG_UNBLOCK, &mask, NULL);
}

/* Reads what PROG wrote so far into the hash; closes the pipe at EOF. */
static void drain_capture(struct session *s)
{
	struct session_prog *d = &s->prog.done;
	char buf[65536];
	ssize_t n;

	while ((n = read(s->prog.capture_fd, buf, sizeof(buf))) > 0) {
		d->stdout_hash = compare_hash(d->stdout_hash, buf, n);
		d->stdout_bytes += n;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->prog.capture_fd, NULL);
		close(s->prog.capture_fd);
		s->prog.capture_fd = -1;
	}
}

static void loop_until_done(struct session *s)
{
	struct epoll_event evs[8];
	uint64_t deadline = s->opts.duration > 0 ?
		s->model.start_ns + (uint64_t)(s->opts.duration * 1e9) : 0;

	for (;;) {
		int wait_ms = tracer_poll_timeout_ms(&s->tracer, POLL_MS);
		int n;

		if (s->opts.lang)
			wait_ms = lang_probe_wait_ms(&s->lang, &s->model, wait_ms);
		n = epoll_wait(s->epfd, evs, ARRAY_SIZE(evs), wait_ms);

		for (int i = 0; i < n; i++) {
			int fd = evs[i].data.fd;
			uint64_t ticks;

			if (http_handle(&s->exporter.http, fd, evs[i].events))
				continue;
			if (fd == s->sigfd && handle_signal(s))
				return;
			if (fd == s->timerfd &&
			    read(fd, &ticks, sizeof(ticks)) == sizeof(ticks) &&
			    s->ops->tick(s))
				return;
			if (fd == s->prog.launch.pidfd)
				reap_prog(s);
			if (fd == s->prog.capture_fd)
				drain_capture(s);
		}
		tracer_poll_events(&s->tracer);
		http_expire(&s->exporter.http);
		maybe_evict(s);
		update_status(s);
		if (s->opts.libc)
			libc_probe_rescan(&s->libc, &s->tracer, &s->model);
		if (s->opts.lang)
			lang_probe_rescan(&s->lang, &s->model);
		if (deadline && now_ns() >= deadline)
			return;
		if (s->ops->over && s->ops->over(s))
			return;
	}
}

static void finish_model(struct session *s)
{
	tracer_poll_events(&s->tracer);
	/* The machine's load may have changed since start: time them again. */
	if (s->opts.vdso)
		vdso_image_measure(&s->tracer.vdso);
	collect_for_report(s);
	/* run without --follow ends when PROG did (reap_prog). */
	if (!s->prog.done.exited || s->opts.follow)
		s->model.end_ns = now_ns();
	for (size_t i = 0; i < s->model.nprocs; i++) {
		struct proc_model *p = &s->model.procs[i];

		if (!p->exe && !p->exited)
			p->exe = proc_exe(p->pid);
	}
	if (s->opts.libc)
		libc_probe_finish(&s->libc, &s->model);
	if (s->opts.lang)
		lang_probe_collect(&s->lang, &s->model);
	/* Again, now that each script chain's exact count is known. */
	if (s->opts.lang && s->opts.stacks)
		stacks_collect_lang(&s->stacks, &s->model);
	if (s->prog.done.exited) {
		int status = s->prog.done.status;

		s->model.has_exit = true;
		if (WIFSIGNALED(status))
			s->model.exit_signal = WTERMSIG(status);
		else
			s->model.exit_code = WEXITSTATUS(status);
	}
}

static void write_report(struct session *s)
{
	struct findings fs;
	struct report_opts ro = {
		.top_n = s->opts.top_n,
		.per_process = s->opts.per_process,
	};
	struct view_ctx vc = { .fs = &fs, .ro = &ro };

	findings_build(&s->model, &fs);
	show(s, &s->model, &s->model, &final_views, &vc, false);
	session_show_html(s, &s->model, &fs, NULL);
	findings_free(&fs);
}

int session_report(struct session *s)
{
	finish_model(s);
	write_report(s);
	return session_commit_report(s);
}

int session_open_outputs(struct session *s, FILE *dflt)
{
	int err = report_file_open(&s->report, s->opts.output, dflt);

	return err ? err : report_file_open(&s->html, s->opts.html, NULL);
}

int session_hold_prog(struct session *s, struct launch *l,
		      const struct launch_opts *o)
{
	return launch_prepare_opts(l, s->opts.prog_argv, o, &s->old_mask);
}

/* A held PROG's stdout, captured: read as the loop wakes up for it. */
static int capture_stdout(struct session *s)
{
	s->prog.capture_fd = s->prog.launch.out_fd;
	s->prog.launch.out_fd = -1;
	s->prog.done.stdout_hash = COMPARE_HASH_INIT;
	fcntl(s->prog.capture_fd, F_SETFL, O_NONBLOCK);
	return watch_fd(s, s->prog.capture_fd);
}

int session_start_prog(struct session *s, struct launch *l, const char *tz,
		       const char *tzdir)
{
	struct proc_model *root;
	int err;

	s->prog.launch = *l;
	memset(l, 0, sizeof(*l));
	memset(&s->prog.done, 0, sizeof(s->prog.done));
	if (s->prog.launch.out_fd >= 0 && capture_stdout(s))
		return EXIT_TOOL_FAILURE;
	if (tracer_add_proc(&s->tracer, s->prog.launch.pid, getpid(), 0, NULL) ||
	    watch_fd(s, s->prog.launch.pidfd))
		return EXIT_TOOL_FAILURE;
	/* PROG inherits our environment; the kernel reads it again at exec. */
	root = model_proc(&s->model, s->prog.launch.pid);
	targets_set_env(root, tz ? ENV_SET : ENV_UNSET, tz ? xstrdup(tz) : NULL,
			tzdir ? xstrdup(tzdir) : NULL);
	if (s->opts.libc)
		libc_probe_prog(&s->libc, s->opts.prog_argv[0]);
	s->model.start_ns = now_ns();
	err = launch_release(&s->prog.launch, s->opts.prog_argv[0]);
	if (err)
		s->prog.launch.pid = 0;
	return err;
}

/* A fresh model and loop bookkeeping for the next run of PROG. */
static void reset_run(struct session *s)
{
	struct model m = {
		.mode = s->model.mode,
		.command = s->model.command,
		.ncommand = s->model.ncommand,
		.libc_enabled = s->model.libc_enabled,
		.kernel = s->model.kernel,
	};

	memcpy(m.clocksource, s->model.clocksource, sizeof(m.clocksource));
	m.clock_cost = s->model.clock_cost;
	model_free(&s->model);
	s->model = m;
	s->exits_seen = 0;
	s->exits_checked = 0;
	s->alive_checked_ns = 0;
	s->exits_evicted = 0;
	tracer_reset(&s->tracer);
}

/* PROG's end: what it wrote and its pipe, the launch killed if still held. */
static void end_run(struct session *s)
{
	if (s->prog.capture_fd >= 0) {
		drain_capture(s);
		if (s->prog.capture_fd >= 0) {
			/* A descendant still holds the pipe: what it wrote so far. */
			epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->prog.capture_fd,
				  NULL);
			close(s->prog.capture_fd);
			s->prog.capture_fd = -1;
		}
	}
	launch_abort(&s->prog.launch);
}

int session_run_once(struct session *s, struct launch *l, const char *tz)
{
	int err;

	reset_run(s);
	err = session_start_prog(s, l, tz, getenv("TZDIR"));
	if (!err)
		loop_until_done(s);
	if (!err && !s->abort_signal)
		finish_model(s);
	end_run(s);
	return err;
}

/* Everything before the loop; 0, or the exit status. */
static int session_start(struct session *s)
{
	int err = s->ops->seed(s);

	if (err)
		return err;
	drop_privileges(&(struct privs_need){
		.signals_prog = s->ops->passes_signals,
		.attaches_later = s->opts.libc || s->opts.lang,
	});
	if (s->opts.interval > 0 &&
	    add_timer(s, s->opts.interval, &s->timerfd))
		return EXIT_TOOL_FAILURE;
	model_copy(&s->prev, &s->model);
	return 0;
}

int session_main(const struct session_ops *ops, int argc, char **argv)
{
	int err;
	struct session *s = session_new(ops, argc, argv, &err);

	if (!err)
		err = s->ops->prepare(s, argc, argv);
	else if (err < 0)
		err = 0;	/* --help */
	if (err != SESSION_GO_ON)
		goto out;
	err = EXIT_TOOL_FAILURE;
	if (session_setup(s))
		goto out;
	if (s->ops->run) {
		err = s->ops->run(s);
	} else {
		err = session_start(s);
		if (!err)
			loop_until_done(s);
	}
	if (err)
		goto out;
	enter_end_phase(s);
	stop_status(s);
	err = s->abort_signal ? 128 + s->abort_signal : s->ops->finish(s);
out:
	session_free(s);
	return err;
}
