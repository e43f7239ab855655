/* SPDX-License-Identifier: GPL-2.0 */
/* clocktrace doctor: can this machine (and one process) be traced. */
#ifndef CLOCKTRACE_DOCTOR_H
#define CLOCKTRACE_DOCTOR_H

int cmd_doctor(int argc, char **argv);

#endif /* CLOCKTRACE_DOCTOR_H */
