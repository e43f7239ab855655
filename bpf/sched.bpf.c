// SPDX-License-Identifier: GPL-2.0
/*
 * The life of a traced process: fork (a child of a target is a target),
 * exec (its new environment's TZ and TZDIR read before it runs) and exit
 * (its status and CPU time), each told to userspace on the ring buffer.
 */
#include "shared.bpf.h"
#define TZ_INLINE static __always_inline
#include "tzpath.h"
#include "targets.bpf.h"

/*
 * Ring-buffer wake-ups: a wake-up is an interrupt and a reschedule of the
 * reader (several microseconds in a VM, more than all the rest of a
 * process event).  With lazy_wakeup the reader polls every few
 * milliseconds instead (user/trace/tracer.c) and is woken only once a quarter of
 * the buffer waits.  --libc and --lang act on each exec notice at once:
 * they keep a wake-up per notice.
 */
const volatile bool lazy_wakeup = false;
const volatile __u64 wake_avail_bytes = 0;
/* attach --comm: a process that execs into this name is a target too. */
const volatile char target_comm[COMM_LEN] = {};

struct env_walk {
	__u64 ptr;		/* the next entry, in the new process's memory */
	__u64 end;
	__u32 left;		/* reads left of the ENV_ENTRIES_MAX per exec */
	bool cont;		/* it continues an entry too long for one read */
};

/*
 * The environment as the ELF loader left it, copied once: the block
 * env_start..env_end and the envp pointers into it.  Entries are then
 * looked at in the copy, without a helper call each.
 */
struct env_copy {
	__u64 base;		/* env_start */
	__u64 size;		/* env_end - env_start */
	__u64 copied;		/* bytes of the block in env_scratch.block */
	__u64 off;		/* where the next entry starts, in the block */
	__u32 next;		/* the next entry's index in envp */
	__u32 count;		/* entries whose pointers were copied */
	__u32 envc;		/* entries the kernel put there (bprm->envc) */
};

/*
 * Scratch for exec: the environment copy (the walk reads one entry at a
 * time into the start of block), the proc_tz being built and where the
 * walk is (here, not on the stack, so that the steps can be global
 * functions that take no pointer).  A per-CPU value has 32 KiB at most.
 */
struct env_scratch {
	struct proc_tz tz;
	struct env_walk walk;
	struct env_copy copy;
	struct exec_env env;
	__u64 envp[ENV_ENTRIES_MAX + 1];
	/* + 8: an entry's first bytes are compared without a bound each. */
	char block[ENV_BLOCK_LEN + 8];
};

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct env_scratch);
} env_scratch SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 1024 * 1024);	/* --ringbuf-kb */
} events SEC(".maps");

/* Thread ids are reused: the hash map forgets each thread at its exit. */
static __always_inline void forget_thread(struct task_struct *p)
{
	__u32 tid = p->pid;

	if (!has_task_storage)
		bpf_map_delete_elem(&thread_states, &tid);
}

/*
 * The task arguments of the sched tracepoints are typed (BTF): their fields
 * are read directly, without a helper call each.  Only an index the
 * verifier cannot bound goes through BPF_CORE_READ.
 */

/* The pid the process has in its own (innermost) pid namespace. */
static __always_inline __u32 ns_pid(struct task_struct *task)
{
	struct pid *pid = task->thread_pid;

	return BPF_CORE_READ(pid, numbers[pid->level].nr);
}

/* comm and ts_ns when the caller has them already, else NULL and 0. */
static __always_inline void fill_event(struct event *e, __u32 type,
				       struct task_struct *task, __u32 ppid,
				       __s32 status, const char *comm, __u64 ts_ns)
{
	e->type = type;
	e->pid = task->tgid;
	e->ppid = ppid;
	e->exit_status = status;
	e->ts_ns = ts_ns ? ts_ns : bpf_ktime_get_ns();
	if (comm)
		__builtin_memcpy(e->comm, comm, COMM_LEN);
	else
		__builtin_memcpy(e->comm, task->comm, COMM_LEN);
	e->nspid = ns_pid(task);
	e->pad = 0;
	/* A fork's parent and child share it; exec and exit: the task. */
	e->cgroup_id = bpf_get_current_cgroup_id();
}

/* 0: the kernel wakes the reader if it had read all before this notice. */
static __always_inline __u64 wake_flags(void)
{
	if (!lazy_wakeup)
		return 0;
	if (bpf_ringbuf_query(&events, BPF_RB_AVAIL_DATA) >= wake_avail_bytes)
		return BPF_RB_FORCE_WAKEUP;
	return BPF_RB_NO_WAKEUP;
}

static __always_inline void emit(__u32 type, struct task_struct *task,
				 __u32 ppid, __s32 status, const char *comm,
				 __u64 ts_ns)
{
	struct event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		count_loss(LOSS_RINGBUF_FULL);
		return;
	}
	fill_event(e, type, task, ppid, status, comm, ts_ns);
	bpf_ringbuf_submit(e, wake_flags());
}

static __always_inline struct env_scratch *env_scratch_get(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&env_scratch, &zero);
}

static __always_inline void emit_exec(struct task_struct *task, __u32 ppid,
				      struct linux_binprm *bprm)
{
	struct exec_event *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	struct env_scratch *s = env_scratch_get();

	if (!e) {
		count_loss(LOSS_RINGBUF_FULL);
		return;
	}
	if (s) {
		e->env = s->env;
	} else {
		e->env.tz_state = ENV_SEEN_UNREAD;
		e->env.tzdir_state = ENV_SEEN_UNREAD;
	}
	fill_event(&e->base, EVENT_EXEC, task, ppid, 0, NULL, 0);
	/* "/proc/self/exe" or a relative path says little alone. */
	bpf_probe_read_kernel_str(e->exe, sizeof(e->exe), bprm->filename);
	bpf_probe_read_kernel_str(e->exe_name, sizeof(e->exe_name),
				  bprm->file->f_path.dentry->d_name.name);
	bpf_ringbuf_submit(e, wake_flags());
}

/*
 * Most processes have no tz file of their own: a lookup, lock-free, is
 * cheaper than the delete it spares (that takes the bucket's lock).
 */
static __always_inline void forget_tz(__u32 tgid)
{
	if (bpf_map_lookup_elem(&proc_tz, &tgid))
		bpf_map_delete_elem(&proc_tz, &tgid);
}

/*
 * The first TZ or TZDIR, as getenv() would return it: val is len bytes
 * of an entry, followed by its NUL.  Copied with its NUL only: the rest of
 * dst stays zero (read_exec_env() clears it).
 */
static __always_inline void note_env_value(__u8 *state, __u16 *vlen,
					   char *dst, const char *val, long len)
{
	if (*state != ENV_SEEN_UNSET)
		return;
	if (len < 0 || len >= ENV_VALUE_LEN) {
		*state = ENV_SEEN_UNREAD;
		return;
	}
	bpf_probe_read_kernel(dst, len + 1, val);
	*vlen = len;
	*state = ENV_SEEN_SET;
}

/*
 * "TZ=:/file", "TZ=/file" or "TZDIR=/dir", n bytes with the NUL (at most
 * ENV_ENTRY_LEN: a longer entry is cut there), e in s->block: the first
 * of each is what getenv() returns.  A name like "UTC" or "Europe/Paris"
 * is found under the built-in directories anyway.
 */
static __always_inline void note_tz_entry(struct env_scratch *s, const char *e,
					  long n)
{
	struct tz_user_path *u;
	__u32 off;
	long len;

	if (e[0] != 'T' || e[1] != 'Z')
		return;
	if (e[2] == '=') {
		note_env_value(&s->env.tz_state, &s->env.tz_len, s->env.tz,
			       e + 3, n - 4);
		u = &s->tz.file;
		off = e[3] == ':' ? 4 : 3;
	} else if (e[2] == 'D' && e[3] == 'I' && e[4] == 'R' && e[5] == '=') {
		note_env_value(&s->env.tzdir_state, &s->env.tzdir_len,
			       s->env.tzdir, e + 6, n - 7);
		u = &s->tz.dir;
		off = 6;
	} else {
		return;
	}
	if (u->len || e[off] != '/')
		return;
	len = n - 1 - off;
	/* A path read at an access is cut at TZ_PATH_LEN - 1 bytes. */
	if (len <= 0 || len >= TZ_PATH_LEN - 1) {
		count_loss(LOSS_TZ_PATH_UNWATCHED);
		return;
	}
	bpf_probe_read_kernel(u->path, len, e + off);
	u->exact = u == &s->tz.file;
	u->len = len;
}

/*
 * One environment entry of the copy: 1 when the copy cannot say more.
 * The entry must start where the one before it ended (the first at
 * env_start) and end with a NUL, the last at env_end: the kernel counted
 * envc strings to find env_end, so entries that chain this way are those
 * strings, whatever a hostile loader or a 32-bit layout put in envp.
 * An entry past the copy or longer than the walk reads at once is left to
 * the walk, and so is everything after it.
 */
static __always_inline int env_copy_entry(struct env_scratch *s)
{
	struct env_copy *c = &s->copy;
	__u64 i = c->next, off = c->off, end, *envp;
	const char *e;

	if (i >= c->count || !s->walk.left)
		return 1;
	/* count <= ENV_ENTRIES_MAX, a power of 2: the mask tells the verifier. */
	barrier_var(i);
	envp = &s->envp[i & (ENV_ENTRIES_MAX - 1)];
	if (envp[0] != c->base + off)
		return 1;
	end = i + 1 < c->envc ? envp[1] - c->base : c->size;
	if (end <= off || end > c->copied || end - off > ENV_ENTRY_LEN)
		return 1;
	/* Known above, told again to the verifier. */
	barrier_var(end);
	if (end > ENV_BLOCK_LEN || off >= ENV_BLOCK_LEN)
		return 1;
	if (s->block[end - 1])
		return 1;
	e = s->block + off;
	if (e[0] == 'T')
		note_tz_entry(s, e, end - off);
	c->next = i + 1;
	c->off = end;
	s->walk.ptr = c->base + end;
	s->walk.left--;
	return 0;
}

#define ENV_COPY_STEP	16

/*
 * ENV_COPY_STEP entries per call; 1 when the copy is done with.  Global,
 * so that the verifier checks it once.
 */
__noinline int env_copy_entries(void)
{
	struct env_scratch *s = env_scratch_get();

	if (!s)
		return 1;
	for (int k = 0; k < ENV_COPY_STEP; k++)
		if (env_copy_entry(s))
			return 1;
	return 0;
}

/*
 * Copy the environment block and its envp (after argc, argv and a NULL
 * at start_stack, as the ELF loader lays them out) into s.  false when
 * there is nothing the copy can be used for.
 */
static __always_inline bool copy_env(struct env_scratch *s,
				     struct task_struct *p,
				     struct linux_binprm *bprm)
{
	struct mm_struct *mm = p->mm;
	struct env_copy *c = &s->copy;
	__u64 stack = mm->start_stack, copied, envp_bytes;
	int argc = bprm->argc, envc = bprm->envc;

	if (envc <= 0 || argc < 0)
		return false;
	c->base = s->walk.ptr;
	c->size = s->walk.end - s->walk.ptr;
	c->envc = envc;
	c->count = envc < ENV_ENTRIES_MAX ? envc : ENV_ENTRIES_MAX;
	c->next = 0;
	c->off = 0;
	copied = c->size < ENV_BLOCK_LEN ? c->size : ENV_BLOCK_LEN;
	barrier_var(copied);
	if (!copied || copied > ENV_BLOCK_LEN)
		return false;
	c->copied = copied;
	if (bpf_probe_read_user(s->block, copied, (const void *)c->base))
		return false;
	/* envp[count]: the end of the last entry copied (or the NULL). */
	envp_bytes = ((__u64)c->count + 1) * sizeof(__u64);
	barrier_var(envp_bytes);
	if (envp_bytes > sizeof(s->envp))
		return false;
	return !bpf_probe_read_user(s->envp, envp_bytes,
			(const void *)(stack + ((__u64)argc + 2) * sizeof(__u64)));
}

/*
 * One environment entry per call, read from the process; 1 when the walk
 * is over.  Global, so the verifier checks it once, whether bpf_loop or a
 * bounded loop calls it.
 */
__noinline int env_entry(void)
{
	struct env_scratch *s = env_scratch_get();
	struct env_walk *w;
	long n;

	if (!s)
		return 1;
	w = &s->walk;
	if (w->ptr >= w->end || !w->left)
		return 1;
	w->left--;
	n = bpf_probe_read_user_str(s->block, ENV_ENTRY_LEN,
				    (const void *)w->ptr);
	if (n <= 0)
		return 1;
	if (!w->cont)
		note_tz_entry(s, s->block, n);
	w->cont = n == ENV_ENTRY_LEN;
	w->ptr += w->cont ? n - 1 : n;
	return 0;
}

static long env_entry_cb(__u32 i, void *data)
{
	/* The verifier wants 0 or 1 and knows nothing of a global's result. */
	return env_entry() ? 1 : 0;
}

/*
 * Both walk ENV_ENTRIES_MAX entries at most: the bounded loop costs the
 * verifier a few instructions per turn, since the step is verified once.
 * Not a rodata switch: a kernel without bpf_loop also refuses the
 * callback's address, even in code that never runs.
 */
static __always_inline void walk_env(bool loop_helper)
{
	if (loop_helper) {
		bpf_loop(ENV_ENTRIES_MAX, env_entry_cb, NULL, 0);
		return;
	}
	for (int i = 0; i < ENV_ENTRIES_MAX; i++)
		if (env_entry())
			break;
}

/*
 * At exec the new environment was just copied onto the new stack: it is
 * resident, and it is read before the program runs a single instruction.
 * Entries are looked at in one copy of it first; the walk, one helper
 * call per entry, reads what the copy could not hold.  Either way
 * ENV_ENTRIES_MAX entries at most.
 */
static __always_inline void read_exec_env(struct task_struct *p, __u32 tgid,
					  struct linux_binprm *bprm,
					  bool loop_helper)
{
	struct env_scratch *s = env_scratch_get();

	if (!s)
		return;
	__builtin_memset(&s->tz, 0, sizeof(s->tz));
	__builtin_memset(&s->env, 0, sizeof(s->env));
	s->walk.ptr = p->mm->env_start;
	s->walk.end = p->mm->env_end;
	s->walk.left = ENV_ENTRIES_MAX;
	s->walk.cont = false;
	if (copy_env(s, p, bprm))
		for (int i = 0; i < ENV_ENTRIES_MAX / ENV_COPY_STEP; i++)
			if (env_copy_entries())
				break;
	if (s->walk.ptr < s->walk.end)
		walk_env(loop_helper);
	if (s->walk.ptr < s->walk.end) {
		count_loss(LOSS_TZ_PATH_UNWATCHED);
		/* Not seen is not unset: it may lie in what was not read. */
		if (s->env.tz_state == ENV_SEEN_UNSET)
			s->env.tz_state = ENV_SEEN_UNREAD;
		if (s->env.tzdir_state == ENV_SEEN_UNSET)
			s->env.tzdir_state = ENV_SEEN_UNREAD;
	}
	if (!s->tz.file.len && !s->tz.dir.len)
		forget_tz(tgid);
	else if (bpf_map_update_elem(&proc_tz, &tgid, &s->tz, BPF_ANY))
		count_loss(LOSS_TZ_PATH_UNWATCHED);
}

/*
 * fork copies the environment: the child's tz files are the parent's.
 * A child of a parent without any has none: forget_tz() removed what an
 * earlier process of the same tgid had, at its exit.
 */
static __always_inline void inherit_tz(__u32 ptgid, __u32 ctgid)
{
	struct proc_tz *pt = bpf_map_lookup_elem(&proc_tz, &ptgid);

	if (pt && bpf_map_update_elem(&proc_tz, &ctgid, pt, BPF_ANY))
		count_loss(LOSS_TZ_PATH_UNWATCHED);
}

/*
 * One update in the common case, no lookup first.  The old counters of a
 * reused tgid are keyed by the same tgid: say they now merge.
 */
static __always_inline bool add_forked(__u32 tgid, const struct proc *np)
{
	long err = bpf_map_update_elem(&procs, &tgid, np, BPF_NOEXIST);

	if (err == -EEXIST) {
		count_loss(LOSS_PID_REUSED);
		err = bpf_map_update_elem(&procs, &tgid, np, BPF_ANY);
	}
	if (err) {
		count_loss(LOSS_PROC_MAP_FULL);
		return false;
	}
	return true;
}

SEC("tp_btf/sched_process_fork")
int BPF_PROG(sched_fork, struct task_struct *parent, struct task_struct *child)
{
	__u32 ptgid = parent->tgid, ctgid = child->tgid;
	struct proc *pp, np = {};

	/* Threads count toward their process: only new processes matter. */
	if (child->pid != ctgid || trace_all)
		return 0;
	pp = bpf_map_lookup_elem(&procs, &ptgid);
	if (pp && (pp->flags & PROC_EXITED))
		return 0;
	/* An untraced parent in a target cgroup: its child is a target. */
	if (!pp && !in_target_cgroup())
		return 0;
	np.ppid = ptgid;
	np.depth = pp ? pp->depth + 1 : 0;
	np.flags = pp ? 0 : PROC_ROOT;
	np.start_ns = bpf_ktime_get_ns();
	__builtin_memcpy(np.comm, child->comm, COMM_LEN);
	if (!add_forked(ctgid, &np))
		return 0;
	inherit_tz(ptgid, ctgid);
	emit(EVENT_FORK, child, ptgid, 0, np.comm, np.start_ns);
	return 0;
}

static __always_inline bool is_target_comm(struct task_struct *p)
{
	char comm[COMM_LEN];

	if (!target_comm[0])
		return false;
	BPF_CORE_READ_STR_INTO(&comm, p, comm);
	for (int i = 0; i < COMM_LEN; i++) {
		if (comm[i] != target_comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* A new target: one that took the --comm name by exec after we started. */
static __always_inline struct proc *add_comm_target(struct task_struct *p,
						    __u32 tgid)
{
	struct proc np = {
		.ppid = BPF_CORE_READ(p, real_parent, tgid),
		.flags = PROC_ROOT,
		.start_ns = bpf_ktime_get_ns(),
	};

	if (bpf_map_update_elem(&procs, &tgid, &np, BPF_NOEXIST)) {
		count_loss(LOSS_PROC_MAP_FULL);
		return NULL;
	}
	return bpf_map_lookup_elem(&procs, &tgid);
}

static __always_inline int on_exec(struct task_struct *p,
				   struct linux_binprm *bprm, bool loop_helper)
{
	__u32 tgid = p->tgid;
	struct proc *proc = bpf_map_lookup_elem(&procs, &tgid);

	if (!proc && !trace_all && (is_target_comm(p) || in_target_cgroup()))
		proc = add_comm_target(p, tgid);
	if (!proc || (proc->flags & PROC_EXITED))
		return 0;
	proc->flags |= PROC_EXECED;
	if (lang_enabled)
		lang_exec(tgid);
	__builtin_memcpy(proc->comm, p->comm, COMM_LEN);
	read_exec_env(p, tgid, bprm, loop_helper);
	emit_exec(p, proc->ppid, bprm);
	return 0;
}

SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return on_exec(p, bprm, true);
}

/* Loaded instead of sched_exec where the kernel has no bpf_loop. */
SEC("tp_btf/sched_process_exec")
int BPF_PROG(sched_exec_bounded, struct task_struct *p, pid_t old_pid,
	     struct linux_binprm *bprm)
{
	return on_exec(p, bprm, false);
}

/*
 * The CPU time of the whole process as its last thread exits: threads
 * already released are summed in signal, a group leader that exited first
 * is a zombie not yet summed, and this thread is still running.  A thread
 * that exited a moment ago may not have been released yet and is missed:
 * run --compare times single-threaded workers, where that cannot happen.
 */
static __always_inline __u64 process_cpu_ns(struct task_struct *p)
{
	struct task_struct *leader = p->group_leader;
	__u64 ns = p->signal->sum_sched_runtime + p->se.sum_exec_runtime;

	if (leader != p)
		ns += leader->se.sum_exec_runtime;
	return ns;
}

SEC("tp_btf/sched_process_exit")
int BPF_PROG(sched_exit, struct task_struct *p)
{
	__u32 tgid = p->tgid;
	struct proc *proc;
	__s32 status;

	if (lang_enabled)
		lang_thread_exit(p->pid);
	forget_thread(p);
	/* The process ends with its last thread. */
	if (p->signal->live.counter != 0)
		return 0;
	proc = bpf_map_lookup_elem(&procs, &tgid);
	if (!proc || (proc->flags & PROC_EXITED))
		return 0;
	status = p->exit_code;
	/* The name it ends with (prctl may have changed it), as ps shows it. */
	__builtin_memcpy(proc->comm, p->group_leader->comm, COMM_LEN);
	proc->exit_status = status;
	proc->exit_ns = bpf_ktime_get_ns();
	proc->cpu_ns = process_cpu_ns(p);
	proc->flags |= PROC_EXITED;
	forget_tz(tgid);
	emit(EVENT_EXIT, p, proc->ppid, status, NULL, proc->exit_ns);
	return 0;
}
