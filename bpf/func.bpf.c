// SPDX-License-Identifier: GPL-2.0
/*
 * Plain call programs, any function: kernel functions of [probe] sections
 * and smbd's VFS calls (the call_* family: fentry/fexit clones,
 * kprobe.multi, kprobe, and uprobe), user functions by uprobe.multi, and
 * USDT pairs. The function id is the BPF cookie.
 */
#include "call.bpf.h"
#include <bpf/usdt.bpf.h>

CALL_PROGRAMS(call, false)

/* User functions: preemptible, so they account with atomics (enum acct). */
SEC("uprobe") int call_uprobe(struct pt_regs *r) { return regs_entry(r, false); }
SEC("uretprobe") int call_uretprobe(struct pt_regs *r) { return regs_exit(r, false, ACCT_SHARED); }

/*
 * uprobe.multi: the agent loads these with expected_attach_type
 * BPF_TRACE_UPROBE_MULTI (libbpf 1.1 has no section name for it) and links
 * many offsets of one file at once.
 */
SEC("kprobe.multi") int umulti_entry(struct pt_regs *r) { return regs_entry(r, false); }
SEC("kprobe.multi") int umulti_exit(struct pt_regs *r) { return regs_exit(r, false, ACCT_SHARED); }

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
	return call_exit(regs, (__u32)bpf_usdt_cookie(regs), 0, false, ACCT_SHARED);
}
