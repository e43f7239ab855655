// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "bench_run.h"
#include "clocks.h"
#include "util.h"

#define TRIALS		5
#define COUNT_CALLS	1000	/* calls run under the syscall counter */
#define MAX_CALLS	(1ull << 40)

/* Where a measured row goes: our table, or a pipe to the parent. */
struct sink {
	struct bench_report *b;
	int fd;
};

static const struct bench_spec tz_specs[] = {
	{ .call = CALL_LOCALTIME }, { .call = CALL_LOCALTIME_R },
	{ .call = CALL_MKTIME }, { .call = CALL_TZSET },
};

static const char *const call_names[] = {
	[CALL_CLOCK_GETTIME] = "clock_gettime", [CALL_TIME] = "time",
	[CALL_GETTIMEOFDAY] = "gettimeofday", [CALL_LOCALTIME] = "localtime",
	[CALL_LOCALTIME_R] = "localtime_r", [CALL_MKTIME] = "mktime",
	[CALL_TZSET] = "tzset",
};

/* A fixed instant, so that every call converts the same time. */
static const time_t instant = 1700000000;

static void loop_clock(const struct bench_spec *s, uint64_t n)
{
	struct timespec ts;

	if (s->forced)
		while (n--)
			syscall(SYS_clock_gettime, s->clock, &ts);
	else
		while (n--)
			clock_gettime(s->clock, &ts);
}

static void loop_wall(const struct bench_spec *s, uint64_t n)
{
	struct timeval tv;

#ifdef SYS_time
	if (s->call == CALL_TIME && s->forced)
		while (n--)
			syscall(SYS_time, NULL);
	else
#endif
	if (s->call == CALL_TIME)
		while (n--)
			time(NULL);
	else if (s->forced)
		while (n--)
			syscall(SYS_gettimeofday, &tv, NULL);
	else
		while (n--)
			gettimeofday(&tv, NULL);
}

static void loop_tz(const struct bench_spec *s, uint64_t n)
{
	struct tm tm, base;

	localtime_r(&instant, &base);
	switch (s->call) {
	case CALL_LOCALTIME:
		while (n--)
			localtime(&instant);
		break;
	case CALL_LOCALTIME_R:
		while (n--)
			localtime_r(&instant, &tm);
		break;
	case CALL_MKTIME:
		/* mktime() normalises its argument: start each from base. */
		while (n--) {
			tm = base;
			mktime(&tm);
		}
		break;
	default:
		while (n--)
			tzset();
	}
}

static void loop(const struct bench_spec *s, uint64_t n)
{
	if (s->call == CALL_CLOCK_GETTIME)
		loop_clock(s, n);
	else if (s->call == CALL_TIME || s->call == CALL_GETTIMEOFDAY)
		loop_wall(s, n);
	else
		loop_tz(s, n);
	/* Keep the compiler from reasoning about the calls' results. */
	__asm__ __volatile__("" ::: "memory");
}

/* One call, to find out whether the clock exists at all. */
static int try_once(const struct bench_spec *s)
{
	struct timespec ts;
	long ret;

	if (s->call != CALL_CLOCK_GETTIME)
		return 0;
	ret = s->forced ? syscall(SYS_clock_gettime, s->clock, &ts) :
			  clock_gettime(s->clock, &ts);
	return ret ? errno : 0;
}

static uint64_t timed(const struct bench_spec *s, uint64_t n)
{
	uint64_t t0 = now_ns();

	loop(s, n);
	return now_ns() - t0;
}

/*
 * Doubles the count until a run takes a quarter of a trial, then scales
 * it to a full trial with a margin.  These runs are the warm-up too.
 */
static uint64_t calibrate(const struct bench_spec *s, double trial_ns)
{
	uint64_t n = 1, t;

	for (;;) {
		t = timed(s, n);
		if (t >= trial_ns / 4 || n >= MAX_CALLS / 16)
			break;
		n *= t < trial_ns / 64 ? 16 : 2;
	}
	if (!t)
		return n;
	n = (uint64_t)ceil(n * trial_ns / t * 1.05);
	return n ? n : 1;
}

/* A counter of this process's syscalls; -1 when perf does not let us. */
static int syscall_counter_open(void)
{
	static const char *const ids[] = {
		"/sys/kernel/tracing/events/raw_syscalls/sys_enter/id",
		"/sys/kernel/debug/tracing/events/raw_syscalls/sys_enter/id",
	};
	struct perf_event_attr a = {
		.type = PERF_TYPE_TRACEPOINT,
		.size = sizeof(a),
		.disabled = 1,
	};
	uint64_t id;
	char buf[32];
	int fd = -1;

	for (size_t i = 0; i < ARRAY_SIZE(ids) && fd < 0; i++) {
		int f = open(ids[i], O_RDONLY | O_CLOEXEC);
		ssize_t r = f < 0 ? -1 : read(f, buf, sizeof(buf) - 1);

		if (f >= 0)
			close(f);
		if (r <= 0)
			continue;
		buf[r] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		if (parse_u64(buf, 0, UINT32_MAX, &id))
			continue;
		a.config = id;
		fd = syscall(SYS_perf_event_open, &a, 0, -1, -1,
			     PERF_FLAG_FD_CLOEXEC);
	}
	return fd;
}

static double count_syscalls(int fd, const struct bench_spec *s)
{
	uint64_t count;

	if (fd < 0 || ioctl(fd, PERF_EVENT_IOC_RESET, 0) ||
	    ioctl(fd, PERF_EVENT_IOC_ENABLE, 0))
		return -1;
	loop(s, COUNT_CALLS);
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &count, sizeof(count)) != sizeof(count))
		return -1;
	return (double)count / COUNT_CALLS;
}

/* Trials until there are TRIALS and the row has run long enough. */
static void measure(struct bench_row *r, const struct bench_spec *s,
		    const struct bench_opts *o)
{
	double want = o->duration * 1e9, trial_ns = want / TRIALS;
	uint64_t n = calibrate(s, trial_ns), t;

	while (r->trials < BENCH_MAX_TRIALS &&
	       (r->trials < TRIALS || r->elapsed_ns < want)) {
		t = timed(s, n);
		r->trial_ns[r->trials++] = (double)t / n;
		r->calls += n;
		r->elapsed_ns += t;
		/* Calls got cheaper (another tracer left?): keep the length. */
		if (t && t < trial_ns * 0.9)
			n = (uint64_t)ceil(n * trial_ns / t * 1.05);
	}
	bench_row_summarize(r);
}

static void emit(struct sink *k, const struct bench_row *r)
{
	if (k->fd < 0) {
		bench_add_row(k->b, r);
		return;
	}
	/* Under PIPE_BUF: the write is atomic, whole rows or nothing. */
	if (write(k->fd, r, sizeof(*r)) != sizeof(*r))
		_exit(EXIT_TOOL_FAILURE);
}

static enum bench_path path_of(const struct bench_spec *s,
			       const struct bench_report *b)
{
	if (s->forced)
		return BENCH_SYSCALL;
	if (s->call == CALL_TIME)
		return b->vdso ? BENCH_VDSO : BENCH_LIBC;
	if (s->call == CALL_GETTIMEOFDAY)
		return clock_vdso_serves(0, b->clocksource, b->vdso, NULL) ?
		       BENCH_VDSO : BENCH_LIBC;
	if (s->call == CALL_CLOCK_GETTIME)
		return clock_vdso_serves(s->clock, b->clocksource, b->vdso,
					 NULL) ? BENCH_VDSO : BENCH_LIBC;
	return BENCH_LIBC;
}

static void run_specs(struct sink *k, const struct bench_spec *specs,
		      size_t n, enum bench_tz tz, enum bench_proc proc,
		      const struct bench_opts *o)
{
	int counter = syscall_counter_open();

	for (size_t i = 0; i < n; i++) {
		const struct bench_spec *s = &specs[i];
		struct bench_row r = {
			.clock = s->call == CALL_CLOCK_GETTIME ? s->clock :
				 BENCH_NO_CLOCK,
			.path = path_of(s, k->b),
			.tz = tz,
			.process = proc,
			.syscalls_per_call = -1,
		};

		snprintf(r.name, sizeof(r.name), "%s", call_names[s->call]);
		r.err = try_once(s);
		if (!r.err) {
			measure(&r, s, o);
			r.syscalls_per_call = count_syscalls(counter, s);
		}
		emit(k, &r);
	}
	if (counter >= 0)
		close(counter);
	k->b->counted = counter >= 0;
}

typedef void (*child_fn)(struct sink *k, const void *arg);

/* Runs fn in a forked child that writes its rows to the pipe wfd. */
static pid_t spawn(struct sink *k, int wfd, child_fn fn, const void *arg)
{
	pid_t pid;

	fflush(NULL);
	pid = fork();
	if (pid)
		return pid;
	k->fd = wfd;
	fn(k, arg);
	_exit(0);
}

/* Reads the rows that the children write, until they all close the pipe. */
static int collect(struct bench_report *b, int rfd, pid_t pid)
{
	struct bench_row r;
	ssize_t got;
	int status = 0;

	while ((got = read(rfd, &r, sizeof(r))) == sizeof(r) ||
	       (got < 0 && errno == EINTR))
		if (got > 0)
			bench_add_row(b, &r);
	close(rfd);
	if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		return -1;
	return 0;
}

static int run_forked(struct bench_report *b, child_fn fn, const void *arg)
{
	struct sink k = { .b = b, .fd = -1 };
	int p[2];
	pid_t pid;

	if (pipe2(p, O_CLOEXEC))
		return -1;
	pid = spawn(&k, p[1], fn, arg);
	close(p[1]);
	if (pid < 0) {
		close(p[0]);
		return -1;
	}
	return collect(b, p[0], pid);
}

struct clock_job {
	const struct bench_spec *specs;
	size_t n;
	const struct bench_opts *o;
};

static void clock_child(struct sink *k, const void *arg)
{
	const struct clock_job *j = arg;

	run_specs(k, j->specs, j->n, BENCH_TZ_NONE, BENCH_CHILD, j->o);
}

int bench_run_clocks(struct bench_report *b, const struct bench_spec *s,
		     size_t n, const struct bench_opts *o)
{
	struct sink k = { .b = b, .fd = -1 };
	struct clock_job j = { s, n, o };

	run_specs(&k, s, n, BENCH_TZ_NONE, BENCH_PARENT, o);
	if (o->fork && run_forked(b, clock_child, &j))
		return -1;
	return 0;
}

struct tz_job {
	enum bench_tz tz;
	const struct bench_opts *o;
};

static void tz_grandchild(struct sink *k, const void *arg)
{
	const struct tz_job *j = arg;

	run_specs(k, tz_specs, ARRAY_SIZE(tz_specs), j->tz, BENCH_CHILD, j->o);
}

/*
 * The seeds' experiment: this process, with TZ as asked, is the parent;
 * with --fork its own forked child runs the same rows after it.
 */
static void tz_child(struct sink *k, const void *arg)
{
	const struct tz_job *j = arg;
	int status;
	pid_t pid;

	if (j->tz == BENCH_TZ_UNSET)
		unsetenv("TZ");
	else
		setenv("TZ", BENCH_TZ_FILE, 1);
	tzset();
	run_specs(k, tz_specs, ARRAY_SIZE(tz_specs), j->tz, BENCH_PARENT, j->o);
	if (!j->o->fork)
		return;
	pid = spawn(k, k->fd, tz_grandchild, j);
	if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) ||
	    WEXITSTATUS(status))
		_exit(EXIT_TOOL_FAILURE);
}

int bench_run_tz(struct bench_report *b, enum bench_tz tz,
		 const struct bench_opts *o)
{
	struct tz_job j = { tz, o };

	return run_forked(b, tz_child, &j);
}
