/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_BENCH_H
#define CLOCKTRACE_BENCH_H
int cmd_bench(int argc, char **argv);
#endif
