// SPDX-License-Identifier: GPL-2.0
/*
 * sched_switch for the off-CPU time of timed calls (offcpu.bpf.h): the
 * switch-out of a thread inside a traced call, the switch-in of one that
 * was. Attached only when off-CPU time is on; every other thread costs a
 * task storage (or hash) look-up at its switch-out and a hash look-up at
 * its switch-in.
 */
#include "offcpu.bpf.h"

const volatile __u32 offcpu_on = 0;

enum offcpu_where {
	OC_IN_CALL,    /* inside a timed call */
	OC_OUT,        /* outside any: an entry it has is stale */
	OC_NEVER_SEEN, /* no frames in task storage: never timed, so no entry */
};

/* Whether the thread is in a timed call, and which function's (an inner call of an operation is the operation's). */
static __always_inline enum offcpu_where offcpu_call(__u32 *id)
{
	struct frames *fr = task_frames();
	__u32 d;

	if (!fr)
		/* the hash of frames (COMPAT_FRAMES_HASH) drops a thread's at its outermost return */
		return (cfg.compat & COMPAT_FRAMES_HASH) ? OC_OUT : OC_NEVER_SEEN;
	d = fr->depth;
	for (__u32 i = 0; i < SMBLAT_NEST; i++) {
		struct frame *f;

		if (i >= d)
			break;
		f = &fr->f[(d - 1 - i) & (SMBLAT_NEST - 1)];
		if (!f->inner) {
			*id = f->func_id;
			return OC_IN_CALL;
		}
	}
	return OC_OUT;
}

static __always_inline struct offcpu_lost *lost_counts(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&offcpu_lost, &zero);
}

/* current (prev) leaves its CPU inside a traced call: when, and the stack it waits in. */
static __always_inline void offcpu_out(void *ctx, __u64 now)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), id, gen = epoch & 1;
	struct offcpu_thread *t, n = {};
	struct offcpu_lost *l;

	switch (offcpu_call(&id)) {
	case OC_IN_CALL:
		break;
	case OC_OUT:
		/* out of its calls: it is followed no more */
		bpf_map_delete_elem(&offcpu_threads, &tid);
		return;
	default:
		return;
	}
	t = bpf_map_lookup_elem(&offcpu_threads, &tid);
	if (!t) {
		if (bpf_map_update_elem(&offcpu_threads, &tid, &n, BPF_NOEXIST) == 0)
			t = bpf_map_lookup_elem(&offcpu_threads, &tid);
		if (!t) {
			l = lost_counts();
			if (l)
				l->no_thread++;
			return;
		}
	}
	t->out_ns = now;
	t->func_id = id;
	t->gen = gen;
	t->kstack = bpf_get_stackid(ctx, gen ? (void *)&offcpu_stacks1 : (void *)&offcpu_stacks0, 0);
}

static __always_inline void offcpu_sum_add(const struct offcpu_thread *t, __u64 d)
{
	struct offcpu_key k = { .func_id = t->func_id, .kstack = t->kstack };
	void *sums = t->gen ? (void *)&offcpu_sums1 : (void *)&offcpu_sums0;
	struct offcpu_sum *s, one = { d, 1 };
	struct offcpu_lost *l;

	if (k.kstack >= 0) {
		s = bpf_map_lookup_elem(sums, &k);
		if (!s && bpf_map_update_elem(sums, &k, &one, BPF_NOEXIST) == 0)
			return;
		if (!s)
			s = bpf_map_lookup_elem(sums, &k);
		/* switch-ins on other CPUs add to the same stack */
		if (s) {
			__sync_fetch_and_add(&s->total_ns, d);
			__sync_fetch_and_add(&s->count, 1);
			return;
		}
	}
	l = lost_counts();
	if (l)
		l->stack_ns += d;
}

/* next comes back on a CPU: its time off it, if it was followed. */
static __always_inline void offcpu_in(struct task_struct *next, __u64 now)
{
	__u32 tid = BPF_CORE_READ(next, pid);
	struct offcpu_thread *t = bpf_map_lookup_elem(&offcpu_threads, &tid);
	__u64 d;

	if (!t || !t->out_ns)
		return;
	d = now - t->out_ns;
	t->out_ns = 0;
	t->total_ns += d;
	offcpu_sum_add(t, d);
}

static __always_inline int offcpu_switch(__u64 *ctx)
{
	__u64 now;

	if (!offcpu_on)
		return 0;
	now = bpf_ktime_get_ns();
	offcpu_out(ctx, now);
	offcpu_in((struct task_struct *)ctx[2], now);
	return 0;
}

TRACEPOINT_PROGRAMS(sched_switch, offcpu_switch_btf, offcpu_switch_raw, offcpu_switch)
