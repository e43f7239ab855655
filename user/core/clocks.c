// SPDX-License-Identifier: GPL-2.0
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/auxv.h>

#include "clocks.h"
#include "util.h"

static const char *const names[] = {
	[0] = "CLOCK_REALTIME",
	[1] = "CLOCK_MONOTONIC",
	[2] = "CLOCK_PROCESS_CPUTIME_ID",
	[3] = "CLOCK_THREAD_CPUTIME_ID",
	[4] = "CLOCK_MONOTONIC_RAW",
	[5] = "CLOCK_REALTIME_COARSE",
	[6] = "CLOCK_MONOTONIC_COARSE",
	[7] = "CLOCK_BOOTTIME",
	[8] = "CLOCK_REALTIME_ALARM",
	[9] = "CLOCK_BOOTTIME_ALARM",
	[11] = "CLOCK_TAI",
};

/* Low bits of a negative clock id (see posix-timers.h). */
#define CPUCLOCK_PERTHREAD	4
#define CLOCKFD			3

static const char *const cpu_kinds[] = { "PROF", "VIRT", "SCHED" };

const char *clock_name(int32_t clk, char *buf, size_t size)
{
	if (clk >= 0 && (size_t)clk < ARRAY_SIZE(names) && names[clk])
		return names[clk];
	if (clk < 0 && (clk & 7) == CLOCKFD) {
		snprintf(buf, size, "CLOCK_FD");
	} else if (clk < 0 && (clk & 3) < 3) {
		snprintf(buf, size, "CPUCLOCK_%s_%s",
			 clk & CPUCLOCK_PERTHREAD ? "THREAD" : "PROCESS",
			 cpu_kinds[clk & 3]);
	} else {
		snprintf(buf, size, "CLOCK_%d", clk);
	}
	return buf;
}

int clock_from_name(const char *name, int32_t *clk)
{
	const char *bare = name;
	uint64_t v;

	if (!strncasecmp(bare, "CLOCK_", 6))
		bare += 6;
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		if (names[i] && !strcasecmp(bare, names[i] + 6)) {
			*clk = i;
			return 0;
		}
	}
	if (!parse_u64(name, 0, 1023, &v)) {
		*clk = v;
		return 0;
	}
	return -1;
}

bool clock_is_standard(int32_t clk)
{
	return (clk >= 0 && clk <= 7) || clk == CLOCK_STANDARD_MAX;
}

bool clock_is_coarse(int32_t clk)
{
	return clk == 5 || clk == 6;
}

bool clock_vdso_capable(int32_t clk)
{
	return clk == 0 || clk == 1 || clk == 4 || clk == 5 || clk == 6 ||
	       clk == 7 || clk == 11;
}

bool clock_is_cpu(int32_t clk)
{
	/* Low bits 7 (per-thread and fd at once) name no clock: invalid. */
	return clk == 2 || clk == 3 ||
	       (clk < 0 && (clk & 7) != CLOCKFD && (clk & 7) != 7);
}

bool clocksource_has_vdso(const char *cs)
{
	/*
	 * From the kernel's vdso_clock_mode users.  kvm-clock has one only
	 * with the stable-TSC bit; we cannot see that bit, so we trust it.
	 */
	static const char *const with_vdso[] = {
		"tsc", "kvm-clock", "arch_sys_counter", "hyperv_clocksource_tsc_page",
		"riscv_clocksource", "timer", "xen",
	};

	for (size_t i = 0; i < ARRAY_SIZE(with_vdso); i++)
		if (!strcmp(cs, with_vdso[i]))
			return true;
	return false;
}

int read_clocksource(char *buf, size_t size, const char *which)
{
	char path[128];
	FILE *f;
	size_t n;

	snprintf(path, sizeof(path),
		 "/sys/devices/system/clocksource/clocksource0/%s", which);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, size - 1, f);
	fclose(f);
	while (n && isspace((unsigned char)buf[n - 1]))
		n--;
	buf[n] = '\0';
	return n ? 0 : -1;
}

bool clock_vdso_serves(int32_t clk, const char *cs, bool have_vdso,
		       const char **why)
{
	const char *reason;
	bool served;

	if (clock_is_cpu(clk)) {
		reason = "CPU-time clocks are never in the vDSO";
		served = false;
	} else if (!clock_vdso_capable(clk)) {
		reason = "the vDSO does not know this clock";
		served = false;
	} else if (!have_vdso) {
		reason = "no vDSO is mapped";
		served = false;
	} else if (clock_is_coarse(clk)) {
		/* Jiffies-based: nothing to read from the clocksource. */
		reason = "coarse clocks need no clocksource read";
		served = true;
	} else if (cs && clocksource_has_vdso(cs)) {
		reason = "the clocksource has a vDSO mode";
		served = true;
	} else {
		reason = "the clocksource has no vDSO mode";
		served = false;
	}
	if (why)
		*why = reason;
	return served;
}

bool vdso_mapped(void)
{
	return getauxval(AT_SYSINFO_EHDR) != 0;
}

bool clock_cost_falls_back(const struct clock_read_cost *c)
{
	return c->known && c->syscall_ns > 0 &&
	       c->libc_ns >= CLOCK_FALLBACK_RATIO * c->syscall_ns;
}

double clock_cost_saving_ns(const struct clock_read_cost *c)
{
	double d = c->coarse_syscall_ns - c->coarse_vdso_ns;

	return c->known && d > 0 ? d : 0;
}
