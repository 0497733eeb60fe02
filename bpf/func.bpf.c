// SPDX-License-Identifier: GPL-2.0
/*
 * Plain call programs, any function: kernel functions of [probe] sections
 * (fentry/fexit clones, kprobe.multi, kprobe), user functions (uprobe,
 * uprobe.multi) and USDT pairs. The function id is the BPF cookie.
 */
#include "call.bpf.h"
#include <bpf/usdt.bpf.h>

/* fentry/fexit: cloned by the agent once per target, id in the cookie. */
SEC("fentry")
int BPF_PROG(fentry_entry)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	__u64 n = bpf_get_func_arg_cnt(ctx);

	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		if (i < n)
			bpf_get_func_arg(ctx, i, &args[i]);
	return call_entry(bpf_get_attach_cookie(ctx), args, false);
}

SEC("fexit")
int BPF_PROG(fexit_exit)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return call_exit(ctx, bpf_get_attach_cookie(ctx), ret, false);
}

/* kprobe, uprobe: one program, attached many times with a cookie each. */
SEC("kprobe")
int kprobe_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return call_entry(bpf_get_attach_cookie(regs), args, false);
}

SEC("kretprobe")
int kprobe_exit(struct pt_regs *regs)
{
	return call_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs), false);
}

SEC("kprobe.multi")
int kmulti_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return call_entry(bpf_get_attach_cookie(regs), args, false);
}

SEC("kretprobe.multi")
int kmulti_exit(struct pt_regs *regs)
{
	return call_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs), false);
}

/*
 * uprobe.multi: the agent loads these with expected_attach_type
 * BPF_TRACE_UPROBE_MULTI (libbpf 1.1 has no section name for it) and links
 * many offsets of one file at once.
 */
SEC("kprobe.multi")
int umulti_entry(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return call_entry(bpf_get_attach_cookie(regs), args, false);
}

SEC("kprobe.multi")
int umulti_exit(struct pt_regs *regs)
{
	return call_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs), false);
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
	return call_entry((__u32)bpf_usdt_cookie(regs), args, false);
}

SEC("usdt")
int usdt_exit(struct pt_regs *regs)
{
	return call_exit(regs, (__u32)bpf_usdt_cookie(regs), 0, false);
}
