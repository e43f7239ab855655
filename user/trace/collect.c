// SPDX-License-Identifier: GPL-2.0
/*
 * Maps -> model.  Entries are read without deleting them: totals only grow,
 * so a reader never races the BPF side into losing counts, and per-interval
 * figures are differences of two reads.
 */
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "clocktrace.skel.h"
#include "reader.h"
#include "tracer.h"
#include "util.h"

typedef void (*entry_fn)(struct model *m, const void *key, const void *val);

static int for_each_entry(struct bpf_map *map, struct model *m, entry_fn fn)
{
	size_t ksz = bpf_map__key_size(map), vsz = bpf_map__value_size(map);
	char key[ksz], next[ksz], val[vsz];
	int fd = bpf_map__fd(map);
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		memcpy(key, next, ksz);
		prev = key;
		if (!bpf_map_lookup_elem(fd, key, val))
			fn(m, key, val);
	}
	return 0;
}

static void take_proc(struct model *m, const void *key, const void *val)
{
	const struct proc *k = val;
	struct proc_model *p = model_proc(m, *(const __u32 *)key);

	p->ppid = k->ppid;
	p->depth = k->depth;
	p->start_ns = k->start_ns;
	p->exit_ns = k->exit_ns;
	p->cpu_ns = k->cpu_ns;
	p->exit_status = k->exit_status;
	p->tz_changed = k->tz_changed;
	p->exited = k->flags & PROC_EXITED;
	p->in_maps = true;
	p->execed = k->flags & PROC_EXECED;
	memcpy(p->comm, k->comm, COMM_LEN);
	p->comm[COMM_LEN] = '\0';
}

/* The clock id (CPU and fd clocks: their class) of a clock_ids slot. */
static __s32 clock_id_of_slot(int slot)
{
	return slot < CLOCK_ID_SLOTS_POSIX ? slot : slot - CLOCK_ID_SLOTS;
}

static const char *const tz_file_path[TZ_FILES] = {
	[TZ_FILE_LOCALTIME] = TZ_FILE_LOCALTIME_PATH,
	[TZ_FILE_TIMEZONE] = TZ_FILE_TIMEZONE_PATH,
};

/* What the BPF side counted in the kind's own entry (struct kind_stats). */
static void take_kind_args(struct proc_model *p, __u32 kind,
			   const struct kind_stats *s)
{
	if (kind == KIND_CLOCK_GETTIME) {
		for (int i = 0; i < CLOCK_ID_SLOTS; i++)
			if (s->clock_ids[i])
				model_add_clockid(p, clock_id_of_slot(i),
						  s->clock_ids[i]);
		return;
	}
	if (kind < KIND_FIRST_TZ)
		return;
	for (int f = 0; f < TZ_FILES; f++)
		if (s->tz_files[f].count || s->tz_files[f].errors)
			model_add_path(p, tz_file_path[f], kind,
				       s->tz_files[f].count,
				       s->tz_files[f].errors);
}

static void take_stats(struct model *m, const void *key, const void *val)
{
	const struct stats_key *k = key;
	const struct kind_stats *s = val;
	struct proc_model *p;

	if (k->kind >= KIND_MAX)
		return;
	p = model_proc(m, k->tgid);
	p->kinds[k->kind] = s->lat;
	take_kind_args(p, k->kind, s);
}

static void take_clockid(struct model *m, const void *key, const void *val)
{
	const struct clockid_key *k = key;

	model_add_clockid(model_proc(m, k->tgid), k->clockid,
			  *(const __u64 *)val);
}

static void take_path(struct model *m, const void *key, const void *val)
{
	const struct tz_path_key *k = key;
	const struct tz_path_count *c = val;
	char path[TZ_PATH_LEN + 1];

	memcpy(path, k->path, TZ_PATH_LEN);
	path[TZ_PATH_LEN] = '\0';
	model_add_path(model_proc(m, k->tgid), path, k->kind, c->count,
		       c->errors);
}

static void take_libc(struct model *m, const void *key, const void *val)
{
	const struct libc_key *k = key;

	if (k->fn < LIBC_FN_MAX)
		*proc_libc_mut(model_proc(m, k->tgid), k->fn) =
			*(const struct libc_stats *)val;
}

static void take_caller(struct model *m, const void *key, const void *val)
{
	const struct caller_key *k = key;

	model_add_caller(model_proc(m, k->tgid), k->fn, k->ret_addr,
			 *(const __u64 *)val);
}

static void read_losses(struct tracer *t, struct model *m)
{
	int fd = bpf_map__fd(t->skel->maps.losses);

	for (__u32 i = 0; i < LOSS_MAX; i++) {
		__u64 v = 0;

		if (!bpf_map_lookup_elem(fd, &i, &v))
			m->losses[i] = v + t->user_losses[i];
	}
	reader_losses(m->losses);
}

/* Offsets symbolized as they are read: the model keeps functions. */
static void take_vdso(struct tracer *t, struct model *m)
{
	int fd = bpf_map__fd(t->skel->maps.vdso_samples);
	struct vdso_key key, next, *prev = NULL;
	__u64 n;

	m->vdso_enabled = true;
	m->vdso_period_ns = t->sampler.period_ns;
	memcpy(m->vdso_cost, t->vdso.cost, sizeof(m->vdso_cost));
	while (!bpf_map_get_next_key(fd, prev, &next)) {
		struct proc_model *p;

		key = next;
		prev = &key;
		if (bpf_map_lookup_elem(fd, &key, &n))
			continue;
		p = model_proc(m, key.tgid);
		p->vdso.total += n;
		if (key.off != VDSO_OFF_OUTSIDE)
			p->vdso.fn[vdso_image_fn(&t->vdso, key.off)] += n;
	}
}

static void reset_counters(struct model *m)
{
	for (size_t i = 0; i < m->nprocs; i++) {
		struct proc_model *p = &m->procs[i];

		p->in_maps = false;
		memset(&p->vdso, 0, sizeof(p->vdso));
		for (int k = 0; k < KIND_MAX; k++) {
			memset(&p->kinds[k], 0, sizeof(p->kinds[k]));
			p->kinds[k].min_ns = UINT64_MAX;
		}
		free(p->libc);
		p->libc = NULL;
		p->nclockids = 0;
		p->npaths = 0;
		for (size_t c = 0; c < p->ncallers; c++)
			caller_free_names(&p->callers[c]);
		p->ncallers = 0;
	}
}

int tracer_collect(struct tracer *t, struct model *m)
{
	struct clocktrace_bpf *s = t->skel;

	/* Counters are totals: start from zero, keep what events told. */
	reset_counters(m);
	for_each_entry(s->maps.procs, m, take_proc);
	for_each_entry(s->maps.stats, m, take_stats);
	for_each_entry(s->maps.clockids, m, take_clockid);
	for_each_entry(s->maps.tz_paths, m, take_path);
	for_each_entry(s->maps.libc_stats, m, take_libc);
	for_each_entry(s->maps.callers, m, take_caller);
	if (t->opts.vdso)
		take_vdso(t, m);
	read_losses(t, m);
	return 0;
}

static int cmp_pid(const void *a, const void *b)
{
	pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

	return (x > y) - (x < y);
}

/* Every key of the maps below starts with the tgid it belongs to. */
static void delete_keys_of(struct bpf_map *map, const pid_t *pids, size_t n)
{
	size_t ksz = bpf_map__key_size(map), nkeys = 0;
	int fd = bpf_map__fd(map);
	char *keys = NULL, cur[ksz], next[ksz];
	void *prev = NULL;

	while (!bpf_map_get_next_key(fd, prev, next)) {
		pid_t tgid;

		memcpy(cur, next, ksz);
		prev = cur;
		memcpy(&tgid, cur, sizeof(tgid));
		if (!bsearch(&tgid, pids, n, sizeof(*pids), cmp_pid))
			continue;
		keys = xrealloc(keys, nkeys + 1, ksz);
		memcpy(keys + nkeys++ * ksz, cur, ksz);
	}
	/* Deleted after the walk: a deleted key would restart it. */
	for (size_t i = 0; i < nkeys; i++)
		bpf_map_delete_elem(fd, keys + i * ksz);
	free(keys);
}

/* Only processes whose entry still says exited: a reused pid stays. */
static size_t still_exited(struct tracer *t, pid_t *pids, size_t n)
{
	int fd = bpf_map__fd(t->skel->maps.procs);
	size_t kept = 0;

	for (size_t i = 0; i < n; i++) {
		__u32 key = pids[i];
		struct proc p;

		if (!bpf_map_lookup_elem(fd, &key, &p) && (p.flags & PROC_EXITED))
			pids[kept++] = pids[i];
	}
	return kept;
}

size_t tracer_evict(struct tracer *t, pid_t *pids, size_t n)
{
	struct clocktrace_bpf *s = t->skel;

	n = still_exited(t, pids, n);
	if (!n)
		return 0;
	qsort(pids, n, sizeof(*pids), cmp_pid);
	delete_keys_of(s->maps.stats, pids, n);
	delete_keys_of(s->maps.clockids, pids, n);
	delete_keys_of(s->maps.tz_paths, pids, n);
	delete_keys_of(s->maps.libc_stats, pids, n);
	delete_keys_of(s->maps.callers, pids, n);
	delete_keys_of(s->maps.proc_tz, pids, n);
	/* Last: while it is there, a fork reusing the pid counts a loss. */
	delete_keys_of(s->maps.procs, pids, n);
	return n;
}
