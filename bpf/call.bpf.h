/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A call timed from entry to exit on one task: entry pushes a frame on the
 * task's stack (frames_get(): task storage, or a hash by thread id), exit
 * pops it, accounts the call and sends a slow (or failed, with errors=)
 * one through the ring buffer. A call inside a call of the same operation
 * (func_cfg.op) pushes a frame that only matches its return: the
 * operation is timed and counted once, by its outermost call. The pieces
 * (call_wanted, frame_push, frame_pop, call_done) serve the session
 * programs of func.bpf.c too, which keep a frame only for the arguments a
 * call logs.
 *
 * Two specialisations, chosen at compile time by each unit: plain (func,
 * syscall, smbd units: any function) and vfs (the smb layer: calls of
 * shared helpers counted only on an SMB superblock, the file and share of
 * the call, and the SMB2 requests it waited on).
 */
#ifndef SMBLAT_CALL_BPF_H
#define SMBLAT_CALL_BPF_H

#include "core.bpf.h"
#include "stacks.bpf.h"
#include "offcpu.bpf.h"
#include "vfs.bpf.h"
#include "wire.bpf.h"
#include "view.bpf.h"

/* Only the arguments that the exit's checks and fields read. */
static __always_inline void frame_args(struct frame *f, const __u64 *args, __u8 n)
{
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		if (i < n)
			f->args[i] = args[i];
}

/* The configuration of id when this call of it is to be timed, else NULL. */
static __always_inline struct func_cfg *call_wanted(__u32 id, const __u64 *args, const bool vfs)
{
	struct func_cfg *fc;

	if (!task_wanted())
		return NULL;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return NULL;
	/* Shared helpers (netfs_*, generic_*) serve every file system. */
	if (vfs && (fc->flags & FF_SB_CHECK) && !sb_is_smb(arg_sb(fc->sb_kind, arg_at(args, fc->sb_arg))))
		return NULL;
	return fc;
}

/* Whether a call of operation op is in progress on the thread below depth d. */
static __always_inline bool op_in_progress(const struct frames *fr, __u32 d, __u32 op)
{
	for (__u32 i = 0; i < SMBLAT_NEST; i++) {
		if (i >= d)
			break;
		if (fr->f[i].op == op)
			return true;
	}
	return false;
}

/* An entry that could not be timed: counted, never dropped silently. */
static __always_inline void call_untimed(__u32 id, bool nest)
{
	struct global_stats *gs = global_stats();

	if (gs && nest)
		__sync_fetch_and_add(&gs->nest_overflow, 1);
	else if (gs)
		__sync_fetch_and_add(&gs->no_storage, 1);
	account_untimed(id);
}

/*
 * Where a stack pointer is, in the order calls nest on a thread: user
 * code, the kernel on the task's own stack, an interrupt on a stack of its
 * own. A call at an inner level may run inside one at an outer level,
 * never the other way round.
 */
enum sp_level {
	SP_USER,
	SP_TASK,
	SP_IRQ,
};

/* Bytes of the task's kernel stack above task->stack (THREAD_SIZE, twice that with KASAN). */
#define TASK_STACK_MAX (32 * 1024)

/* base: the task's kernel stack, 0 where not read (the thread runs user code: any kernel sp is inner). */
static __always_inline int sp_level(__u64 sp, __u64 base)
{
	if ((__s64)sp >= 0)
		return SP_USER;
	return base && sp - base < TASK_STACK_MAX ? SP_TASK : SP_IRQ;
}

static __always_inline __u64 entry_kstack_key(__s32 depth)
{
	return (bpf_get_current_pid_tgid() << 32) | (__u32)depth;
}

/* The kernel stack of the call entering at depth d, kept for its return; d, or negative errno. */
static __always_inline __s32 entry_kstack_save(void *ctx, __u32 d)
{
	__u64 key = entry_kstack_key((__s32)d);
	struct entry_kstack *b;
	__u32 zero = 0;
	long r;

	b = bpf_map_lookup_elem(&entry_kstack_buf, &zero);
	if (!b)
		return -ENOMEM;
	b->size = bpf_get_stack(ctx, b->ip, sizeof(b->ip), 0);
	r = bpf_map_update_elem(&entry_kstacks, &key, b, BPF_ANY);
	return r < 0 ? (__s32)r : (__s32)d;
}

/* The entry's stack of f's call into ip (the record's); its bytes, or negative errno. */
static __always_inline __s32 entry_kstack_copy(const struct frame *f, __u64 *ip, __u32 size)
{
	__u64 key;
	struct entry_kstack *v;

	if (f->kstack_id < 0)
		return f->kstack_id;
	key = entry_kstack_key(f->kstack_id);
	v = bpf_map_lookup_elem(&entry_kstacks, &key);
	if (!v)
		return -ENOENT;
	if (v->size > 0 && bpf_probe_read_kernel(ip, size, v->ip) < 0)
		return -EFAULT;
	return (__s32)v->size;
}

static __always_inline void entry_kstack_drop(const struct frame *f)
{
	__u64 key;

	if (!ENTRY_KSTACKS_ON() || f->kstack_id < 0)
		return;
	key = entry_kstack_key(f->kstack_id);
	bpf_map_delete_elem(&entry_kstacks, &key);
}

/* A frame whose call is gone without its return seen: counted, as a call never timed. */
static __always_inline void frame_lost(const struct frame *f)
{
	if (!f->inner)
		account_untimed(f->func_id);
	entry_kstack_drop(f);
}

/*
 * Frames of calls that are over though their return never came (the
 * kernel skipped a return program: a kretprobe out of instances, a
 * recursion miss; a user function left by longjmp): left on the stack,
 * they would make each later call of their operation look nested, and
 * untimed, and fill the stack. At an entry whose stack pointer is known
 * the top frames that are over go, each counted (UNTIMED): a frame is over
 * when it was at an inner level than the entry (an interrupt's call, the
 * kernel's while the thread runs user code), or at the same level and no
 * deeper in the stack, where a call in progress would be (the stack grows
 * down). STALE_MAX a time: a return frame_pop() finds takes the rest.
 */
#define STALE_MAX 4

static __always_inline void frames_drop_stale(struct frames *fr, __u64 sp)
{
	__u64 base = 0;
	int now;

	if (!sp || !fr->depth)
		return;
	if ((__s64)sp < 0)
		base = (__u64)BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), stack);
	now = sp_level(sp, base);
	for (int i = 0; i < STALE_MAX; i++) {
		__u32 d = fr->depth;
		struct frame *f;
		int was;

		if (!d)
			break;
		f = &fr->f[(d - 1) & (SMBLAT_NEST - 1)];
		if (!f->sp)
			break;
		was = sp_level(f->sp, base);
		if (was < now || (was == now && f->sp > sp))
			break;
		frame_lost(f);
		fr->depth = d - 1;
	}
}

/* A frame for the call on the task's stack; false when there is no room (counted). sp: the entry's, 0 unknown. */
static __always_inline bool frame_push(void *ctx, __u32 id, const struct func_cfg *fc, const __u64 *args,
				       const bool vfs, __u64 sp)
{
	struct frames *fr;
	struct frame *f;
	__u32 d;

	fr = frames_get(true);
	if (!fr) {
		call_untimed(id, false);
		return false;
	}
	frames_drop_stale(fr, sp);
	/* read again, one register checked and used: the verifier loses the loop's bounds of a copy */
	d = *(volatile __u32 *)&fr->depth;
	barrier_var(d);
	if (d >= SMBLAT_NEST) {
		call_untimed(id, true);
		return false;
	}
	barrier_var(d);
	f = &fr->f[d & (SMBLAT_NEST - 1)];
	f->func_id = id;
	f->op = fc->op;
	f->sp = sp;
	f->kstack_id = -ENOENT;
	/* The operation is timed where it began: this frame only matches its return. */
	f->inner = fc->op && op_in_progress(fr, d, fc->op);
	if (f->inner) {
		fr->depth = d + 1;
		return true;
	}
	frame_args(f, args, vfs ? fc->frame_args : fc->nargs);
	if (vfs) {
		f->wire_n = 0;
		f->wire_ns = 0;
		f->wire_split = (struct smb2_split) {};
	}
	if (ENTRY_KSTACKS_ON() && (fc->flags & FF_KSTACK))
		f->kstack_id = entry_kstack_save(ctx, d);
	f->offcpu0 = offcpu_total();
	f->start_ns = bpf_ktime_get_ns();
	fr->depth = d + 1;
	return true;
}

static __always_inline int call_entry(void *ctx, __u32 id, const __u64 *args, const bool vfs, __u64 sp)
{
	struct func_cfg *fc = call_wanted(id, args, vfs);

	if (fc)
		frame_push(ctx, id, fc, args, vfs, sp);
	return 0;
}

/*
 * The frame of this call of id, taken off the task's stack; NULL when there
 * is none. *had_frames: the task had calls in progress; *frp: its frames,
 * for frames_put() once the frame is read.
 */
static __always_inline struct frame *frame_pop(__u32 id, bool *had_frames, struct frames **frp)
{
	struct frames *fr = task_frames();
	bool found = false;
	__u32 d, k = 0;

	*had_frames = false;
	*frp = fr;
	if (!fr)
		return NULL;
	d = fr->depth;
	*had_frames = d > 0;
	/*
	 * The innermost frame is normally ours; a return whose entry was
	 * dropped (kretprobe maxactive, nest overflow) must not eat the frame of
	 * an outer call, so look for the nearest frame with our id.
	 */
	for (__u32 i = 0; i < SMBLAT_NEST; i++) {
		if (i >= d)
			break;
		k = (d - 1 - i) & (SMBLAT_NEST - 1);
		if (fr->f[k].func_id == id) {
			found = true;
			break;
		}
	}
	if (!found)
		return NULL;
	/* the calls above ours are over: their returns were missed */
	for (__u32 j = 0; j < SMBLAT_NEST; j++) {
		if (k + 1 + j >= d)
			break;
		frame_lost(&fr->f[(k + 1 + j) & (SMBLAT_NEST - 1)]);
	}
	fr->depth = k;
	return &fr->f[k];
}

/*
 * The stacks a slow call carries, as fc asks. No frames skipped here: how
 * many the machinery above the traced code takes differs by program type
 * and kernel (a tracepoint with one probe or several), so the agent drops
 * them by name.
 */
static __always_inline void stacks_fill(void *ctx, struct rec_stacks *st, const struct func_cfg *fc,
					const struct frame *f)
{
	if (f && ENTRY_KSTACKS_ON() && (fc->flags & FF_KSTACK)) {
		st->kstack_sz = entry_kstack_copy(f, st->kstack, sizeof(st->kstack));
	} else {
		st->kstack_sz = (fc->flags & FF_KSTACK) ?
					bpf_get_stack(ctx, st->kstack, sizeof(st->kstack), 0) :
					0;
	}
	st->ustack_sz = 0;
	st->uflags = 0;
	if (fc->flags & FF_USTACK)
		ustack_fill(ctx, st);
}

/* A call's record of kind (REC_CALL or one built on it); f: its frame, NULL when it kept none. */
static __always_inline void call_fill(void *ctx, struct rec_call *c, enum rec_kind kind,
				      const struct func_cfg *fc, const struct frame *f, __u32 id, __u64 lat,
				      __u64 ret)
{
	rec_head_fill(&c->h, kind, id, lat);
	c->ret = ret;
	if (fc->ret_kind != RK_VOID)
		c->h.flags |= RF_HAS_RET;
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		c->args[i] = f && i < fc->nargs ? f->args[i] : 0;
	c->offcpu_ns = 0;
	stacks_fill(ctx, &c->st, fc, f);
}

/* The smb layer's part: the file and share of the call, the SMB2 requests it waited on. */
static __always_inline void vfs_call_fill(struct rec_vfs_call *v, const struct func_cfg *fc,
					  const struct frame *f)
{
	v->dev = 0;
	v->name[0] = 0;
	if (!f) {
		wire_none(&v->wire);
		return;
	}
	vfs_fill(v, fc, f->args);
	wire_fill(&v->wire, f);
}

/* A call of id that took lat is over: account it, and send it on when slow (or failed). */
static __always_inline void call_done(void *ctx, __u32 id, const struct frame *f, __u64 lat, __u64 ret,
				      const bool vfs, const enum acct how)
{
	struct func_cfg *fc = bpf_map_lookup_elem(&funcs, &id);
	struct rec_call *c;
	bool slow;

	if (!fc)
		return;
	slow = lat >= fc->threshold_ns;
	account(id, lat, slow, how);
	if (fc->flags & (FF_STACKS_USER | FF_STACKS_KERNEL))
		stacks_count(ctx, id, lat, fc->flags);
	if (vfs && f)
		vfs_share_account(id, fc, f->args, lat, slow, how);
	if (!slow && !((fc->flags & FF_ERRORS) && ret_failed(fc, ret)))
		return;
	c = bpf_ringbuf_reserve(&events, vfs ? sizeof(struct rec_vfs_call) : sizeof(struct rec_call), 0);
	if (!c) {
		account_lost(id);
		return;
	}
	call_fill(ctx, c, vfs ? REC_VFS_CALL : REC_CALL, fc, f, id, lat, ret);
	/* of the calls that keep a frame (sysacct's and smbd's records have none) */
	if (offcpu_on && f) {
		c->offcpu_ns = f->offcpu0;
		c->h.flags |= RF_OFFCPU;
	}
	if (vfs)
		vfs_call_fill((struct rec_vfs_call *)c, fc, f);
	bpf_ringbuf_submit(c, 0);
}

static __always_inline int call_exit(void *ctx, __u32 id, __u64 ret, const bool vfs, const enum acct how)
{
	__u64 now = bpf_ktime_get_ns();
	struct func_stats *st;
	struct frames *fr;
	struct frame *f;
	bool had;

	f = frame_pop(id, &had, &fr);
	if (!f) {
		if (!had || !task_wanted())
			return 0;
		st = bpf_map_lookup_elem(&stats, &id);
		if (st)
			__sync_fetch_and_add(&st->unmatched, 1);
		return 0;
	}
	if (!f->inner) {
		offcpu_frame_end(f);
		call_done(ctx, id, f, now - f->start_ns, ret, vfs, how);
	}
	entry_kstack_drop(f);
	frames_put(fr);
	return 0;
}

/* Entry and exit at a probe on pt_regs (kprobes, uprobes), the id in the cookie or by place. */
static __always_inline int regs_entry(struct pt_regs *regs, const bool vfs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return call_entry(regs, probe_id(regs, false), args, vfs, PT_REGS_SP(regs));
}

static __always_inline int regs_exit(struct pt_regs *regs, const bool vfs, const enum acct how)
{
	return call_exit(regs, probe_id(regs, true), PT_REGS_RC(regs), vfs, how);
}

/*
 * A family of call programs, one per way of attaching to a kernel
 * function: fentry/fexit (cloned per target by the agent), kprobe and
 * kretprobe, kprobe.multi entry and return, named whole as the agent's
 * program tables name them. The function id is the BPF cookie, or without
 * cookies the probed place's (probe_id()). All of them account exclusively
 * (see enum acct).
 */
#define CALL_PROGRAMS(fentry, fexit, kprobe, kretprobe, kmulti, kretmulti, vfs)              \
	SEC("fentry")                                                                        \
	int BPF_PROG(fentry)                                                                 \
	{                                                                                    \
		__u64 args[SMBLAT_MAX_ARGS] = {};                                            \
                                                                                             \
		trampoline_args(ctx, args);                                                  \
		/* no stack pointer at a trampoline: no stale frames judged */               \
		return call_entry(ctx, bpf_get_attach_cookie(ctx), args, vfs, 0);            \
	}                                                                                    \
                                                                                             \
	SEC("fexit")                                                                         \
	int BPF_PROG(fexit)                                                                  \
	{                                                                                    \
		__u64 ret = 0;                                                               \
                                                                                             \
		bpf_get_func_ret(ctx, &ret);                                                 \
		return call_exit(ctx, bpf_get_attach_cookie(ctx), ret, vfs, ACCT_EXCLUSIVE); \
	}                                                                                    \
                                                                                             \
	SEC("kprobe") int kprobe(struct pt_regs *r)                                          \
	{                                                                                    \
		return regs_entry(r, vfs);                                                   \
	}                                                                                    \
	SEC("kretprobe") int kretprobe(struct pt_regs *r)                                    \
	{                                                                                    \
		return regs_exit(r, vfs, ACCT_EXCLUSIVE);                                    \
	}                                                                                    \
	SEC("kprobe.multi") int kmulti(struct pt_regs *r)                                    \
	{                                                                                    \
		return regs_entry(r, vfs);                                                   \
	}                                                                                    \
	SEC("kretprobe.multi") int kretmulti(struct pt_regs *r)                              \
	{                                                                                    \
		return regs_exit(r, vfs, ACCT_EXCLUSIVE);                                    \
	}

#endif
