// SPDX-License-Identifier: GPL-2.0
/*
 * Kernel feature probes (agent/probes/features.c): programs the agent loads
 * one by one, and links where loading alone does not tell; whether the
 * kernel takes each is the answer. They do nothing when they run.
 */
#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>

char LICENSE[] SEC("license") = "GPL";

SEC("fentry")
int BPF_PROG(feat_fentry)
{
	return 0;
}

SEC("kprobe.multi")
int feat_kprobe_multi(struct pt_regs *ctx)
{
	return 0;
}

SEC("tp_btf")
int BPF_PROG(feat_tp_btf)
{
	return 0;
}

/* Loaded sleepable (BPF_F_SLEEPABLE): a uprobe program that may fault user pages in. */
SEC("uprobe")
int feat_uprobe_sleep(struct pt_regs *ctx)
{
	char c;

	bpf_copy_from_user(&c, sizeof(c), (void *)PT_REGS_PARM1(ctx));
	return 0;
}
