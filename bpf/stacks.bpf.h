/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Stack counting for any probe whose func_cfg asks (FF_STACKS_*): per
 * probe, process and distinct kernel+user stack, calls and summed latency
 * in the kernel, as bpftrace's @[kstack, ustack] = count(). Stacks that do
 * not fit are counted per probe. The maps are sized by the agent (one entry
 * when no probe counts stacks).
 */
#ifndef SMBLAT_STACKS_BPF_H
#define SMBLAT_STACKS_BPF_H

#include "core.bpf.h"
#include "ustack.bpf.h"

#define STACK_IDS_MAP(n)                                                 \
	struct {                                                         \
		__uint(type, BPF_MAP_TYPE_STACK_TRACE);                  \
		__uint(max_entries, SMBLAT_STACK_IDS);                   \
		__uint(key_size, sizeof(__u32));                         \
		__uint(value_size, SMBLAT_STACK_FRAMES * sizeof(__u64)); \
	} n SEC(".maps") __weak;

#define STACK_COUNTS_MAP(n)                             \
	struct {                                        \
		__uint(type, BPF_MAP_TYPE_HASH);        \
		__uint(max_entries, SMBLAT_STACK_KEYS); \
		__type(key, struct stack_key);          \
		__type(value, struct stack_count);      \
	} n SEC(".maps") __weak;

#define USTACKS_MAP(n)                                 \
	struct {                                       \
		__uint(type, BPF_MAP_TYPE_HASH);       \
		__uint(max_entries, SMBLAT_STACK_IDS); \
		__type(key, __u64);                    \
		__type(value, struct ustack_val);      \
	} n SEC(".maps") __weak;

STACK_IDS_MAP(stack_ids0)
STACK_IDS_MAP(stack_ids1)
USTACKS_MAP(ustacks0)
USTACKS_MAP(ustacks1)
STACK_COUNTS_MAP(stack_counts0)
STACK_COUNTS_MAP(stack_counts1)

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct stack_lost);
} stack_lost SEC(".maps") __weak;

static __always_inline void stack_lost_count(__u32 id, bool keys)
{
	struct stack_lost *l = bpf_map_lookup_elem(&stack_lost, &id);

	if (!l)
		return;
	if (keys)
		l->keys_full++;
	else
		l->stack_full++;
}

static __always_inline void stacks_add(void *counts, struct stack_key *k, __u64 lat)
{
	struct stack_count *c = bpf_map_lookup_elem(counts, k), one = { 1, lat };

	if (c) {
		__sync_fetch_and_add(&c->count, 1);
		__sync_fetch_and_add(&c->total_ns, lat);
		return;
	}
	/* another CPU may have added it meanwhile: then add to that one */
	if (bpf_map_update_elem(counts, k, &one, BPF_NOEXIST) == 0)
		return;
	c = bpf_map_lookup_elem(counts, k);
	if (c) {
		__sync_fetch_and_add(&c->count, 1);
		__sync_fetch_and_add(&c->total_ns, lat);
	} else {
		stack_lost_count(k->func_id, true);
	}
}

/*
 * The user stack in this generation's ustacks: its hash in k, or false (no
 * room: counted). cached: the profile's walk (ustack_walk_cached).
 */
static __always_inline bool ustack_count(void *ctx, struct stack_key *k, bool gen1, const bool cached)
{
	void *ustacks = gen1 ? (void *)&ustacks1 : (void *)&ustacks0;
	struct uwalk *w = ustack_take_walk(ctx, SMBLAT_STACK_FRAMES, cached);
	bool ok = true;

	if (!w)
		return false;
	/*
	 * a kernel thread has no user stack: a stack of its own; a walk that
	 * ended before its first frame keeps why ([unwind: mappings locked])
	 */
	if (w->stk.n || (w->stk.flags & US_END_MASK)) {
		k->ustack = w->hash;
		k->uflags = w->stk.flags;
		if (!bpf_map_lookup_elem(ustacks, &k->ustack) &&
		    bpf_map_update_elem(ustacks, &k->ustack, &w->stk, BPF_NOEXIST) < 0 &&
		    !bpf_map_lookup_elem(ustacks, &k->ustack))
			ok = false;
	}
	ustack_put();
	return ok;
}

/*
 * One call of id that took lat, its user stack v (hash h) taken earlier
 * (at a request's entry): counted in this epoch's generation.
 */
static __always_inline void stacks_count_kept(__u32 id, __u64 lat, __u64 h, const struct ustack_val *v)
{
	struct stack_key k = { .func_id = id, .tgid = bpf_get_current_pid_tgid() >> 32, .kstack = -1 };
	bool gen1 = epoch & 1;
	void *ustacks = gen1 ? (void *)&ustacks1 : (void *)&ustacks0;

	if (!v) {
		stack_lost_count(id, false);
		return;
	}
	bpf_get_current_comm(k.comm, sizeof(k.comm));
	if (v->n) {
		k.ustack = h;
		k.uflags = v->flags;
		if (!bpf_map_lookup_elem(ustacks, &h) &&
		    bpf_map_update_elem(ustacks, &h, v, BPF_NOEXIST) < 0 &&
		    !bpf_map_lookup_elem(ustacks, &h)) {
			stack_lost_count(id, false);
			return;
		}
	}
	stacks_add(gen1 ? (void *)&stack_counts1 : (void *)&stack_counts0, &k, lat);
}

/* One call of id that took lat, at ctx: its stacks counted in this epoch's generation. */
static __always_inline void stacks_count(void *ctx, __u32 id, __u64 lat, __u32 flags)
{
	struct stack_key k = { .func_id = id, .tgid = bpf_get_current_pid_tgid() >> 32, .kstack = -1 };
	bool gen1 = epoch & 1;
	void *ids = gen1 ? (void *)&stack_ids1 : (void *)&stack_ids0;

	bpf_get_current_comm(k.comm, sizeof(k.comm));
	if (flags & FF_STACKS_KERNEL) {
		k.kstack = bpf_get_stackid(ctx, ids, 0);
		if (k.kstack < 0) {
			stack_lost_count(id, false);
			return;
		}
	}
	if ((flags & FF_STACKS_USER) && !ustack_count(ctx, &k, gen1, false)) {
		stack_lost_count(id, false);
		return;
	}
	stacks_add(gen1 ? (void *)&stack_counts1 : (void *)&stack_counts0, &k, lat);
}

/*
 * One sample of a CPU profile at ctx (a perf event's): the kernel stack
 * when the sample interrupted the kernel (a user-mode sample has none: not
 * a loss), joined with the user stack, counted as a call of id.
 */
static __always_inline void stacks_sample(void *ctx, __u32 id)
{
	struct stack_key k = { .func_id = id, .tgid = bpf_get_current_pid_tgid() >> 32, .kstack = -1 };
	bool gen1 = epoch & 1;
	long r;

	bpf_get_current_comm(k.comm, sizeof(k.comm));
	r = bpf_get_stackid(ctx, gen1 ? (void *)&stack_ids1 : (void *)&stack_ids0, 0);
	if (r >= 0) {
		k.kstack = (__s32)r;
	} else if (r != -EFAULT) {
		/* -EFAULT: no kernel frames; anything else: no room */
		stack_lost_count(id, false);
		return;
	}
	if (!ustack_count(ctx, &k, gen1, true)) {
		stack_lost_count(id, false);
		return;
	}
	stacks_add(gen1 ? (void *)&stack_counts1 : (void *)&stack_counts0, &k, 0);
}

#endif
