/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The types that cross the kernel/user line.  Both bpf/ (through
 * shared.bpf.h) and user/ include this file; nothing else is shared between
 * the two sides.
 */
#ifndef CLOCKTRACE_H
#define CLOCKTRACE_H

#define HIST_SLOTS	40	/* log2 buckets of nanoseconds: 0..2^40 ns */
#define TZ_PATH_LEN	128	/* bytes of a tz path kept as a map key */
#define ENV_ENTRY_LEN	4096	/* bytes of one environment entry read at once */
#define ENV_ENTRIES_MAX	1024	/* environment entries looked at per exec */
#define ENV_BLOCK_LEN	(20 * 1024)	/* environment bytes copied at once at exec */
#define COMM_LEN	16
#define CGROUP_NAME_LEN	256	/* a cgroup v2 directory's name, NUL included */
#define CGROUP_MAX_DEPTH	32	/* levels walked up to the target's */
#define EXE_LEN		256
#define LIBC_NESTED_MAX	8

/* What one counted syscall was, in the user's words. */
enum kind {
	KIND_CLOCK_GETTIME,
	KIND_GETTIMEOFDAY,
	KIND_TIME,
	KIND_CLOCK_GETRES,
	KIND_TZ_OPEN,
	KIND_TZ_STAT,
	KIND_TZ_ACCESS,
	KIND_TZ_READLINK,
	KIND_MAX,
};

#define KIND_FIRST_TZ	KIND_TZ_OPEN

/* The C library's time API probed with --libc. */
enum libc_fn {
	LIBC_NONE,
	LIBC_TZSET,
	LIBC_LOCALTIME,
	LIBC_LOCALTIME_R,
	LIBC_GMTIME,
	LIBC_GMTIME_R,
	LIBC_MKTIME,
	LIBC_TIMELOCAL,
	LIBC_TIMEGM,
	LIBC_STRFTIME,
	LIBC_CTIME,
	LIBC_CTIME_R,
	LIBC_CLOCK_GETTIME,
	LIBC_GETTIMEOFDAY,
	LIBC_TIME,
	LIBC_FN_MAX,
};

/* --libc attach cookies: the enum libc_fn, and how to probe it. */
#define LIBC_COOKIE_FN		0xffu
#define LIBC_COOKIE_COUNT_ONLY	(1u << 8)	/* entry counted, not timed */

/* Why something could not be recorded; each is a counter in the report. */
enum loss {
	LOSS_PROC_MAP_FULL,	/* a new process could not be tracked */
	LOSS_STATS_MAP_FULL,	/* a syscall could not be counted */
	LOSS_PATH_MAP_FULL,	/* a tz access was counted but not its path */
	LOSS_CLOCKID_MAP_FULL,	/* a clock_gettime was counted but not its clock id */
	LOSS_RINGBUF_FULL,	/* a fork/exec/exit notice was not delivered */
	LOSS_THREAD_STATE,	/* per-thread entry state unavailable: not timed */
	LOSS_PATH_UNREADABLE,	/* a path argument could not be read */
	LOSS_LIBC_MAP_FULL,	/* a libc call could not be counted */
	LOSS_LIBC_NESTING,	/* libc calls nested deeper than tracked */
	LOSS_PID_REUSED,	/* a new process merged with an exited one */
	LOSS_TZ_PATH_UNWATCHED,	/* a tz path, TZDIR or TZ=:file too long, env unread */
	LOSS_LANG_DEEP,		/* --lang: under a frame deeper than kept */
	LOSS_LANG_MAP_FULL,	/* --lang: a script frame could not be counted */
	LOSS_TZ_PATH_CHANGED,	/* a tz path rewritten while the kernel used it */
	LOSS_LANG_PY_FRAME,	/* --lang: a Python thread's frame unreadable */
	LOSS_LANG_RB_FRAME,	/* --lang: a Ruby thread's frame unreadable */
	/* Userspace's file reader (user/libc/reader.h): one per request. */
	LOSS_READER_STALLED,	/* a file system did not answer an open */
	LOSS_READER_TIMEOUT,	/* a file took too long to parse */
	LOSS_READER_CRASHED,	/* the reader died on a file */
	LOSS_READER_SKIPPED,	/* not asked: its file or device was hostile */
	LOSS_VDSO_MAP_FULL,	/* --vdso: a sample could not be counted */
	/* Stacks (stacks.bpf.h): an event whose stack was to be copied. */
	LOSS_STACK_RINGBUF_FULL,	/* no room in stack_events */
	LOSS_STACK_UNREADABLE,	/* the user stack could not be read */
	LOSS_STACK_BUDGET_FULL,	/* its process had no stack_budgets entry */
	LOSS_STACK_UNWOUND,	/* userspace: a copy not unwound (queue, reader) */
	LOSS_LANG_CHAIN,	/* --lang: counted at its line, outer frames not kept */
	LOSS_STACK_LANG,	/* --lang --stacks: a copy without its script frames */
	LOSS_MAX,
};

/* struct proc.flags */
#define PROC_EXITED	(1u << 0)
#define PROC_EXECED	(1u << 1)
#define PROC_ROOT	(1u << 2)	/* seeded by userspace, not forked */

/* procs: tgid -> what is known of a traced process. */
struct proc {
	__u32 ppid;
	__u32 depth;
	__u32 flags;
	__s32 exit_status;	/* wait(2) status of the last thread */
	__u64 start_ns;		/* CLOCK_MONOTONIC (bpf_ktime_get_ns) */
	__u64 exit_ns;
	__u64 cpu_ns;		/* CPU time of all its threads, at exit */
	__u64 tz_changed;	/* its LOSS_TZ_PATH_CHANGED */
	char comm[COMM_LEN];
};

struct stats_key {
	__u32 tgid;
	__u32 kind;		/* enum kind */
};

struct latency {
	__u64 count;
	__u64 errors;
	__u64 total_ns;
	__u64 min_ns;
	__u64 max_ns;
	__u64 hist[HIST_SLOTS];
};

struct tz_path_count {
	__u64 count;
	__u64 errors;
};

/*
 * The clock ids a kind_stats counts itself: 0..CLOCK_ID_SLOTS_POSIX - 1 as
 * they are, then the CPU and fd clock classes (clockid_key.clockid -8..-1).
 * Any other id goes to the clockids map.
 */
#define CLOCK_ID_SLOTS_POSIX	12	/* CLOCK_REALTIME .. CLOCK_TAI */
#define CLOCK_ID_SLOTS		(CLOCK_ID_SLOTS_POSIX + 8)

/* The tz files a kind_stats counts itself; any other path is in tz_paths. */
enum tz_file {
	TZ_FILE_LOCALTIME,
	TZ_FILE_TIMEZONE,
	TZ_FILES,
};
#define TZ_FILE_LOCALTIME_PATH	"/etc/localtime"
#define TZ_FILE_TIMEZONE_PATH	"/etc/timezone"

/*
 * stats: (tgid, kind) -> its latency and what its argument was, so that
 * the common case costs one map lookup per syscall.  Userspace adds
 * clock_ids to what clockids holds and tz_files to tz_paths.
 */
struct kind_stats {
	struct latency lat;
	union {
		__u64 clock_ids[CLOCK_ID_SLOTS];	/* KIND_CLOCK_GETTIME */
		struct tz_path_count tz_files[TZ_FILES];	/* KIND_TZ_* */
	};
};

struct clockid_key {
	__u32 tgid;
	__s32 clockid;		/* CPU/fd clocks with the pid or fd masked out */
};

struct tz_path_key {
	__u32 tgid;
	__u32 kind;		/* KIND_TZ_* */
	char path[TZ_PATH_LEN];
};

/* A file (TZ=:path) or directory (TZDIR) that an environment names. */
struct tz_user_path {
	__u32 len;		/* 0 = none */
	__u32 exact;		/* 1 = the whole path, 0 = a directory prefix */
	char path[TZ_PATH_LEN];
};

/*
 * proc_tz: tgid -> the tz files its own environment names.  Seeded by
 * userspace for PROG and attach targets, inherited at fork, read again from
 * the new environment at every exec (in the kernel: no race with the
 * program's first localtime()).
 */
struct proc_tz {
	struct tz_user_path file;
	struct tz_user_path dir;
};

struct libc_key {
	__u32 tgid;
	__u32 fn;		/* enum libc_fn */
};

struct libc_stats {
	struct latency lat;	/* entry to return, for timed functions */
	__u64 calls;		/* entries, for functions counted only */
	__u64 tz_accesses;	/* kernel tz accesses made inside the call */
	__u64 clock_syscalls;	/* kernel clock syscalls made inside the call */
	__u64 kernel_ns;	/* time spent in those syscalls */
};

struct caller_key {
	__u32 tgid;
	__u32 fn;
	__u64 ret_addr;
};

#define CALLER_NAME_LEN	64

/*
 * caller_files: where a call site's return address lies, taken from the
 * process's own mapping when the site is first seen, so that it can be
 * symbolized after the process is gone.
 */
struct caller_file {
	__u64 file_off;		/* of the return address in the mapped file */
	__u64 ino;
	__u32 dev;		/* kernel encoding: major << 20 | minor */
	__u32 found;		/* 0: no file-backed mapping held the address */
	char name[CALLER_NAME_LEN];	/* basename of the mapped file */
};

enum event_type {
	EVENT_FORK,
	EVENT_EXEC,
	EVENT_EXIT,
};

/* Ring buffer: rare process events only; fork and exit carry no paths. */
struct event {
	__u32 type;
	__u32 pid;
	__u32 ppid;
	__s32 exit_status;
	__u64 ts_ns;
	char comm[COMM_LEN];
	__u32 nspid;		/* its pid in its own pid namespace, 0: unknown */
	__u32 pad;
	__u64 cgroup_id;	/* its cgroup v2 id: the cgroup's directory inode */
};

#define ENV_VALUE_LEN	128

/* exec_env.tz_state, tzdir_state */
enum env_seen {
	ENV_SEEN_UNSET,
	ENV_SEEN_SET,
	ENV_SEEN_UNREAD,	/* too long, or the walk did not reach it */
};

/*
 * TZ and TZDIR as the new program's getenv() sees them, read in the kernel
 * at exec: the process may be gone before userspace could read /proc.
 */
struct exec_env {
	__u8 tz_state;		/* enum env_seen */
	__u8 tzdir_state;
	__u16 tz_len;
	__u16 tzdir_len;
	__u16 pad;
	char tz[ENV_VALUE_LEN];
	char tzdir[ENV_VALUE_LEN];
};

struct exec_event {
	struct event base;
	char exe[EXE_LEN];	/* the path exec was given */
	char exe_name[COMM_LEN * 4];	/* the file's own name (basename) */
	struct exec_env env;
};

/*
 * --lang: the interpreter's frames read at the event, or its own probes
 * (USDT) keeping a stack of script frames per thread; a kernel event is
 * counted under the innermost one.  Frames hold pointers into the process:
 * their strings are read once per site.
 */
enum lang {
	LANG_NONE,
	LANG_RUBY,	/* the line running (USDT: the caller's file and line) */
	LANG_PYTHON,	/* the line being run */
	LANG_MAX,
};

#define LANG_STACK_MAX	32
#define LANG_STR_LEN	128

struct lang_frame {
	__u64 file;
	__u64 func;
	__u64 cls;		/* Ruby: the receiver's class; Python: 0 */
	__u32 line;
	__u32 lang;
};

struct lang_stack {
	__u32 depth;		/* may pass LANG_STACK_MAX: those are not kept */
	__u32 pad;
	struct lang_frame f[LANG_STACK_MAX];
};

/*
 * A site is keyed by the strings' contents (hashed), not their pointers:
 * an interpreter may build a new string for each call.
 */
struct lang_site_key {
	__u32 tgid;
	__u32 libc_fn;		/* the probed libc call it was in, with --libc */
	__u32 lang;
	__u32 line;
	__u64 file_hash;
	__u64 func_hash;
	__u64 cls_hash;
	__u64 chain;		/* lang_chain_key.hash, or LANG_CHAIN_* */
};

/*
 * --lang-depth: the innermost N script frames of an event are its site and
 * N - 1 outer frames, the site's chain.  A chain is stored once per process
 * (lang_chains, by a hash of its frames); each frame's strings once per
 * process and frame (lang_frame_names), as a site's are.
 */
#define LANG_DEPTH_MAX		16
#define LANG_DEPTH_DEFAULT	8
#define LANG_OUTER_MAX		(LANG_DEPTH_MAX - 1)
#define LANG_CHAIN_NONE		0	/* no outer frame (or --lang-depth 1) */
#define LANG_CHAIN_UNSTORED	1	/* lang_chains was full: LOSS_LANG_CHAIN */

/*
 * A frame is known by the addresses of what it runs (Python: the code
 * object, its file and name; Ruby: the iseq body, its path and label;
 * USDT: the strings' addresses), mixed: no string is read per event.
 */
struct lang_frame_key {
	__u32 tgid;
	__u32 lang;
	__u64 id;
};

struct lang_chain_frame {
	__u64 id;		/* lang_frame_key.id */
	__u32 line;		/* Python frame mode: the instruction offset */
	__u32 lang;
};

struct lang_chain_key {
	__u32 tgid;
	__u32 pad;
	__u64 hash;
};

/* The outer frames of a site, innermost first. */
struct lang_chain {
	__u32 depth;		/* frames in f[] */
	__u32 cut;		/* 1: the walk stopped at a frame it could not read */
	/* LANG_OUTER_MAX used: a power of two bounds an index by a mask */
	struct lang_chain_frame f[LANG_DEPTH_MAX];
};

struct lang_site {
	__u64 tz_accesses;
	__u64 clock_syscalls;
};

#define LANG_NAME_LEN	64
#define LANG_TABLE_LEN	512

/*
 * A site's strings, copied when it is first seen.  Python frame mode also
 * copies the start of the code object's location table (PEP 626/657): the
 * line is decoded from it in userspace, even after the process is gone.
 */
struct lang_names {
	char file[LANG_STR_LEN];
	char func[LANG_NAME_LEN];
	char cls[LANG_NAME_LEN];
	__s32 firstlineno;
	__u32 table_len;	/* bytes copied, at most LANG_TABLE_LEN */
	__u32 table_size;	/* bytes the code object has */
	__u32 pad;
	__u8 table[LANG_TABLE_LEN];
};

/*
 * --lang, Python frame mode: the interpreter's thread list and the struct
 * offsets of its CPython version (3.11, 3.12, 3.13; from its headers,
 * user/core/pyframe.c).  The type addresses let the BPF side check that
 * what it reads is a code object and a str, not bytes of some other program.
 */
#define PY_NO_CFRAME	0xffff	/* 3.13: the frame is in the thread state */

struct py_offsets {
	__u16 interp_head;	/* _PyRuntimeState.interpreters.head */
	__u16 threads_head;	/* PyInterpreterState.threads.head */
	__u16 ts_next;		/* PyThreadState */
	__u16 native_thread_id;
	__u16 cframe;		/* or PY_NO_CFRAME */
	__u16 current_frame;	/* _PyCFrame, or PyThreadState (3.13) */
	__u16 f_code;		/* _PyInterpreterFrame (3.13: f_executable) */
	__u16 previous;
	__u16 prev_instr;	/* 3.13: instr_ptr */
	__u16 owner;
	__u16 co_filename;	/* PyCodeObject */
	__u16 co_name;
	__u16 co_firstlineno;
	__u16 co_linetable;
	__u16 co_firsttraceable;
	__u16 co_code_adaptive;
	__u16 ob_type;		/* PyObject */
	__u16 ob_size;		/* PyVarObject */
	__u16 str_state;	/* PyASCIIObject */
	__u16 str_data;		/* sizeof(PyASCIIObject) */
	__u16 bytes_data;	/* PyBytesObject.ob_sval */
	__u16 pad[3];
};

/*
 * Kernel events of a frame-mode Python process tied to no script line,
 * by reason: counted, never dropped (an unreadable frame is a loss).
 */
enum lang_unattributed {
	LANG_UN_NO_THREAD,	/* the thread is not in the interpreter's list */
	LANG_UN_THREADS_PAST,	/* the list is longer than the BPF side walks */
	LANG_UN_NO_FRAME,	/* the thread runs no Python (Ruby) code */
	LANG_UN_NOT_YET_READ,	/* made before its interpreter file was read */
	LANG_UN_NOT_GVL_HOLDER,	/* Ruby: the thread running is another one */
	LANG_UN_FRAMES_PAST,	/* Ruby: C frames deeper than the BPF side walks */
	LANG_UN_MAX,
};

/* Thread states walked at most, per event. */
#define PY_THREADS_MAX	64

struct py_proc {
	__u64 runtime;		/* &_PyRuntime in the process */
	__u64 code_type;	/* &PyCode_Type */
	__u64 str_type;		/* &PyUnicode_Type */
	__u64 bytes_type;	/* &PyBytes_Type */
	struct py_offsets off;
};

/*
 * --lang, Ruby frame mode: from ruby_current_vm_ptr to the execution
 * context holding the GVL (Ruby 3.1), or from this thread's own
 * ruby_current_ec in libruby's TLS (3.3, whose VM pointer is not
 * exported), to its control frames and an iseq's line table.  Offsets per
 * version in user/core/rbframe.c, with their source.
 */
struct rb_offsets {
	__u16 vm_main_ractor;	/* rb_vm_t.ractor.main_ractor */
	__u16 running_ec;	/* rb_ractor_t.threads.running_ec */
	__u16 ec_thread;	/* rb_execution_context_t.thread_ptr */
	__u16 thread_id;	/* rb_thread_t.thread_id (pthread_t) */
	__u16 ec_vm_stack;	/* rb_execution_context_t */
	__u16 ec_vm_stack_size;	/* in VALUEs */
	__u16 ec_cfp;
	__u16 cf_size;		/* sizeof(rb_control_frame_t) */
	__u16 cf_pc;
	__u16 cf_iseq;
	__u16 cf_ep;
	__u16 iseq_body;	/* rb_iseq_t */
	__u16 body_iseq_size;	/* rb_iseq_constant_body */
	__u16 body_iseq_encoded;
	__u16 body_path;	/* location.pathobj */
	__u16 body_label;	/* location.label */
	__u16 body_insns_info;	/* insns_info.body */
	__u16 body_insns_size;	/* insns_info.size */
	__u16 body_succ_table;	/* insns_info.succ_index_table */
	__u16 insn_entry_size;	/* sizeof(struct iseq_insn_info_entry) */
	__u16 str_heap_ptr;	/* RString.as.heap.ptr */
	__u16 str_embed;	/* RString.as.embed.ary */
	__u16 ary_heap_ptr;	/* RArray.as.heap.ptr */
	__u16 ary_embed;	/* RArray.as.ary */
};

struct rb_proc {
	__u64 vm_ptr;		/* &ruby_current_vm_ptr in the process (3.1) */
	__u64 tls_module;	/* 3.3: &the module id of libruby's TLS */
	__u64 tls_ec;		/* 3.3: ruby_current_ec's offset in that TLS */
	struct rb_offsets off;
};

/*
 * A frame-mode process: its interpreter's addresses.  lang is LANG_NONE
 * once it has exec'd, until userspace finds an interpreter in the new
 * image; its events (and its workers') meanwhile are pending.
 */
struct lang_proc {
	__u32 lang;
	__u32 pad;
	__u64 pending;
	union {
		struct py_proc py;
		struct rb_proc rb;
	};
};

/*
 * A frame-mode interpreter file's start-up function (ruby_setup,
 * Py_InitializeFromConfig, Py_InitializeEx), probed: what a process that
 * calls it is told, its addresses as linked (load bias 0), and where the
 * function is linked.  Keyed by that address's offset in its page, the one
 * part of it the same in every process: 5.10 gives a uprobe no cookie to
 * tell the files apart, and two files at one offset keep one template.
 */
#define LANG_STARTS_MAX		16
#define LANG_PAGE_OFFSET	0xfffu

struct lang_template {
	struct lang_proc proc;
	__u64 start;		/* the function's address as linked */
};

/* lang_site_key.line in Python frame mode: the instruction is before the first. */
#define PY_INSTR_NONE	0xffffffffu

/*
 * --vdso: samples of one process at one place.  off is the sampled user
 * instruction's offset in the process's [vdso]; VDSO_OFF_OUTSIDE for a
 * sample anywhere else (user or kernel mode), which counts in its total.
 */
#define VDSO_OFF_OUTSIDE	0xffffffffu

struct vdso_key {
	__u32 tgid;
	__u32 off;
};

/*
 * Stacks: at a tz access or a clock syscall of a traced process, the user
 * registers and a copy of the top of the user stack (stacks.bpf.h), for
 * userspace to unwind with the binaries' CFI.  Per process, the first
 * STACK_FIRST_COPIED events of each class are copied, then one per token
 * of a bucket of STACK_BUCKET tokens refilled at STACK_RATE_HZ; the rest
 * are counted as sampled out, so that the exact counts weight the copies.
 */
#define STACK_COPY_LEN		8192	/* bytes of stack copied at most */
#define STACK_FIRST_COPIED	64
#define STACK_BUCKET		64
#define STACK_RATE_HZ		32

enum stack_class {
	STACK_CLASS_TZ,		/* KIND_TZ_*: a tz access */
	STACK_CLASS_CLOCK,	/* the clock syscalls */
	STACK_CLASSES,
};

/* Registers of the user context, by architecture. */
enum stack_reg {
	STACK_REG_IP,		/* x86_64 rip; arm64 pc */
	STACK_REG_SP,
	STACK_REG_FP,		/* x86_64 rbp; arm64 x29 */
	STACK_REG_LR,		/* arm64 x30; 0 on x86_64 */
	STACK_REGS,
};

/* stack_budgets: tgid -> its sampling state and what became of its events. */
struct stack_budget {
	__u64 refill_ns;	/* when tokens was last refilled */
	__u32 tokens;
	__u32 pad;
	__u64 copied[STACK_CLASSES];	/* submitted to stack_events */
	__u64 sampled_out[STACK_CLASSES];	/* over the rate: counted only */
	__u64 lost[STACK_CLASSES];	/* to be copied, but could not be */
};

/* stack_events: one per copied event. */
struct stack_event {
	__u32 pid;		/* tgid */
	__u32 tid;
	__u32 kind;		/* enum kind */
	__u32 stack_len;	/* bytes of stack[] read, from regs[STACK_REG_SP] */
	__u64 ts_ns;
	__u64 regs[STACK_REGS];
	/* --lang: the script site the event was counted at; lang 0: none */
	struct lang_site_key lang;
	__u8 stack[STACK_COPY_LEN];
};

#endif /* CLOCKTRACE_H */
