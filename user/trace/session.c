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
#include "container.h"
#include "clocktrace.h"
#include "compare.h"
#include "cli.h"
#include "findings.h"
#include "launch.h"
#include "libc_probe.h"
#include "privs.h"
#include "procfs.h"
#include "report.h"
#include "report_html.h"
#include "reader.h"
#include "session.h"
#include "tracer.h"
#include "util.h"

#define POLL_MS 100

void session_set_proc_env(struct proc_model *p, int state, char *tz,
			  char *tzdir)
{
	free(p->tz);
	free(p->tzdir);
	p->tz_state = state;
	p->tz = tz;
	p->tzdir = tzdir;
}

void session_learn_proc_env(struct proc_model *p)
{
	char *tz = NULL, *tzdir = NULL;
	int found = proc_getenv(p->pid, "TZ", &tz);

	if (found < 0)
		return;
	proc_getenv(p->pid, "TZDIR", &tzdir);
	session_set_proc_env(p, found ? ENV_SET : ENV_UNSET, tz, tzdir);
}

static void learn_cgroup(struct proc_model *p, uint64_t id);

void session_learn_proc_place(struct proc_model *p)
{
	char path[64], *buf;
	size_t len;

	learn_cgroup(p, 0);
	snprintf(path, sizeof(path), "/proc/%d/status", p->pid);
	buf = read_file(path, 1 << 16, &len);
	if (buf)
		p->nspid = status_nspid(buf, len);
	free(buf);
}

/* What getenv() gives, as the kernel side read it: NULL when unset. */
static char *env_value(__u8 state, const char *val, __u16 len)
{
	char *v;

	if (state != ENV_SEEN_SET)
		return NULL;
	if (len >= ENV_VALUE_LEN)
		len = ENV_VALUE_LEN - 1;
	v = xcalloc(1, len + 1);
	memcpy(v, val, len);
	return v;
}

/*
 * TZ and TZDIR from the exec notice; /proc/PID/environ only when the
 * kernel side could not read them (too long, too many entries).
 */
static void learn_exec_env(struct proc_model *p, const struct exec_env *x)
{
	if (x->tz_state == ENV_SEEN_UNREAD || x->tzdir_state == ENV_SEEN_UNREAD) {
		session_learn_proc_env(p);
		return;
	}
	session_set_proc_env(p, x->tz_state == ENV_SEEN_SET ? ENV_SET : ENV_UNSET,
			     env_value(x->tz_state, x->tz, x->tz_len),
			     env_value(x->tzdir_state, x->tzdir, x->tzdir_len));
}

/*
 * A container id only from a cgroup a runtime made: the same name in a
 * cgroup delegated to a user is kept apart, never credited.
 */
static void learn_container(struct proc_model *p)
{
	char id[sizeof(p->container)];
	enum container_claim c = container_of_cgroup(p->cgroup, id);

	p->container[0] = p->container_unverified[0] = '\0';
	if (c == CONTAINER_VERIFIED)
		memcpy(p->container, id, sizeof(id));
	else if (c == CONTAINER_UNVERIFIED)
		memcpy(p->container_unverified, id, sizeof(id));
}

/* A move after the exec is seen only while the process lives. */
/* From /proc while the process lives, else from the id its notice carried. */
static void learn_cgroup(struct proc_model *p, uint64_t id)
{
	char path[64], *buf, *cg;
	size_t len;

	snprintf(path, sizeof(path), "/proc/%d/cgroup", p->pid);
	buf = read_file(path, 1 << 16, &len);
	cg = buf ? cgroup_v2_path(buf, len) : NULL;
	free(buf);
	if (!cg && id)
		cg = cgroup_path_of_id(id);
	if (!cg)
		return;
	free(p->cgroup);
	p->cgroup = cg;
	learn_container(p);
}

static void inherit_env(struct proc_model *child, const struct proc_model *parent)
{
	session_set_proc_env(child, parent->tz_state,
		     parent->tz ? xstrdup(parent->tz) : NULL,
		     parent->tzdir ? xstrdup(parent->tzdir) : NULL);
}

/*
 * The live link is best; once the process is gone, the path exec was given,
 * unless it was relative or /proc/self/exe: then the parent's image if it
 * is the same file name, else the file name alone.
 */
static char *exe_of_event(struct session *s, const struct exec_event *x)
{
	char path[EXE_LEN + 1], name[sizeof(x->exe_name) + 1];
	const struct event *e = &x->base;
	const struct proc_model *parent;
	char *exe = proc_exe(e->pid);

	if (exe)
		return exe;
	snprintf(path, sizeof(path), "%.*s", EXE_LEN, x->exe);
	snprintf(name, sizeof(name), "%.*s", (int)sizeof(x->exe_name),
		 x->exe_name);
	if (path[0] == '/' && strncmp(path, "/proc/", 6))
		return xstrdup(path);
	parent = model_find(&s->model, e->ppid);
	if (parent && parent->exe && !strcmp(path_base_name(parent->exe), name))
		return xstrdup(parent->exe);
	return xstrdup(name[0] ? name : path);
}

static void on_event(void *ctx, const struct event *e)
{
	struct session *s = ctx;
	struct proc_model *p = model_proc(&s->model, e->pid), *parent;

	if (e->nspid)
		p->nspid = e->nspid;
	/*
	 * No /proc read at fork: the notice may come after the process is
	 * gone, and a child starts in its parent's cgroup.
	 */
	switch (e->type) {
	case EVENT_FORK:
		p->ppid = e->ppid;
		p->running_since_ns = e->ts_ns;
		if (s->opts.libc)
			libc_probe_fork(&s->libc, p);
		parent = model_find(&s->model, e->ppid);
		if (!parent)
			break;
		if (p->tz_state == ENV_UNKNOWN)
			inherit_env(p, parent);
		if (!p->cgroup && parent->cgroup) {
			p->cgroup = xstrdup(parent->cgroup);
			memcpy(p->container, parent->container,
			       sizeof(p->container));
			memcpy(p->container_unverified,
			       parent->container_unverified,
			       sizeof(p->container_unverified));
		}
		if (!p->exe && parent->exe)
			p->exe = xstrdup(parent->exe);
		break;
	case EVENT_EXEC:
		p->running_since_ns = e->ts_ns;
		free(p->exe);
		p->exe = exe_of_event(s, (const struct exec_event *)e);
		learn_exec_env(p, &((const struct exec_event *)e)->env);
		learn_cgroup(p, e->cgroup_id);
		/*
		 * A Python's frames are read only once it is registered,
		 * and it may fork workers soon after it starts: first.  The
		 * C library of a new image is most often probed already.
		 */
		if (s->opts.lang)
			lang_probe_exec(&s->lang, p);
		if (s->opts.libc)
			libc_probe_process(&s->libc, &s->tracer, p);
		break;
	case EVENT_EXIT:
		s->exits_seen++;
		break;
	}
}

int session_add_timer(struct session *s, double seconds, int *fd)
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

int session_watch_fd(struct session *s, int fd)
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

int session_setup(struct session *s)
{
	struct tracer_opts o = {
		.trace_all = s->ops->trace_all,
		.max_procs = s->opts.max_procs,
		.ringbuf_kb = s->opts.ringbuf_kb,
		.verbose = s->opts.verbose,
		.libc = s->opts.libc,
		.lang = s->opts.lang,
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
	if (tracer_open(&s->tracer, &o) || session_start_exporter(s))
		return -1;
	if (session_watch_fd(s, tracer_ring_fd(&s->tracer)) || session_watch_fd(s, s->sigfd))
		return -1;
	if (s->opts.libc)
		libc_probe_init(&s->libc, &s->tracer, s->opts.verbose,
				s->opts.mode == MODE_ATTACH);
	if (s->opts.lang)
		lang_probe_init(&s->lang, &s->tracer, s->opts.verbose);
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
	s->http.lfd = -1;
	s->capture_fd = -1;
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
	http_close(&s->http);
	tracer_close(&s->tracer);
	if (s->epfd > 0)
		close(s->epfd);
	if (s->sigfd > 0)
		close(s->sigfd);
	if (s->timerfd > 0)
		close(s->timerfd);
	if (s->stopfd > 0)
		close(s->stopfd);
}

/* Detach, close and free: safe at any point after session_new. */
static void session_free(struct session *s)
{
	launch_abort(&s->launch);
	session_teardown(s);
	report_file_discard(&s->report);
	report_file_discard(&s->html);
	timeline_free(&s->timeline);
	model_free(&s->model);
	model_free(&s->prev);
	metrics_free(&s->metrics);
	free(s->opts.pids);
	cgroup_target_free(s->opts.cgtarget);
	free(s);
}

bool session_any_alive(struct session *s)
{
	session_collect(s);
	for (size_t i = 0; i < s->model.nprocs; i++)
		if (!s->model.procs[i].exited)
			return true;
	return false;
}

static void forward_signal(struct session *s, const struct signalfd_siginfo *si)
{
	/* A terminal's ^C reaches PROG's process group by itself. */
	if (s->launch.pid > 0 && !s->prog_exited &&
	    si->ssi_code != SI_KERNEL)
		kill(s->launch.pid, si->ssi_signo);
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

	epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->launch.pidfd, NULL);
	if (wait4(s->launch.pid, &status, WNOHANG, &ru) != s->launch.pid)
		return;
	s->prog_exited = true;
	s->prog_status = status;
	s->prog_rusage_cpu_ns = timeval_ns(&ru.ru_utime) +
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

void session_collect(struct session *s)
{
	tracer_collect(&s->tracer, &s->model);
	if (evicting(s) && s->model.evicted)
		drop_evicted_ghosts(s);
	if (wants_metrics(s))
		metrics_update(&s->metrics, &s->model);
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
		metrics_forget(&s->metrics, pids[i]);
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

bool session_print_interval(struct session *s)
{
	struct model delta = {};
	struct findings fs = {};
	struct report_opts ro = { .top_n = s->opts.top_n ? s->opts.top_n : 10 };
	FILE *f = report_file_stream(&s->report);
	char label[64] = "";

	tracer_poll_events(&s->tracer);
	session_collect(s);
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
	if (s->opts.format == FORMAT_OPENMETRICS)
		session_write_openmetrics(s, &s->model);
	else if (!f)
		;	/* a write failed: said once, the end will say 125 */
	else if (s->opts.format == FORMAT_JSON)
		report_json(f, &delta, &fs, false);
	else
		report_interval_text(f, &delta, &ro);
	if (f && s->opts.format != FORMAT_OPENMETRICS)
		report_file_publish(&s->report);
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

void session_stop_status(struct session *s)
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

			if (http_handle(&s->http, fd, evs[i].events))
				continue;
			if (fd == s->sigfd && handle_signal(s))
				return;
			if (fd == s->timerfd &&
			    read(fd, &ticks, sizeof(ticks)) == sizeof(ticks) &&
			    s->ops->tick(s))
				return;
			if (fd == s->launch.pidfd)
				reap_prog(s);
			if (fd == s->capture_fd)
				session_drain_capture(s);
		}
		tracer_poll_events(&s->tracer);
		http_expire(&s->http);
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

void session_drain_capture(struct session *s)
{
	char buf[65536];
	ssize_t n;

	while ((n = read(s->capture_fd, buf, sizeof(buf))) > 0) {
		s->capture_hash = compare_hash(s->capture_hash, buf, n);
		s->capture_bytes += n;
	}
	if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) {
		epoll_ctl(s->epfd, EPOLL_CTL_DEL, s->capture_fd, NULL);
		close(s->capture_fd);
		s->capture_fd = -1;
	}
}

void session_wait(struct session *s)
{
	loop_until_done(s);
}

void session_end_phase(struct session *s)
{
	enter_end_phase(s);
}


void session_finish_model(struct session *s)
{
	tracer_poll_events(&s->tracer);
	session_collect(s);
	/* run without --follow ends when PROG did (reap_prog). */
	if (!s->prog_exited || s->opts.follow)
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
	if (s->prog_exited) {
		s->model.has_exit = true;
		if (WIFSIGNALED(s->prog_status))
			s->model.exit_signal = WTERMSIG(s->prog_status);
		else
			s->model.exit_code = WEXITSTATUS(s->prog_status);
	}
}

void session_write_report(struct session *s)
{
	struct findings fs;
	struct report_opts ro = {
		.top_n = s->opts.top_n,
		.per_process = s->opts.per_process,
	};
	FILE *f = report_file_stream(&s->report), *html;

	findings_build(&s->model, &fs);
	if (s->opts.format == FORMAT_OPENMETRICS)
		session_write_openmetrics(s, &s->model);
	else if (!f)
		;	/* a write failed: said once, the end says 125 */
	else if (s->opts.format == FORMAT_JSON)
		report_json(f, &s->model, &fs, true);
	else if (s->opts.format == FORMAT_FOLDED)
		report_folded(f, &s->model);
	else
		report_text(f, &s->model, &fs, &ro);
	html = report_file_stream(&s->html);
	if (html)
		report_html(html, &s->model, &fs, NULL, &s->timeline);
	findings_free(&fs);
}

int session_report(struct session *s)
{
	session_finish_model(s);
	session_write_report(s);
	return session_commit_report(s);
}

/* Everything before the loop; 0, or the exit status. */
static int session_start(struct session *s)
{
	int err = s->ops->seed(s);

	if (err)
		return err;
	drop_privileges(s->opts.libc);
	if (s->opts.interval > 0 &&
	    session_add_timer(s, s->opts.interval, &s->timerfd))
		return EXIT_TOOL_FAILURE;
	model_copy(&s->prev, &s->model);
	return 0;
}

int session_main(const struct session_ops *ops, int argc, char **argv)
{
	int err;
	struct session *s = session_new(ops, argc, argv, &err);

	if (!err)
		err = ops->prepare(s, argc, argv);
	else if (err < 0)
		err = 0;	/* --help */
	if (err != SESSION_GO_ON)
		goto out;
	err = EXIT_TOOL_FAILURE;
	if (session_setup(s))
		goto out;
	err = session_start(s);
	if (err)
		goto out;
	loop_until_done(s);
	enter_end_phase(s);
	session_stop_status(s);
	err = s->abort_signal ? 128 + s->abort_signal : ops->finish(s);
out:
	session_free(s);
	return err;
}
