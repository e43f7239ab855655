/* SPDX-License-Identifier: GPL-2.0 */
/* The tracing subcommands, each a session of its own mode. */
#ifndef CLOCKTRACE_CMDS_H
#define CLOCKTRACE_CMDS_H

#include "session.h"

int cmd_run(int argc, char **argv);
int cmd_attach(int argc, char **argv);
int cmd_top(int argc, char **argv);
/* run, run --compare: PROG has exited and, with --follow, every descendant. */
bool run_over(struct session *s);
/* run --compare: the mode run's ops give way to once the options say so. */
extern const struct session_ops compare_ops;

#endif /* CLOCKTRACE_CMDS_H */
