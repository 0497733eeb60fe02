/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * Off-CPU time of timed calls (bpf/offcpu.bpf.h): per thread inside a
 * traced call, the time it spent switched out, summed at sched_switch; and
 * per function and kernel stack at the switch-out, the off-CPU time that
 * stack took, in two generations by the histogram epoch (as stacks.h).
 */
#ifndef SMBLAT_OFFCPU_H
#define SMBLAT_OFFCPU_H

#define SMBLAT_OFFCPU_STACKS 2048 /* distinct wait stacks per generation */
#define SMBLAT_OFFCPU_KEYS 4096   /* (function, stack) per generation */

struct offcpu_key {
	uint32_t func_id; /* the innermost timed call of the thread when it switched out */
	int32_t kstack;   /* its kernel stack there, in offcpu_stacks<gen> */
};
SMBLAT_SIZE(offcpu_key, 8);

struct offcpu_sum {
	uint64_t total_ns;
	uint64_t count; /* times switched out there */
};
SMBLAT_SIZE(offcpu_sum, 16);

/* Per CPU: off-CPU time that could not be put on a stack (no room), and threads not followed. */
struct offcpu_lost {
	uint64_t stack_ns;  /* the stack map or the sums had no room */
	uint64_t no_thread; /* switch-outs of a thread the threads table had no room for */
};
SMBLAT_SIZE(offcpu_lost, 16);

#endif
