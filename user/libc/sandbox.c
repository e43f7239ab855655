// SPDX-License-Identifier: GPL-2.0
/* The file reader's cage: see sandbox.h. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>

#include "sandbox.h"
#include "util.h"

#if defined(__x86_64__)
#define SANDBOX_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define SANDBOX_ARCH	AUDIT_ARCH_AARCH64
#else
#error "clocktrace: name this architecture's AUDIT_ARCH"
#endif

/*
 * What the parsers (libelf, libdw, zlib, lzma, bzip2), glibc's malloc and
 * stdio, and the sanitizers' runtime call.  Nothing that creates a
 * process, a socket, a mapping of another process, or a file.
 */
static const int allowed[] = {
	__NR_read, __NR_pread64, __NR_readv, __NR_preadv,
	__NR_recvmsg, __NR_sendmsg, __NR_recvfrom, __NR_sendto, __NR_close, __NR_lseek,
	__NR_fstat, __NR_fstatfs, __NR_newfstatat, __NR_statx, __NR_readlinkat,
	__NR_fcntl, __NR_dup, __NR_dup3, __NR_getdents64,
	__NR_mmap, __NR_munmap, __NR_mremap, __NR_mprotect, __NR_brk,
	__NR_madvise,
	__NR_exit, __NR_exit_group, __NR_rt_sigreturn, __NR_rt_sigprocmask,
	__NR_rt_sigaction, __NR_sigaltstack, __NR_futex, __NR_getpid,
	__NR_gettid, __NR_tgkill, __NR_clock_gettime, __NR_clock_nanosleep,
	__NR_nanosleep, __NR_getrandom, __NR_prlimit64, __NR_sched_yield,
	__NR_uname, __NR_sysinfo,
#ifdef __NR_stat
	__NR_stat, __NR_lstat, __NR_readlink, __NR_getrlimit,
#endif
};

/* Opening for anything but reading, or making a file, is refused. */
#define OPEN_BAD_FLAGS	(O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND | \
			 O_TMPFILE)

#define ARG_LO(n)	(offsetof(struct seccomp_data, args[n]))
#define STMT(code, k)	((struct sock_filter)BPF_STMT(code, k))
#define JUMP(code, k, t, f) ((struct sock_filter)BPF_JUMP(code, k, t, f))
#define RET_ERRNO(e)	STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (e))
#define RET_ALLOW	STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW)

#define FILTER_MAX	(2 * ARRAY_SIZE(allowed) + 32)

struct filter {
	struct sock_filter insns[FILTER_MAX];
	unsigned short n;
};

static void emit(struct filter *f, struct sock_filter insn)
{
	f->insns[f->n++] = insn;
}

/* nr is allowed when argument arg's low 32 bits have none of bad set. */
static void emit_flags_check(struct filter *f, int nr, int arg, __u32 bad)
{
	emit(f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 4));
	emit(f, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(arg)));
	emit(f, JUMP(BPF_JMP | BPF_JSET | BPF_K, bad, 1, 0));
	emit(f, RET_ALLOW);
	emit(f, RET_ERRNO(EACCES));
}

/* write(2) to stderr only: a sanitizer's report, never a file. */
static void emit_write_check(struct filter *f)
{
	emit(f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_write, 0, 4));
	emit(f, STMT(BPF_LD | BPF_W | BPF_ABS, ARG_LO(0)));
	emit(f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, STDERR_FILENO, 0, 1));
	emit(f, RET_ALLOW);
	emit(f, RET_ERRNO(EBADF));
}

static void build_filter(struct filter *f)
{
	f->n = 0;
	emit(f, STMT(BPF_LD | BPF_W | BPF_ABS,
		     offsetof(struct seccomp_data, arch)));
	emit(f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, SANDBOX_ARCH, 1, 0));
	emit(f, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
	emit(f, STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)));
#ifdef __x86_64__
	/* The x32 ABI's numbers alias ours with bit 30 set. */
	emit(f, JUMP(BPF_JMP | BPF_JGE | BPF_K, 0x40000000, 0, 1));
	emit(f, STMT(BPF_RET | BPF_K, SECCOMP_RET_KILL_PROCESS));
#endif
	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++) {
		emit(f, JUMP(BPF_JMP | BPF_JEQ | BPF_K, allowed[i], 0, 1));
		emit(f, RET_ALLOW);
	}
	emit_write_check(f);
#ifdef __NR_open
	emit_flags_check(f, __NR_open, 1, OPEN_BAD_FLAGS);
#endif
	emit_flags_check(f, __NR_openat, 2, OPEN_BAD_FLAGS);
	emit(f, RET_ERRNO(EPERM));
}

static int install_filter(void)
{
	struct filter f;
	struct sock_fprog prog;

	build_filter(&f);
	prog.len = f.n;
	prog.filter = f.insns;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}

/* Reading any file and any process's root: nothing else. */
static int keep_read_caps(void)
{
	struct __user_cap_header_struct hdr = {
		.version = _LINUX_CAPABILITY_VERSION_3,
	};
	struct __user_cap_data_struct data[2] = {};
	__u32 keep = 1u << CAP_DAC_READ_SEARCH | 1u << CAP_SYS_PTRACE;
	__u32 have[2];

	if (syscall(SYS_capget, &hdr, data))
		return -1;
	have[0] = data[0].permitted;
	have[1] = data[1].permitted;
	/* Without CAP_SETPCAP the bounding set stays; no_new_privs covers it. */
	for (int cap = 0; cap < 64; cap++)
		if (cap != CAP_SETPCAP && !(cap < 32 && keep & 1u << cap))
			prctl(PR_CAPBSET_DROP, cap, 0, 0, 0);
	prctl(PR_CAPBSET_DROP, CAP_SETPCAP, 0, 0, 0);
	memset(data, 0, sizeof(data));
	data[0].effective = data[0].permitted = have[0] & keep;
	(void)have[1];
	return syscall(SYS_capset, &hdr, data) ? -1 : 0;
}

static int limit(int resource, rlim_t max)
{
	struct rlimit r = { max, max };

	return setrlimit(resource, &r);
}

/*
 * The sanitizers reserve terabytes of shadow memory up front: under them
 * the address-space cap would stop the worker before its first request.
 */
#if defined(__SANITIZE_ADDRESS__)
#define AS_LIMITED	0
#else
#define AS_LIMITED	1
#endif

static int set_limits(void)
{
	if (AS_LIMITED && limit(RLIMIT_AS, SANDBOX_AS_MAX))
		return -1;
	/* SIGXCPU at the soft limit kills it; the hard one is a backstop. */
	return limit(RLIMIT_CPU, SANDBOX_CPU_S) ||
	       limit(RLIMIT_NOFILE, SANDBOX_FILES_MAX) ||
	       limit(RLIMIT_CORE, 0) || limit(RLIMIT_FSIZE, 0) ? -1 : 0;
}

void sandbox_prepare_exec(void)
{
	limit(RLIMIT_STACK, SANDBOX_STACK_MAX);
}

int sandbox_enter(void)
{
	if (chdir("/") || set_limits() || keep_read_caps() ||
	    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) || install_filter())
		return -1;
	return 0;
}
