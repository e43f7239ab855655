/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a run saw, as plain data: processes with their counters and
 * histograms, and what could not be recorded.  The collector fills it from
 * the BPF maps; findings and every reporter read it and nothing else, so
 * unit tests build one by hand.
 */
#ifndef CLOCKTRACE_MODEL_H
#define CLOCKTRACE_MODEL_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>
#include <linux/types.h>

#include "attach_mode.h"
#include "bpf_features.h"
#include "clocktrace.h"
#include "clocks.h"
#include "vdso_est.h"

struct container_names;
struct stack_table;

struct tz_path_stat {
	char path[TZ_PATH_LEN + 1];
	uint32_t kind;			/* KIND_TZ_* */
	uint64_t count;
	uint64_t errors;
};

struct clockid_stat {
	int32_t clockid;
	uint64_t count;
};

struct caller_stat {
	uint32_t fn;			/* enum libc_fn */
	uint64_t addr;
	uint64_t count;
	char *symbol;			/* NULL until symbolized */
	char *module;
	/* Durable names of the site, for addr2line and debuginfod. */
	char *build_id;			/* hex, NULL: the file has none */
	uint64_t offset;		/* file offset of the call */
	bool has_offset;
	char *source;			/* "FILE:LINE ...", NULL: no DWARF */
};

/* --lang: kernel events under one script frame of one process. */
struct lang_site_stat {
	uint32_t lang;			/* enum lang */
	uint32_t libc_fn;		/* enum libc_fn, with --libc; 0: none */
	char *file;
	char *func;
	char *cls;			/* Ruby's class; NULL for Python */
	uint32_t line;
	uint64_t tz_accesses;
	uint64_t clock_syscalls;
	/* --lang-depth: the frames that called it, innermost first. */
	struct lang_site_stat *outer;	/* their counts and outer unused */
	uint32_t nouter;
	bool stack_cut;			/* outer frames past these not known */
};

enum env_state { ENV_UNKNOWN, ENV_UNSET, ENV_SET };
enum libc_state { LIBC_STATE_UNKNOWN, LIBC_STATE_PROBED, LIBC_STATE_ABSENT };

struct proc_model {
	pid_t pid;
	pid_t ppid;
	unsigned int depth;
	char comm[COMM_LEN + 1];
	char *exe;
	uint64_t start_ns;		/* CLOCK_MONOTONIC */
	uint64_t exit_ns;
	uint64_t cpu_ns;		/* all its threads, known at exit */
	int exit_status;		/* wait(2) status */
	bool exited;
	bool execed;
	bool in_maps;			/* its entry was there at the last read */
	char *cgroup;			/* cgroup v2 path, NULL: unknown */
	char container[65];		/* container id, "": none */
	/* A container-like name in a delegated cgroup: not credited. */
	char container_unverified[65];
	/* Its container's names (container_names.h, never freed); NULL: none. */
	const struct container_names *names;
	pid_t nspid;			/* pid in its own pid namespace, 0: unknown */

	struct latency kinds[KIND_MAX];
	struct clockid_stat *clockids;
	size_t nclockids;
	struct tz_path_stat *paths;
	size_t npaths;

	uint64_t tz_changed;		/* tz paths rewritten during their syscall */

	enum env_state tz_state;
	char *tz;			/* the TZ value when set */
	char *tzdir;

	enum libc_state libc_state;
	char *libc_path;
	uint64_t running_since_ns;	/* its fork or its last exec; 0: unknown */
	bool libc_late;			/* a C library it maps was probed after that */
	/* --libc's rescans of its mappings: unchanged ones wait longer. */
	uint64_t maps_hash;
	uint64_t maps_next_ns;
	uint32_t maps_gap_ms;
	/* --lang: rescans left to find an interpreter the loader maps later. */
	uint8_t lang_rescans;
	uint64_t lang_next_ns;		/* the next one, CLOCK_MONOTONIC */
	struct libc_stats *libc;	/* LIBC_FN_MAX of them; NULL: none seen */
	struct caller_stat *callers;
	size_t ncallers;
	struct lang_site_stat *lang_sites;
	size_t nlang_sites;
	uint64_t folded;		/* exited processes summed in (groups) */
	struct vdso_samples vdso;	/* --vdso */
};

/* How --libc probed one function, over every library (bits). */
#define LIBC_PROBE_EMULATED	(1u << 0)	/* on an instruction the kernel emulates */
#define LIBC_PROBE_STEPPED	(1u << 1)	/* on one it single-steps (slow) */
#define LIBC_PROBE_IFUNC	(1u << 2)	/* an IFUNC: calls cannot be seen */
#define LIBC_PROBE_MISSING	(1u << 3)	/* no such symbol */
#define LIBC_PROBE_ALIAS	(1u << 4)	/* same code as an earlier function */

/*
 * Cost of one probe hit on the reference VM (Linux 6.18, 2 vCPUs, uprobe
 * session link), measured as the time tools/tzloop -n 100000 -c 0 -m MODE
 * adds under `clocktrace run --libc`, median of 5 runs interleaved with
 * untraced ones, per call:
 * - an entry on an instruction the kernel emulates: -m clock (count-only
 *   clock_gettime, probe on its `je`): 1.4 us;
 * - a return: -m localtime_r, entry and return on its emulated `jmp`:
 *   3.1 us, so 1.6 us for the return;
 * - a single-stepped entry: -m tzset adds 9.5 us, of which 1.5 us is the
 *   kernel side's own (its stat, without --libc) and 1.6 us the return.
 */
#define HIT_NS_EMULATED	1400
#define HIT_NS_STEPPED	6400
#define HIT_NS_RETURN	1600

/* How the library probes are linked, cheapest first. */
enum libc_links {
	LIBC_LINKS_CLASSIC,		/* one classic uprobe per function */
	LIBC_LINKS_MULTI,		/* uprobe-multi: an entry and a return link */
	LIBC_LINKS_SESSION,		/* one uprobe session link */
	LIBC_LINKS_PER_PROCESS,		/* tracefs uprobes on the traced tree only */
};

struct libc_run {
	uint8_t probe[LIBC_FN_MAX];	/* LIBC_PROBE_* */
	uint8_t links;			/* enum libc_links */
	bool systemwide;		/* probes trapped in every process */
	uint32_t libs;			/* distinct library files probed */
	uint32_t late_libs;		/* first seen in a running process */
	uint64_t attach_ns;		/* all attaches together */
};

/* How --lang probed the interpreters. */
struct lang_run {
	uint32_t files;			/* interpreter files probed */
	uint32_t failed;		/* files whose probes could not attach */
	uint32_t py_usdt_files;		/* Python files probed by USDT line */
	uint32_t py_frame_files;	/* CPython 3.11-3.13: frames read, no USDT */
	uint32_t py_frame_procs;	/* processes whose frames were read */
	uint32_t rb_usdt_files;		/* Ruby files probed by USDT */
	uint32_t rb_frame_files;	/* Ruby 3.1: frames read, no USDT */
	uint32_t rb_frame_procs;
	uint64_t py_lines_unknown;	/* events whose line the table copy lacked */
	/* Frame-mode events tied to no line, by enum lang_unattributed. */
	uint64_t unattributed[LANG_UN_MAX];
	char error[160];		/* why the last one failed */
};

/* The kernel traced on, and which variant of the BPF object ran there. */
struct kernel_run {
	char release[65];
	struct bpf_features features;
	enum attach_mode attach;	/* tracepoint or fentry: what ran */
};

struct model {
	const char *mode;		/* "run", "attach", "top" */
	char **command;
	int ncommand;
	uint64_t start_ns;		/* CLOCK_MONOTONIC */
	uint64_t end_ns;
	bool has_exit;			/* run: PROG's own status */
	int exit_code;
	int exit_signal;
	uint64_t losses[LOSS_MAX];
	char clocksource[64];
	/* Timed at start, before anything is attached. */
	struct clock_read_cost clock_cost;
	struct kernel_run kernel;
	bool libc_enabled;
	struct libc_run libc;
	bool lang_enabled;
	struct lang_run lang;
	/* --vdso: what one sample is worth, and each function's cost here. */
	bool vdso_enabled;
	double vdso_period_ns;
	struct vdso_cost vdso_cost[VDSO_FN_MAX];
	/* --stacks: rows of whole stacks, owned by the session (stack.h). */
	const struct stack_table *stacks;
	struct proc_model *procs;
	size_t nprocs;
	/*
	 * Exited processes evicted from the kernel maps (a long attach), summed
	 * per comm: pid is the group's number, folded how many processes.
	 */
	struct proc_model *folded;
	size_t nfolded;
	uint64_t evicted;		/* processes folded in all */
};

/* Most groups kept: the rest fold into one named "(other)". */
#define MODEL_FOLD_GROUPS	1024

/* Finds or adds a process, kept sorted by pid. */
struct proc_model *model_proc(struct model *m, pid_t pid);
struct proc_model *model_find(const struct model *m, pid_t pid);
/* Drops a process and what it holds; nothing if it is not there. */
void model_remove(struct model *m, pid_t pid);
/* Adds an exited process's counts to its comm's group, then drops it. */
void model_fold(struct model *m, pid_t pid);
void model_add_path(struct proc_model *p, const char *path, uint32_t kind,
		    uint64_t count, uint64_t errors);
void model_add_clockid(struct proc_model *p, int32_t clk, uint64_t count);
void model_add_caller(struct proc_model *p, uint32_t fn, uint64_t addr,
		      uint64_t count);
/* Frees the names of a call site (not the site itself). */
void caller_free_names(struct caller_stat *c);
/* The same code in the same file, whichever process ran it. */
bool caller_same_site(const struct caller_stat *a, const struct caller_stat *b);
void model_add_lang_site(struct proc_model *p, const struct lang_site_stat *s);
const char *lang_python_mechanism(const struct lang_run *r);
const char *lang_ruby_mechanism(const struct lang_run *r);
/* "no_thread_state", "threads_past_limit", "no_frame", "not_yet_read". */
const char *lang_unattributed_name(enum lang_unattributed why);
uint64_t lang_unattributed_total(const struct lang_run *r);
void lang_sites_clear(struct proc_model *p);
/* Its strings and outer frames, not s itself. */
void lang_site_free(struct lang_site_stat *s);
/* A deep copy of s into n. */
void lang_site_copy(struct lang_site_stat *n, const struct lang_site_stat *s);
/* The same script line in the same frame, whichever process ran it. */
/* One call site over many processes: the same code counted once. */
struct site_sum {
	const struct caller_stat *c;
	uint64_t calls;
	unsigned int procs;		/* a process has one row per site */
};

/* Adds c to the sums in *v (grown as needed): its site's, or a new one. */
void site_sum_add(struct site_sum **v, size_t *n, const struct caller_stat *c);
/* Most calls first. */
void site_sums_sort(struct site_sum *v, size_t n);
/* "do_work+0x28 (prog) at /src/prog.c:42", unescaped: malloc'd. */
char *caller_site_words(const struct caller_stat *c);

/* One script line over many processes. */
struct line_sum {
	const struct lang_site_stat *l;
	uint64_t tz, clock;
	unsigned int procs;
};

void line_sum_add(struct line_sum **v, size_t *n,
		  const struct lang_site_stat *l);
/* Most kernel events (tz accesses and clock syscalls) first. */
void line_sums_sort(struct line_sum *v, size_t n);
bool lang_same_site(const struct lang_site_stat *a,
		    const struct lang_site_stat *b);
/* The same site called through the same frames. */
bool lang_same_stack(const struct lang_site_stat *a,
		     const struct lang_site_stat *b);
/* line_sum_add()'s rows by stack, not by line. */
void stack_sum_add(struct line_sum **v, size_t *n,
		   const struct lang_site_stat *l);
const char *lang_name(uint32_t lang);	/* "ruby", "python" */
void model_free(struct model *m);
/* A deep copy: dst is freed first. */
void model_copy(struct model *dst, const struct model *src);
/* cur minus prev: what happened between two reads of the same maps. */
void model_delta(const struct model *prev, const struct model *cur,
		 struct model *out);

uint64_t model_duration_ns(const struct model *m);
/* Any loss at all, the file reader's (names, not events) too. */
bool model_any_loss(const struct model *m);
uint64_t model_lost(const struct model *m);

/* A process's stats of one libc function: zeros when it has none. */
const struct libc_stats *proc_libc(const struct proc_model *p, uint32_t fn);
/* The same, to fill in: allocated on first use (most runs have no --libc). */
struct libc_stats *proc_libc_mut(struct proc_model *p, uint32_t fn);

uint64_t proc_tz_accesses(const struct proc_model *p);
uint64_t proc_tz_errors(const struct proc_model *p);
uint64_t proc_clock_syscalls(const struct proc_model *p);
/* Most accesses of a single tz path by this process, and which path. */
uint64_t proc_tz_max_path(const struct proc_model *p, const char **path);
/* Seconds the process lived within the trace window (at least 1 us). */
double proc_seconds(const struct model *m, const struct proc_model *p);

/* Processes ordered by kernel events, most first (for reports). */
struct proc_model **model_by_activity(const struct model *m);

const char *kind_name(uint32_t kind);	/* "clock_gettime", "stat", ... */
bool kind_is_tz(uint32_t kind);
const char *loss_name(uint32_t loss);
const char *libc_fn_name(uint32_t fn);
/* "a uprobe session link", "uprobe-multi links" or "classic uprobes". */
const char *libc_links_name(uint8_t links);
/* Why no probe could count a function (LIBC_PROBE_* bits), or NULL. */
const char *libc_unobservable_reason(uint8_t probe);
/* Timed with entry and return probes (false: entry counted only). */
bool libc_fn_timed(uint32_t fn);

#endif /* CLOCKTRACE_MODEL_H */
