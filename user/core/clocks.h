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

/*
 * What one clock read costs on this machine (user/trace/clock_cost.c
 * times it; bench's table has the same rows): the price of the reads the
 * vDSO could have served but the kernel did.
 */
struct clock_read_cost {
	bool known;
	double syscall_ns;	/* CLOCK_MONOTONIC by syscall(2) */
	double libc_ns;		/* the same through the C library */
	double coarse_syscall_ns;	/* CLOCK_MONOTONIC_COARSE by syscall(2) */
	double coarse_vdso_ns;	/* the same through the vDSO: never falls back */
};
/* A library read costing this share of the syscall's made one. */
#define CLOCK_FALLBACK_RATIO	0.7
/*
 * The vDSO did not serve CLOCK_MONOTONIC here although it is mapped:
 * the clocksource has no vDSO mode, or its mode was withdrawn (kvm-clock
 * without a stable TSC, a TSC found unstable).
 */
bool clock_cost_falls_back(const struct clock_read_cost *c);
/*
 * ns a read saves, at the least, once the vDSO serves it: the kernel's
 * entry and exit (the COARSE read by syscall less the same in the vDSO),
 * a floor whatever the new clocksource's own read costs as long as it is
 * no slower than the current one's (tsc against hpet or acpi_pm).  0 when
 * unknown.
 */
double clock_cost_saving_ns(const struct clock_read_cost *c);

#endif /* CLOCKTRACE_CLOCKS_H */
