/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Stack counting: calls and summed latency per probe, process and distinct
 * kernel+user stack, counted in the kernel (stacks.bpf.h). Two generations
 * of maps, chosen by the histogram epoch: the agent drains the one of the
 * interval that ended while probes fill the other. Kernel stacks are in
 * stack maps (the kernel's unwinder), user stacks in a hash by their
 * frames' hash (ustack.bpf.h walks them).
 */
#ifndef SMBLAT_STACKS_H
#define SMBLAT_STACKS_H

#define SMBLAT_STACK_FRAMES 64 /* frames kept per stack in the stack maps */
#define SMBLAT_STACK_IDS 4096  /* distinct stacks per generation, default */
#define SMBLAT_STACK_KEYS 8192 /* (probe, process, stacks) per generation, default */

struct stack_key {
	uint32_t func_id;
	uint32_t tgid;
	int32_t kstack;  /* stack map id, or negative: none taken or none fitted */
	uint32_t uflags; /* how the user stack was walked and ended (ustack.h) */
	uint64_t ustack; /* its frames' hash, the key in ustacks; 0: none */
	char comm[16];   /* the thread's, at the call: the folded line's root */
};

/* A user stack as ustack.bpf.h walked it (frames as ustack.h tells them). */
struct ustack_val {
	uint64_t frames[SMBLAT_STACK_FRAMES];
	uint32_t n;
	uint32_t flags; /* enum ustack_flags, US_END_* */
};
SMBLAT_SIZE(stack_key, 40);
SMBLAT_AT(stack_key, ustack, 16);
SMBLAT_SIZE(ustack_val, 8 * SMBLAT_STACK_FRAMES + 8);

struct stack_count {
	uint64_t count;
	uint64_t total_ns;
};
SMBLAT_SIZE(stack_count, 16);

/* Per function id and CPU: calls whose stacks were not counted. */
struct stack_lost {
	uint64_t stack_full; /* the stack map had no room (or a hash collision) */
	uint64_t keys_full;  /* the counts map had no room */
};
SMBLAT_SIZE(stack_lost, 16);

#endif
