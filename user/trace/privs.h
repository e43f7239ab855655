/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_PRIVS_H
#define CLOCKTRACE_PRIVS_H

#include <stdbool.h>

/*
 * Once the probes are attached and PROG is forked, keep only the
 * capabilities tracing still uses (more probes with --libc, /proc of other
 * users' processes, signals to PROG) and drop the rest from the effective,
 * permitted, inheritable and bounding sets; no exec may regain them.
 */
int drop_privileges(bool libc);

#endif /* CLOCKTRACE_PRIVS_H */
