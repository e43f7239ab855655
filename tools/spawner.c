// SPDX-License-Identifier: GPL-2.0
/*
 * spawner - run a program through one particular process-creation path
 * (vfork, posix_spawn, fork+exec, clone, system), so that a tracer's
 * child-following can be checked against each of them.
 *
 * Exits with the program's status, or 128+N if signal N killed it, or 127
 * if the program could not be started.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#define CLONE_STACK_SIZE	(256 * 1024)

extern char **environ;

__attribute__((noreturn)) static void usage(void)
{
	fprintf(stderr,
		"usage: spawner MODE PROG [ARGS...]\n"
		"  MODE: vfork | posix_spawn | fork-exec | clone | system\n"
		"  PROG is a path (no PATH search), except in system mode\n");
	exit(2);
}

static void exec_failed(const char *prog)
{
	fprintf(stderr, "spawner: exec %s: %s\n", prog, strerror(errno));
	_exit(127);
}

static pid_t spawn_vfork(char **argv)
{
	/* Shared with the vfork child, which may not call stdio itself. */
	static volatile int exec_errno;
	pid_t pid;

	exec_errno = 0;
	pid = vfork();
	if (pid == 0) {
		execv(argv[0], argv);
		exec_errno = errno;
		_exit(127);
	}
	if (pid > 0 && exec_errno)
		fprintf(stderr, "spawner: exec %s: %s\n", argv[0],
			strerror(exec_errno));
	return pid;
}

static pid_t spawn_posix(char **argv)
{
	pid_t pid;
	int err;

	err = posix_spawn(&pid, argv[0], NULL, NULL, argv, environ);
	if (err) {
		fprintf(stderr, "spawner: posix_spawn %s: %s\n", argv[0],
			strerror(err));
		exit(127);
	}
	return pid;
}

static pid_t spawn_fork(char **argv)
{
	pid_t pid = fork();

	if (pid == 0) {
		execv(argv[0], argv);
		exec_failed(argv[0]);
	}
	return pid;
}

static int clone_child(void *arg)
{
	char **argv = arg;

	execv(argv[0], argv);
	exec_failed(argv[0]);
	return 127;
}

/* A new process (not a thread) on its own stack, reaped like a fork child. */
static pid_t spawn_clone(char **argv)
{
	char *stack = malloc(CLONE_STACK_SIZE);

	if (!stack) {
		perror("malloc");
		exit(1);
	}
	return clone(clone_child, stack + CLONE_STACK_SIZE, SIGCHLD, argv);
}

/* Single-quote every word so that /bin/sh -c sees exactly these arguments. */
static char *shell_command(char **argv)
{
	size_t len = 1, i;
	char *cmd, *p, *s;

	for (i = 0; argv[i]; i++)
		len += 3 + 4 * strlen(argv[i]);
	cmd = malloc(len);
	if (!cmd) {
		perror("malloc");
		exit(1);
	}
	p = cmd;
	for (i = 0; argv[i]; i++) {
		if (i)
			*p++ = ' ';
		*p++ = '\'';
		for (s = argv[i]; *s; s++) {
			if (*s == '\'') {
				memcpy(p, "'\\''", 4);
				p += 4;
			} else {
				*p++ = *s;
			}
		}
		*p++ = '\'';
	}
	*p = '\0';
	return cmd;
}

static int exit_code(int status)
{
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return WEXITSTATUS(status);
}

static int run_system(char **argv)
{
	char *cmd = shell_command(argv);
	int status = system(cmd);

	free(cmd);
	if (status < 0) {
		perror("system");
		return 127;
	}
	return exit_code(status);
}

static int wait_for(pid_t pid)
{
	int status;

	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			perror("waitpid");
			return 127;
		}
	}
	return exit_code(status);
}

int main(int argc, char **argv)
{
	const char *mode;
	char **prog_argv;
	pid_t pid;

	if (argc < 3)
		usage();
	mode = argv[1];
	prog_argv = argv + 2;
	if (!strcmp(mode, "system"))
		return run_system(prog_argv);
	if (!strcmp(mode, "vfork"))
		pid = spawn_vfork(prog_argv);
	else if (!strcmp(mode, "posix_spawn"))
		pid = spawn_posix(prog_argv);
	else if (!strcmp(mode, "fork-exec"))
		pid = spawn_fork(prog_argv);
	else if (!strcmp(mode, "clone"))
		pid = spawn_clone(prog_argv);
	else
		usage();
	if (pid < 0) {
		fprintf(stderr, "spawner: %s: %s\n", mode, strerror(errno));
		return 127;
	}
	return wait_for(pid);
}
