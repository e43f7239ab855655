/* SPDX-License-Identifier: GPL-2.0 */
#ifndef CLOCKTRACE_CLOCKS_H
#define CLOCKTRACE_CLOCKS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The TZ that stops glibc re-checking /etc/localtime on every call. */
#define TZ_FIX_VALUE		":/etc/localtime"

/*
 * Names of clock ids.  CPU clocks of another process or thread, and fd
 * clocks, arrive from the BPF side with the pid or fd masked out.
 */
const char *clock_name(int32_t clk, char *buf, size_t size);
/* "CLOCK_MONOTONIC", "monotonic", "MONOTONIC" or a number; -1 if unknown. */
int clock_from_name(const char *name, int32_t *clk);

/*
 * The clocks a program names with a constant (CLOCK_REALTIME ... CLOCK_TAI),
 * not the alarm clocks, which only timers take.
 */
bool clock_is_standard(int32_t clk);
#define CLOCK_STANDARD_MAX	11	/* CLOCK_TAI */
/* Served in userspace by the vDSO when the clocksource allows it. */
bool clock_vdso_capable(int32_t clk);
/* Served by the vDSO whatever the clocksource (jiffies-based). */
bool clock_is_coarse(int32_t clk);
/* CPU-time clocks: always a real syscall. */
bool clock_is_cpu(int32_t clk);

/* Clocksources whose vDSO mode lets the vDSO serve the time. */
bool clocksource_has_vdso(const char *clocksource);
/* Reads /sys/devices/system/clocksource/clocksource0/current_clocksource. */
int read_clocksource(char *buf, size_t size, const char *which);

/*
 * Whether the vDSO answers clk without entering the kernel, given the
 * current clocksource and whether a vDSO is mapped at all.  why, if not
 * NULL, gets the reason in a few words.
 */
bool clock_vdso_serves(int32_t clk, const char *clocksource, bool have_vdso,
		       const char **why);
/* Whether this process has a vDSO mapped (AT_SYSINFO_EHDR). */
bool vdso_mapped(void);

#endif /* CLOCKTRACE_CLOCKS_H */
