/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The per-share view: every call of an SMB FUNCTION (smb and smb2 layers)
 * counted again under the share it was on, so one slow share stands out.
 * The labels are bounded: calls of a pair the map has no room for are
 * counted per FUNCTION in share_overflow.
 */
#ifndef SMBLAT_VIEW_BPF_H
#define SMBLAT_VIEW_BPF_H

#include "core.bpf.h"
#include "view.h"
#include "vfs.bpf.h"

extern struct view_ctl views;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SMBLAT_SHARE_VIEW_MAX);
	__type(key, struct share_key);
	__type(value, struct func_stats);
} share_view SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, __u64);
} share_overflow SEC(".maps") __weak;

/* A zeroed value to insert from: too big for the stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct func_stats);
} share_zero SEC(".maps") __weak;

static __always_inline void share_account(__u32 id, __u32 dev, __u64 lat, bool slow, const enum acct how)
{
	struct share_key k = { .func_id = id, .dev = dev };
	struct func_stats *v;
	__u32 zero = 0;
	__u64 *o;

	if (!views.share_on || !dev)
		return;
	v = bpf_map_lookup_elem(&share_view, &k);
	if (!v) {
		v = bpf_map_lookup_elem(&share_zero, &zero);
		if (!v)
			return;
		bpf_map_update_elem(&share_view, &k, v, BPF_NOEXIST);
		v = bpf_map_lookup_elem(&share_view, &k);
	}
	if (!v) {
		o = bpf_map_lookup_elem(&share_overflow, &id);
		if (o)
			__sync_fetch_and_add(o, 1);
		return;
	}
	stats_add(v, lat, slow, how);
}

enum share_flags {
	SHARE_SLOW = 1u << 0,
	SHARE_SHARED = 1u << 1, /* ACCT_SHARED */
};

/*
 * Out of line: inlined, its paths reached the slow-call entry's fill each
 * as a state of its own for 6.1's verifier, which went through the VFS
 * exit in 10,294 instructions (3,854 with this a subprogram), once per
 * fentry clone. Five arguments at most, hence the flags.
 */
static __noinline void vfs_share_count(__u32 id, const struct func_cfg *fc, const __u64 *args, __u64 lat,
				       __u32 flags)
{
	bool slow = flags & SHARE_SLOW;
	__u32 dev = vfs_dev(fc, args);

	if (flags & SHARE_SHARED)
		share_account(id, dev, lat, slow, ACCT_SHARED);
	else
		share_account(id, dev, lat, slow, ACCT_EXCLUSIVE);
}

/* A VFS call of the smb layer, under the share it was on. */
static __always_inline void vfs_share_account(__u32 id, const struct func_cfg *fc, const __u64 *args,
					      __u64 lat, bool slow, const enum acct how)
{
	if (views.share_on)
		vfs_share_count(id, fc, args, lat,
				(slow ? SHARE_SLOW : 0) | (how == ACCT_SHARED ? SHARE_SHARED : 0));
}

#endif
