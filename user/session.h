/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_SESSION_H
#define CLOCKTRACE_SESSION_H

#include <signal.h>
#include <stdio.h>

#include "cli.h"
#include "launch.h"
#include "libc_probe.h"
#include "model.h"
#include "tracer.h"

struct session {
	struct env env;
	struct tracer tracer;
	struct libc_probe libc;
	struct launch launch;
	struct model model;
	struct model prev;		/* at the last interval report */
	FILE *out;
	sigset_t old_mask;
	int epfd;
	int sigfd;
	int timerfd;
	int stopfd;
	int interrupts;
	int abort_signal;		/* second ^C: leave now, no report */
	bool prog_exited;
	int prog_status;
	uint64_t exits_seen;
};

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_top(int argc, char **argv);

#endif /* CLOCKTRACE_SESSION_H */
