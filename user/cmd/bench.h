/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_BENCH_H
#define CLOCKTRACE_BENCH_H

/* clocktrace bench: what each way of reading the time costs here. */
int cmd_bench(int argc, char **argv);

#endif /* CLOCKTRACE_BENCH_H */
