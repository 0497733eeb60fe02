/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a timed call's time went: the part of it spent off-CPU. A thread
 * inside a traced call (frames depth > 0) gets an entry in offcpu_threads
 * at its first switch-out, which sched_switch (offcpu.bpf.c) keeps: at the
 * switch-out the time and, current being the thread still, the kernel
 * stack it waits in; at its switch-in the time off-CPU added to the
 * thread's total and to the sum of that stack for the call's function. A
 * call's frame holds the total at its entry; its return takes the
 * difference. The entry goes when the thread's outermost call returns.
 * All of it behind offcpu_on (rodata): off, the verifier drops it.
 */
#ifndef SMBLAT_OFFCPU_BPF_H
#define SMBLAT_OFFCPU_BPF_H

#include "core.bpf.h"
#include "offcpu.h"

extern const volatile __u32 offcpu_on;

/* One thread inside a traced call; only its own sched_switch and its own calls touch it, one at a time. */
struct offcpu_thread {
	__u64 out_ns;   /* switched out at, 0: on a CPU */
	__u64 total_ns; /* off-CPU since its outermost call began */
	__s32 kstack;   /* the stack of the switch-out, <0: none */
	__u32 func_id;
	__u32 gen; /* the generation the stack is in */
	__u32 pad;
};

/* By thread id; sized by the agent (max_threads) when off-CPU time is on, else one entry. */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_thread);
} offcpu_threads SEC(".maps") __weak;

#define OFFCPU_STACKS_MAP(n)                                             \
	struct {                                                         \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                  \
		__uint(max_entries, 1);                                  \
		__uint(key_size, sizeof(__u32));                         \
		__uint(value_size, SMBLAT_STACK_FRAMES * sizeof(__u64)); \
	} n SEC(".maps") __weak;

#define OFFCPU_SUMS_MAP(n)                        \
	struct {                                  \
		__uint(type, BPF_MAP_TYPE_HASH);  \
		__uint(max_entries, 1);           \
		__type(key, struct offcpu_key);   \
		__type(value, struct offcpu_sum); \
	} n SEC(".maps") __weak;

OFFCPU_STACKS_MAP(offcpu_stacks0)
OFFCPU_STACKS_MAP(offcpu_stacks1)
OFFCPU_SUMS_MAP(offcpu_sums0)
OFFCPU_SUMS_MAP(offcpu_sums1)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct offcpu_lost);
} offcpu_lost SEC(".maps") __weak;

/* The running thread's off-CPU total, for a call's entry and return. */
static __always_inline __u64 offcpu_total(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct offcpu_thread *t;

	if (!offcpu_on)
		return 0;
	t = bpf_map_lookup_elem(&offcpu_threads, &tid);
	return t ? t->total_ns : 0;
}

/* The thread's outermost call is over: it is followed no more. */
static __always_inline void offcpu_thread_put(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (offcpu_on)
		bpf_map_delete_elem(&offcpu_threads, &tid);
}

#endif
