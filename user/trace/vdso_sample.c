// SPDX-License-Identifier: GPL-2.0
#include <errno.h>
#include <linux/perf_event.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <bpf/libbpf.h>

#include "util.h"
#include "vdso_sample.h"

/*
 * cpu-clock, not cycles: it exists where there is no PMU (most VMs, this
 * one included) and its period is CPU time in ns, so samples x period is
 * time whatever the CPU's frequency.  A fixed period, not a frequency:
 * the estimate needs to know what one sample is worth.
 */
static int open_cpu_clock(int cpu, uint64_t period_ns)
{
	struct perf_event_attr a = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(a),
		.config = PERF_COUNT_SW_CPU_CLOCK,
		.sample_period = period_ns,
	};

	return syscall(__NR_perf_event_open, &a, -1, cpu, -1,
		       PERF_FLAG_FD_CLOEXEC);
}

/* 0 attached, 1 an offline CPU (nothing runs there), -1 failed. */
static int attach_cpu(struct bpf_program *prog, int cpu, uint64_t period_ns,
		      struct bpf_link **link)
{
	int fd = open_cpu_clock(cpu, period_ns);

	*link = NULL;
	if (fd < 0 && errno == ENODEV)
		return 1;
	if (fd < 0) {
		ct_warn("--vdso: cannot open a cpu-clock event on CPU %d: %s",
			cpu, strerror(errno));
		return -1;
	}
	/* The link owns the event's descriptor from now on. */
	*link = bpf_program__attach_perf_event(prog, fd);
	if (!*link) {
		ct_warn("--vdso: cannot attach the sampler on CPU %d: %s",
			cpu, strerror(errno));
		close(fd);
		return -1;
	}
	return 0;
}

int vdso_sampler_attach(struct vdso_sampler *s, struct bpf_program *prog,
			unsigned int hz)
{
	int ncpus = libbpf_num_possible_cpus();
	uint64_t period_ns = 1000000000ull / hz;

	memset(s, 0, sizeof(*s));
	s->period_ns = period_ns;
	if (ncpus <= 0)
		return -1;
	s->links = calloc(ncpus, sizeof(*s->links));
	if (!s->links)
		return -1;
	for (int cpu = 0; cpu < ncpus; cpu++) {
		int r = attach_cpu(prog, cpu, period_ns, &s->links[s->nlinks]);

		if (r < 0) {
			vdso_sampler_detach(s);
			return -1;
		}
		s->nlinks += !r;
	}
	return 0;
}

void vdso_sampler_detach(struct vdso_sampler *s)
{
	for (int i = 0; i < s->nlinks; i++)
		bpf_link__destroy(s->links[i]);
	free(s->links);
	s->links = NULL;
	s->nlinks = 0;
}
