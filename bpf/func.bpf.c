// SPDX-License-Identifier: GPL-2.0
/*
 * Plain call programs, any function: kernel functions of [probe] sections
 * and smbd's VFS calls (the call_* family: fentry/fexit clones,
 * kprobe.multi, kprobe, and uprobe), user functions by uprobe.multi, and
 * USDT pairs. The function id is the BPF cookie.
 */
#include "call.bpf.h"
#include <bpf/usdt.bpf.h>

CALL_PROGRAMS(call_fentry, call_fexit, call_kprobe, call_kretprobe, call_kmulti, call_kretmulti, false)

/* User functions: preemptible, so they account with atomics (enum acct). */
SEC("uprobe") int call_uprobe(struct pt_regs *r)
{
	return regs_entry(r, false);
}
SEC("uretprobe") int call_uretprobe(struct pt_regs *r)
{
	return regs_exit(r, false, ACCT_SHARED);
}

/*
 * uprobe.multi: the agent loads these with expected_attach_type
 * BPF_TRACE_UPROBE_MULTI (libbpf 1.1 has no section name for it) and links
 * many offsets of one file at once.
 */
SEC("kprobe.multi") int umulti_entry(struct pt_regs *r)
{
	return regs_entry(r, false);
}
SEC("kprobe.multi") int umulti_exit(struct pt_regs *r)
{
	return regs_exit(r, false, ACCT_SHARED);
}

/*
 * Kernels without them never load usession (the agent looks in their BTF
 * first). Newer kernels pass the program's context to both: func_ctx.bpf.c
 * builds this unit with that prototype into an object of its own.
 */
#ifdef SESSION_KFUNCS_TAKE_CTX
extern __u64 *bpf_session_cookie(void *ctx) __ksym __weak;
extern bool bpf_session_is_return(void *ctx) __ksym __weak;
#define session_cookie(ctx) bpf_session_cookie(ctx)
#define session_is_return(ctx) bpf_session_is_return(ctx)
#else
extern __u64 *bpf_session_cookie(void) __ksym __weak;
extern bool bpf_session_is_return(void) __ksym __weak;
#define session_cookie(ctx) bpf_session_cookie()
#define session_is_return(ctx) bpf_session_is_return()
#endif

/*
 * uprobe.session: one program at a call's entry and at its return, and
 * eight bytes the kernel keeps per call: the start time. Neither the
 * entry's nor the return's look-up of the task's frames is needed, unless
 * the call logs arguments (args=); an entry that is not wanted returns 1,
 * and the kernel then skips the return altogether. Loaded with
 * expected_attach_type BPF_TRACE_UPROBE_SESSION.
 */
SEC("kprobe.multi")
int usession(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {}, *cookie = session_cookie(regs), now;
	__u32 id = bpf_get_attach_cookie(regs);
	struct func_cfg *fc;
	struct frames *fr = NULL;
	struct frame *f = NULL;
	bool framed, had;

	if (!cookie)
		return 1;
	if (!session_is_return(regs)) {
		regs_args(regs, args);
		fc = call_wanted(id, args, false);
		/* off-CPU time is taken from a frame, which sched_switch finds too */
		framed = fc && (fc->nargs || offcpu_on);
		if (!fc || (framed && !frame_push(regs, id, fc, args, false, PT_REGS_SP(regs))))
			return 1;
		/* the start, and in its lowest bit whether a frame holds the arguments */
		*cookie = (bpf_ktime_get_ns() & ~1ULL) | framed;
		return 0;
	}
	now = bpf_ktime_get_ns();
	if (*cookie & 1)
		f = frame_pop(id, &had, &fr);
	if (f)
		offcpu_frame_end(f);
	call_done(regs, id, f, now - (*cookie & ~1ULL), PT_REGS_RC(regs), false, ACCT_SHARED);
	if (f)
		entry_kstack_drop(f);
	if (fr)
		frames_put(fr);
	return 0;
}

/*
 * USDT: START pushes a frame like a function entry, with the probe's
 * arguments; END pops it on the same thread (the probes have no return value).
 */
SEC("usdt")
int usdt_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	int n = bpf_usdt_arg_cnt(regs);
	long v;

	for (int i = 0; i < SMBLAT_MAX_ARGS; i++) {
		if (i >= n || bpf_usdt_arg(regs, i, &v) < 0)
			break;
		args[i] = v;
	}
	return call_entry(regs, (__u32)bpf_usdt_cookie(regs), args, false, PT_REGS_SP(regs));
}

SEC("usdt")
int usdt_exit(struct pt_regs *regs)
{
	return call_exit(regs, (__u32)bpf_usdt_cookie(regs), 0, false, ACCT_SHARED);
}
