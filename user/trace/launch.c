// SPDX-License-Identifier: GPL-2.0
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "launch.h"
#include "util.h"

struct run_user {
	uid_t uid;
	gid_t gid;
	char name[256];
	char home[1024];
};

static int resolve_user(const char *user, struct run_user *ru)
{
	struct passwd *pw = getpwnam(user);
	uint64_t uid;

	if (!pw && !parse_u64(user, 0, UINT32_MAX - 1, &uid))
		pw = getpwuid(uid);
	if (!pw) {
		ct_warn("run: no such user '%s'", user);
		return -1;
	}
	ru->uid = pw->pw_uid;
	ru->gid = pw->pw_gid;
	snprintf(ru->name, sizeof(ru->name), "%s", pw->pw_name);
	snprintf(ru->home, sizeof(ru->home), "%s", pw->pw_dir);
	return 0;
}

/* In the child: become the user entirely, groups first, uid last. */
static int become_user(const struct run_user *ru)
{
	if (initgroups(ru->name, ru->gid) || setgid(ru->gid) ||
	    setuid(ru->uid))
		return -1;
	setenv("HOME", ru->home, 1);
	setenv("USER", ru->name, 1);
	setenv("LOGNAME", ru->name, 1);
	return 0;
}

static void report_errno(int fd, int err)
{
	ssize_t n = write(fd, &err, sizeof(err));

	(void)n;
}

/* Before exec and before becoming the user: putenv of our own strings. */
static void apply_env(char *const *set_env)
{
	for (; set_env && *set_env; set_env++) {
		const char *eq = strchr(*set_env, '=');
		char name[256];

		if (!eq || (size_t)(eq - *set_env) >= sizeof(name))
			continue;
		snprintf(name, sizeof(name), "%.*s", (int)(eq - *set_env),
			 *set_env);
		setenv(name, eq + 1, 1);
	}
}

/*
 * Our descriptors are all close-on-exec; the user's own are not.  The
 * directory, not a loop to RLIMIT_NOFILE: this runs in PROG's CPU time.
 */
static void close_cloexec_fds(int keep1, int keep2)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;

	if (!d)
		return;
	while ((e = readdir(d))) {
		char *end;
		long fd = strtol(e->d_name, &end, 10);
		int fl = *end ? -1 : fcntl(fd, F_GETFD);

		if (fd > 2 && fd != dirfd(d) && fd != keep1 && fd != keep2 &&
		    fl >= 0 && (fl & FD_CLOEXEC))
			close(fd);
	}
	closedir(d);
}

static void __attribute__((noreturn))
child(int go_fd, int err_fd, char **argv, const struct run_user *ru,
      const sigset_t *sigmask, char *const *set_env)
{
	char c;

	/* If clocktrace dies before release, never run PROG untraced. */
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (read(go_fd, &c, 1) != 1)
		_exit(EXIT_TOOL_FAILURE);
	prctl(PR_SET_PDEATHSIG, 0);
	close(go_fd);
	sigprocmask(SIG_SETMASK, sigmask, NULL);
	/* clocktrace ignores SIGPIPE; an ignored signal survives exec. */
	signal(SIGPIPE, SIG_DFL);
	apply_env(set_env);
	if (ru && become_user(ru)) {
		report_errno(err_fd, -errno);
		_exit(EXIT_TOOL_FAILURE);
	}
	execvp(argv[0], argv);
	report_errno(err_fd, errno);
	_exit(errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC);
}

int launch_prepare(struct launch *l, char **argv, const char *user,
		   const sigset_t *sigmask)
{
	struct launch_opts o = { .user = user };

	return launch_prepare_opts(l, argv, &o, sigmask);
}

int launch_prepare_opts(struct launch *l, char **argv,
			const struct launch_opts *o, const sigset_t *sigmask)
{
	struct run_user ru, *rup = NULL;
	int go[2], err[2], out[2] = { -1, -1 };

	memset(l, 0, sizeof(*l));
	l->pidfd = -1;
	l->out_fd = -1;
	if (o->user) {
		if (resolve_user(o->user, &ru))
			return -1;
		rup = &ru;
	}
	if (pipe2(go, O_CLOEXEC) || pipe2(err, O_CLOEXEC) ||
	    (o->capture_stdout && pipe2(out, O_CLOEXEC))) {
		ct_warn("pipe: %s", strerror(errno));
		return -1;
	}
	l->pid = fork();
	if (l->pid < 0) {
		ct_warn("fork: %s", strerror(errno));
		return -1;
	}
	if (l->pid == 0) {
		close(go[1]);
		close(err[0]);
		if (out[1] >= 0 && dup2(out[1], STDOUT_FILENO) < 0)
			_exit(EXIT_TOOL_FAILURE);
		if (o->close_inherited)
			close_cloexec_fds(go[0], err[1]);
		child(go[0], err[1], argv, rup, sigmask, o->set_env);
	}
	close(go[0]);
	close(err[1]);
	if (out[1] >= 0)
		close(out[1]);
	l->out_fd = out[0];
	l->go_fd = go[1];
	l->err_fd = err[0];
	l->pidfd = syscall(SYS_pidfd_open, l->pid, 0);
	if (l->pidfd < 0) {
		ct_warn("pidfd_open: %s", strerror(errno));
		launch_abort(l);
		return -1;
	}
	return 0;
}

int launch_release(struct launch *l, const char *prog)
{
	char safe[256];
	int child_errno = 0;
	ssize_t n;

	if (write(l->go_fd, "x", 1) != 1) {
		ct_warn("cannot release PROG: %s", strerror(errno));
		return EXIT_TOOL_FAILURE;
	}
	close(l->go_fd);
	l->go_fd = -1;
	l->released = true;
	/* EOF: the pipe closed on exec, PROG runs. */
	n = read(l->err_fd, &child_errno, sizeof(child_errno));
	close(l->err_fd);
	l->err_fd = -1;
	if (n != sizeof(child_errno))
		return 0;
	waitpid(l->pid, NULL, 0);
	if (child_errno < 0) {
		ct_warn("run: cannot switch to the user: %s", strerror(-child_errno));
		return EXIT_TOOL_FAILURE;
	}
	ct_warn("%s: %s", escape_arg(safe, sizeof(safe), prog),
	     strerror(child_errno));
	return child_errno == ENOENT ? EXIT_NOT_FOUND : EXIT_CANNOT_EXEC;
}

void launch_abort(struct launch *l)
{
	if (l->go_fd > 0)
		close(l->go_fd);
	if (l->err_fd > 0)
		close(l->err_fd);
	if (l->pidfd > 0)
		close(l->pidfd);
	if (l->out_fd > 0)
		close(l->out_fd);
	/* A released PROG is the user's: it is never killed here. */
	if (l->pid > 0 && !l->released) {
		kill(l->pid, SIGKILL);
		waitpid(l->pid, NULL, 0);
	}
	l->pid = 0;
	l->go_fd = l->err_fd = l->pidfd = l->out_fd = -1;
}
