// SPDX-License-Identifier: GPL-2.0
/* Unwinding stack copies with libdwfl, in the file reader: see unwind.h. */
#include <elfutils/libdwfl.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "unwind.h"
#include "util.h"

/* The DWARF numbers of the registers the kernel side copies. */
#if defined(__x86_64__)
#define DWARF_FIRST_REG	6	/* rbp, rsp */
#define DWARF_NREGS	2
#elif defined(__aarch64__)
#define DWARF_FIRST_REG	29	/* x29, x30, sp */
#define DWARF_NREGS	3
#else
#error "clocktrace: name this architecture's DWARF registers"
#endif

/* The stack being unwound: what the thread callbacks read. */
struct unwind_now {
	pid_t pid;
	const struct rd_unwind_stack *stack;
	uint64_t pcs[RD_UNWIND_FRAMES];
	uint32_t n;
	uint64_t deadline_ns;
};

/* One image's modules, kept while its batches come one after another. */
static struct {
	Dwfl *dwfl;
	pid_t pid;
	uint32_t image;
	struct unwind_now now;
} img;

static int no_file(Dwfl_Module *mod, void **userdata, const char *name,
		   Dwarf_Addr base, char **file_name, Elf **elfp)
{
	(void)mod, (void)userdata, (void)name, (void)base;
	*file_name = NULL;
	*elfp = NULL;
	return -1;
}

/* Separate debug files are not looked for: the CFI is in the file. */
static int no_debuginfo(Dwfl_Module *mod, void **userdata, const char *name,
			Dwarf_Addr base, const char *file_name,
			const char *debuglink, GElf_Word crc, char **debug_name)
{
	(void)mod, (void)userdata, (void)name, (void)base, (void)file_name;
	(void)debuglink, (void)crc;
	*debug_name = NULL;
	return -1;
}

static const Dwfl_Callbacks dwfl_callbacks = {
	.find_elf = no_file,
	.find_debuginfo = no_debuginfo,
};

static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	struct unwind_now *now = arg;

	(void)dwfl;
	if (*thread_argp)
		return 0;
	*thread_argp = now;
	return now->pid;
}

/* Only the copy is read: the CFI needs nothing else of memory. */
static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result,
			void *arg)
{
	const struct unwind_now *now = arg;
	const struct rd_unwind_stack *s = now->stack;
	uint64_t sp = s->regs[STACK_REG_SP];

	(void)dwfl;
	if (addr < sp || addr - sp + sizeof(*result) > s->len)
		return false;
	memcpy(result, s->stack + (addr - sp), sizeof(*result));
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct unwind_now *now = arg;
	const uint64_t *r = now->stack->regs;
#if defined(__x86_64__)
	Dwarf_Word regs[DWARF_NREGS] = { r[STACK_REG_FP], r[STACK_REG_SP] };
#else
	Dwarf_Word regs[DWARF_NREGS] = { r[STACK_REG_FP], r[STACK_REG_LR],
					 r[STACK_REG_SP] };
#endif

	dwfl_thread_state_register_pc(thread, r[STACK_REG_IP]);
	return dwfl_thread_state_registers(thread, DWARF_FIRST_REG, DWARF_NREGS,
					   regs);
}

static const Dwfl_Thread_Callbacks thread_callbacks = {
	.next_thread = next_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

/* Each file at its load address; the descriptor goes to libdwfl. */
static void report_files(Dwfl *dwfl, const struct reader_unwind_req *u,
			 unwind_open_fn open, void *ctx)
{
	dwfl_report_begin(dwfl);
	for (uint32_t i = 0; i < u->nfiles && i < RD_UNWIND_FILES; i++) {
		const struct rd_unwind_file *f = &u->files[i];
		const char *path = u->paths + f->path_off;
		int fd;

		if (f->path_off >= RD_UNWIND_PATHS)
			continue;
		fd = open(u, i, ctx);
		if (fd < 0)
			continue;
		if (!dwfl_report_elf(dwfl, path_base_name(path), path, fd,
				     f->start - f->pgoff, false))
			close(fd);
	}
	dwfl_report_end(dwfl, NULL, NULL);
}

static bool image_ready(const struct reader_unwind_req *u,
			unwind_open_fn open, void *ctx)
{
	if (img.dwfl && img.pid == u->pid && img.image == u->image)
		return true;
	if (img.dwfl)
		dwfl_end(img.dwfl);
	memset(&img, 0, sizeof(img));
	img.dwfl = dwfl_begin(&dwfl_callbacks);
	if (!img.dwfl)
		return false;
	img.pid = u->pid;
	img.image = u->image;
	img.now.pid = u->pid > 0 ? u->pid : 1;
	report_files(img.dwfl, u, open, ctx);
	if (!dwfl_attach_state(img.dwfl, NULL, img.now.pid, &thread_callbacks,
			       &img.now)) {
		dwfl_end(img.dwfl);
		img.dwfl = NULL;
		return false;
	}
	return true;
}

static int take_frame(Dwfl_Frame *frame, void *arg)
{
	struct unwind_now *now = arg;
	Dwarf_Addr pc;

	if (!dwfl_frame_pc(frame, &pc, NULL) || !pc)
		return DWARF_CB_ABORT;
	now->pcs[now->n++] = pc;
	if (now->n >= RD_UNWIND_FRAMES || now_ns() >= now->deadline_ns)
		return DWARF_CB_ABORT;
	return DWARF_CB_OK;
}

static bool put(char *out, size_t cap, size_t *at, const void *p, size_t n)
{
	if (*at + n > cap)
		return false;
	memcpy(out + *at, p, n);
	*at += n;
	return true;
}

size_t unwind_batch(const struct reader_unwind_req *u, unwind_open_fn open,
		    void *ctx, uint64_t deadline_ns, char *out, size_t cap)
{
	bool ready = image_ready(u, open, ctx);
	size_t at = 0;

	for (uint32_t i = 0; i < u->nstacks && i < RD_UNWIND_BATCH; i++) {
		struct unwind_now *now = &img.now;

		now->n = 0;
		now->stack = &u->stacks[i];
		now->deadline_ns = deadline_ns;
		if (ready && now->stack->len <= STACK_COPY_LEN &&
		    now_ns() < deadline_ns)
			dwfl_getthread_frames(img.dwfl, now->pid, take_frame,
					      now);
		if (!put(out, cap, &at, &now->n, sizeof(now->n)) ||
		    !put(out, cap, &at, now->pcs, now->n * sizeof(*now->pcs)))
			break;
	}
	return at;
}
