/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call timed from entry to exit on one task: entry pushes a frame on the
 * task's stack (BPF task storage), exit pops it, accounts the call and
 * sends a slow (or failed, with errors=) one through the ring buffer.
 *
 * Two specialisations, chosen at compile time by each unit: plain (func,
 * syscall, smbd units: any function) and vfs (the smb layer: calls of
 * shared helpers counted only on an SMB superblock, the file and share of
 * the call, and the SMB2 requests it waited on).
 */
#ifndef SMBLAT_CALL_BPF_H
#define SMBLAT_CALL_BPF_H

#include "core.bpf.h"
#include "vfs.bpf.h"
#include "wire.bpf.h"
#include "view.bpf.h"

static __always_inline int call_entry(__u32 id, const __u64 *args, const bool vfs)
{
	struct global_stats *gs;
	struct func_cfg *fc;
	struct frames *fr;
	__u32 d;

	if (!task_wanted())
		return 0;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return 0;
	/* Shared helpers (netfs_*, generic_*) serve every file system. */
	if (vfs && (fc->flags & FF_SB_CHECK) &&
	    !sb_is_smb(arg_sb(fc->sb_kind, arg_at(args, fc->sb_arg))))
		return 0;

	fr = bpf_task_storage_get(&frames, bpf_get_current_task_btf(), 0,
				  BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!fr) {
		gs = global_stats();
		if (gs)
			__sync_fetch_and_add(&gs->no_storage, 1);
		return 0;
	}
	d = fr->depth;
	if (d >= SMBLAT_NEST) {
		gs = global_stats();
		if (gs)
			__sync_fetch_and_add(&gs->nest_overflow, 1);
		return 0;
	}
	fr->f[d].func_id = id;
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		fr->f[d].args[i] = args[i];
	if (vfs) {
		fr->f[d].wire_n = 0;
		fr->f[d].wire_ns = 0;
		fr->f[d].wire_split = (struct smb2_split) {};
	}
	fr->f[d].start_ns = bpf_ktime_get_ns();
	fr->depth = d + 1;
	return 0;
}

static __always_inline void call_fill(void *ctx, struct event *e, const struct func_cfg *fc,
				      const struct frame *f, __u32 id, __u64 lat, __u64 ret,
				      const bool vfs)
{
	event_task(e, id, lat);
	e->ret = ret;
	e->flags = fc->ret_kind != RK_VOID ? EF_HAS_RET : 0;
	e->dev = 0;
	e->name[0] = 0;
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		e->args[i] = i < fc->nargs ? f->args[i] : 0;
	if (vfs) {
		vfs_fill(e, fc, f->args);
		wire_fill(e, f);
	}
	/*
	 * No frames skipped here: how many the machinery above the traced code
	 * takes differs by program type and kernel (a tracepoint with one probe
	 * or several), so the agent drops them by name. The arrays hold one
	 * frame past what is kept, to know a stack was cut.
	 */
	e->kstack_sz = (fc->flags & FF_KSTACK) ?
		bpf_get_stack(ctx, e->kstack, sizeof(e->kstack), 0) : 0;
	e->ustack_sz = (fc->flags & FF_USTACK) ?
		bpf_get_stack(ctx, e->ustack, sizeof(e->ustack), BPF_F_USER_STACK) : 0;
}

static __always_inline int call_exit(void *ctx, __u32 id, __u64 ret, const bool vfs)
{
	struct func_stats *st;
	struct func_cfg *fc;
	struct frames *fr;
	struct frame *f = NULL;
	struct event *e;
	__u64 now = bpf_ktime_get_ns(), lat;
	__u32 d, i;
	bool slow;

	fr = task_frames();
	if (!fr)
		return 0;
	d = fr->depth;
	/*
	 * The innermost frame is normally ours; a return whose entry was
	 * dropped (kretprobe maxactive, nest overflow) must not eat the frame of
	 * an outer call, so look for the nearest frame with our id.
	 */
	for (i = 0; i < SMBLAT_NEST; i++) {
		if (i >= d)
			break;
		__u32 k = (d - 1 - i) & (SMBLAT_NEST - 1);
		if (fr->f[k].func_id == id) {
			f = &fr->f[k];
			fr->depth = k;
			break;
		}
	}
	if (!f) {
		if (!d || !task_wanted())
			return 0;
		st = bpf_map_lookup_elem(&stats, &id);
		if (st)
			__sync_fetch_and_add(&st->unmatched, 1);
		return 0;
	}
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc)
		return 0;
	lat = now - f->start_ns;
	slow = lat >= fc->threshold_ns;
	account(id, lat, slow);
	if (vfs)
		vfs_share_account(id, fc, f->args, lat, slow);
	if (!slow && !((fc->flags & FF_ERRORS) && ret_failed(fc->ret_kind, ret)))
		return 0;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		return 0;
	}
	call_fill(ctx, e, fc, f, id, lat, ret, vfs);
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * A family of call programs, one per way of attaching to a kernel
 * function: PREFIX_fentry/_fexit (cloned per target by the agent),
 * _kprobe/_kretprobe (also uprobes), _kmulti/_kretmulti. The function id
 * is the BPF cookie.
 */
#define CALL_PROGRAMS(prefix, vfs)						\
SEC("fentry")									\
int BPF_PROG(prefix##_fentry)							\
{										\
	__u64 args[SMBLAT_MAX_ARGS] = {};					\
										\
	trampoline_args(ctx, args);						\
	return call_entry(bpf_get_attach_cookie(ctx), args, vfs);		\
}										\
										\
SEC("fexit")									\
int BPF_PROG(prefix##_fexit)							\
{										\
	__u64 ret = 0;								\
										\
	bpf_get_func_ret(ctx, &ret);						\
	return call_exit(ctx, bpf_get_attach_cookie(ctx), ret, vfs);		\
}										\
										\
static __always_inline int prefix##_enter(struct pt_regs *regs)		\
{										\
	__u64 args[SMBLAT_MAX_ARGS] = {};					\
										\
	regs_args(regs, args);							\
	return call_entry(bpf_get_attach_cookie(regs), args, vfs);		\
}										\
										\
static __always_inline int prefix##_return(struct pt_regs *regs)		\
{										\
	return call_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs), vfs); \
}										\
										\
SEC("kprobe") int prefix##_kprobe(struct pt_regs *r) { return prefix##_enter(r); }	\
SEC("kretprobe") int prefix##_kretprobe(struct pt_regs *r) { return prefix##_return(r); } \
SEC("kprobe.multi") int prefix##_kmulti(struct pt_regs *r) { return prefix##_enter(r); } \
SEC("kretprobe.multi") int prefix##_kretmulti(struct pt_regs *r) { return prefix##_return(r); }

#endif
