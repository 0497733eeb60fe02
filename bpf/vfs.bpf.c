// SPDX-License-Identifier: GPL-2.0
/*
 * The smb layer's call programs: cifs VFS operations and the shared
 * helpers that serve them, counted only on SMB superblocks, with the file,
 * the share and the SMB2 requests each call waited on.
 */
#include "call.bpf.h"

SEC("fentry")
int BPF_PROG(vfs_fentry)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	__u64 n = bpf_get_func_arg_cnt(ctx);

	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		if (i < n)
			bpf_get_func_arg(ctx, i, &args[i]);
	return call_entry(bpf_get_attach_cookie(ctx), args, true);
}

SEC("fexit")
int BPF_PROG(vfs_fexit)
{
	__u64 ret = 0;

	bpf_get_func_ret(ctx, &ret);
	return call_exit(ctx, bpf_get_attach_cookie(ctx), ret, true);
}

SEC("kprobe")
int vfs_kprobe(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return call_entry(bpf_get_attach_cookie(regs), args, true);
}

SEC("kretprobe")
int vfs_kretprobe(struct pt_regs *regs)
{
	return call_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs), true);
}

SEC("kprobe.multi")
int vfs_kmulti(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return call_entry(bpf_get_attach_cookie(regs), args, true);
}

SEC("kretprobe.multi")
int vfs_kretmulti(struct pt_regs *regs)
{
	return call_exit(regs, bpf_get_attach_cookie(regs), PT_REGS_RC(regs), true);
}
