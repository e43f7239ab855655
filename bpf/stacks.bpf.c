// SPDX-License-Identifier: GPL-2.0
/*
 * Stacks: at each tz access and clock syscall of a traced process (at
 * sys_exit, once the event is classified and counted), the user registers
 * and a copy of the top of the user stack go to stack_events, for
 * userspace to unwind with the binaries' CFI (user/trace/stacks.c, the
 * file reader's unwind.c).  No uprobe: the syscall has already paid for
 * the trip into the kernel.
 *
 * The copy is bounded by a rate per process (clocktrace.h: the first
 * STACK_FIRST_COPIED of each class, then a token bucket); what is over it
 * is counted in stack_budgets, so that the exact counts of the stats map
 * weight the copies.  What was to be copied and could not be is a named
 * loss.  Untraced processes never come here (is_traced() first).
 */
#include "shared.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);	/* --max-procs */
	__type(key, __u32);
	__type(value, struct stack_budget);
} stack_budgets SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 * 1024 * 1024);	/* one page when stacks are off */
} stack_events SEC(".maps");


/* Tokens earned since the last refill, the bucket's size at most. */
static __always_inline void stack_refill(struct stack_budget *b, __u64 now)
{
	__u64 earned = (now - b->refill_ns) * STACK_RATE_HZ / 1000000000ULL;

	if (!earned)
		return;
	b->refill_ns = now;
	b->tokens = earned >= STACK_BUCKET ? STACK_BUCKET :
		    (b->tokens + earned > STACK_BUCKET ? STACK_BUCKET :
		     b->tokens + (__u32)earned);
}

/*
 * Copy this event's stack?  The first ones of each class always; then
 * one per token.  Two CPUs racing on the tokens may copy one more or one
 * fewer: the counts stay exact, only the sample changes.
 */
static __always_inline bool stack_wanted(struct stack_budget *b, __u32 class)
{
	if (b->copied[class] + b->lost[class] < STACK_FIRST_COPIED)
		return true;
	stack_refill(b, bpf_ktime_get_ns());
	if (!b->tokens)
		return false;
	b->tokens--;
	return true;
}

/*
 * The bytes from sp up: 8 KiB, or up to the end of the main thread's
 * stack (its environment strings end there) when that is nearer; halved
 * while the read fails (a thread's stack ends at an unmapped page).
 */
static __always_inline __u32 stack_read(struct stack_event *e, __u64 sp)
{
	struct task_struct *task = (struct task_struct *)bpf_get_current_task();
	__u64 end = BPF_CORE_READ(task, mm, env_end);
	__u32 len = STACK_COPY_LEN;

	if (sp < end && end - sp < STACK_COPY_LEN)
		len = end - sp;
#pragma unroll
	for (int i = 0; i < 4; i++) {
		len &= 2 * STACK_COPY_LEN - 1;
		if (len == 0 || len > STACK_COPY_LEN)
			return 0;
		if (!bpf_probe_read_user(e->stack, len, (void *)sp))
			return len;
		len /= 2;
	}
	return 0;
}

/* Wake the reader for a process's first copy: its maps are read then. */
static __always_inline __u64 stack_wake_flags(struct stack_budget *b,
					      __u32 class)
{
	return b->copied[class] == 1 && !b->copied[!class] ?
	       BPF_RB_FORCE_WAKEUP : BPF_RB_NO_WAKEUP;
}

static __always_inline void stack_lost(struct stack_budget *b, __u32 class,
				       __u32 why)
{
	__sync_fetch_and_add(&b->lost[class], 1);
	count_loss(why);
}

/*
 * The script site lang_attribute() left for this event, if this thread's:
 * another thread's event may have run on this CPU in between (a loss).
 */
static __always_inline void stack_lang_site(struct stack_event *e, __u32 tid,
					    bool noted)
{
	__u32 zero = 0;
	struct lang_event_slot *slot;

	e->lang.lang = LANG_NONE;
	if (!noted)
		return;
	slot = bpf_map_lookup_elem(&lang_event, &zero);
	if (!slot || slot->tid != tid) {
		count_loss(LOSS_STACK_LANG);
		return;
	}
	e->lang = slot->key;
	slot->tid = 0;
}

/*
 * tgid_kind: tgid << 32 | enum kind, with STACK_KIND_LANG when the event's
 * script site waits in lang_event (five arguments at most).
 */
__noinline int stack_copy(__u64 tgid_kind, __u64 ip, __u64 sp, __u64 fp,
			  __u64 lr)
{
	static const struct stack_budget fresh;
	__u32 tgid = tgid_kind >> 32;
	__u32 kind = (__u32)tgid_kind & ~STACK_KIND_LANG;
	__u32 class = kind >= KIND_FIRST_TZ ? STACK_CLASS_TZ :
					       STACK_CLASS_CLOCK;
	struct stack_budget *b;
	struct stack_event *e;

	/* Verified on its own: without --stacks, dead code (see lang_attribute). */
	if (!stacks_enabled)
		return 0;
	b = lookup_or_init(&stack_budgets, &tgid, &fresh,
			   LOSS_STACK_BUDGET_FULL);
	if (!b)
		return 0;
	if (!stack_wanted(b, class)) {
		__sync_fetch_and_add(&b->sampled_out[class], 1);
		return 0;
	}
	e = bpf_ringbuf_reserve(&stack_events, sizeof(*e), 0);
	if (!e) {
		stack_lost(b, class, LOSS_STACK_RINGBUF_FULL);
		return 0;
	}
	e->stack_len = stack_read(e, sp);
	if (!e->stack_len) {
		bpf_ringbuf_discard(e, BPF_RB_NO_WAKEUP);
		stack_lost(b, class, LOSS_STACK_UNREADABLE);
		return 0;
	}
	e->pid = tgid;
	e->tid = (__u32)bpf_get_current_pid_tgid();
	stack_lang_site(e, e->tid, tgid_kind & STACK_KIND_LANG);
	e->kind = kind;
	e->ts_ns = bpf_ktime_get_ns();
	e->regs[STACK_REG_IP] = ip;
	e->regs[STACK_REG_SP] = sp;
	e->regs[STACK_REG_FP] = fp;
	e->regs[STACK_REG_LR] = lr;
	__sync_fetch_and_add(&b->copied[class], 1);
	bpf_ringbuf_submit(e, stack_wake_flags(b, class));
	return 0;
}
