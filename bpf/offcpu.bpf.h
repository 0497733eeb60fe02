/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Where a timed call's time went: the part of it spent off-CPU. A thread
 * inside a traced call (frames depth > 0) gets an entry in offcpu_threads
 * at its first switch-out, which sched_switch (offcpu.bpf.c) keeps: at the
 * switch-out the time and, current being the thread still, the kernel
 * stack it waits in; at its switch-in the time off-CPU added to the
 * thread's total and to the sum of that stack for the call's function. A
 * call's frame holds the total at its entry; its return takes the
 * difference. The entry goes at the thread's first switch-out outside a
 * call: deleting it at the outermost return cost the verifier 1,300
 * instructions of vfs_kretprobe (its walk split at the depth check).
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

/*
 * A timed call returns: its frame's entry total becomes its time off-CPU,
 * for call_done(). Taken here rather than in call_done(), where the
 * verifier's walk of vfs_kretprobe split into 1,300 more instructions.
 */
static __always_inline void offcpu_frame_end(struct frame *f)
{
	f->offcpu0 = offcpu_total() - f->offcpu0;
}

#endif
