/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_DOCTOR_H
#define CLOCKTRACE_DOCTOR_H
int cmd_doctor(int argc, char **argv);
#endif
