/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Start PROG held on a pipe: it is forked at once but execs only when
 * released, after every probe is attached and its pid is in the filter, so
 * not one of its events is missed.
 */
#ifndef CLOCKTRACE_LAUNCH_H
#define CLOCKTRACE_LAUNCH_H

#include <signal.h>
#include <stdbool.h>
#include <sys/types.h>

struct launch {
	pid_t pid;
	int pidfd;
	int go_fd;		/* write a byte: exec now */
	int err_fd;		/* the child's exec errno, or EOF on success */
	int out_fd;		/* PROG's stdout when captured, else -1 */
	bool released;
};

/* run --compare: what changes between PROG's variants. */
struct launch_opts {
	const char *user;
	char *const *set_env;	/* NAME=VALUE, NULL-terminated, or NULL */
	bool capture_stdout;	/* PROG's stdout into out_fd */
	/*
	 * Several PROGs held at once: each closes what it inherited from the
	 * others, or an earlier one's release would wait on a later one.
	 */
	bool close_inherited;
};

/*
 * Resolves USER (name or uid) first, so a bad name fails before anything
 * is forked.  sigmask is what the child restores before exec.
 */
int launch_prepare(struct launch *l, char **argv, const char *user,
		   const sigset_t *sigmask);
int launch_prepare_opts(struct launch *l, char **argv,
			const struct launch_opts *o, const sigset_t *sigmask);
/* Returns 0, or the exit status (126/127) after one line on stderr. */
int launch_release(struct launch *l, const char *prog);
/* Kills and reaps a child that was never released. */
void launch_abort(struct launch *l);

#endif /* CLOCKTRACE_LAUNCH_H */
