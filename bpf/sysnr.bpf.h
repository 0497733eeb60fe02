/* SPDX-License-Identifier: GPL-2.0 */
/* Syscall numbers at sys_enter and sys_exit, shared by the syscall and sysacct units. */
#ifndef SMBLAT_SYSNR_BPF_H
#define SMBLAT_SYSNR_BPF_H

#include "core.bpf.h"

/* 32-bit tasks number their syscalls differently (TS_COMPAT, arch/x86): not ours. */
static __always_inline bool syscall_compat(void)
{
#ifdef __TARGET_ARCH_x86
	if (bpf_core_field_exists(((struct thread_info *)0)->status) &&
	    (BPF_CORE_READ((struct task_struct *)bpf_get_current_task(), thread_info.status) & 0x0002))
		return true;
#endif
	return false;
}

/*
 * The task's saved user registers as a BTF pointer: read with plain loads,
 * where the tracepoint's untyped regs argument would take a
 * bpf_probe_read per field on every system call of every task.
 */
static __always_inline struct pt_regs *sys_regs(void)
{
	return (struct pt_regs *)bpf_task_pt_regs(bpf_get_current_task_btf());
}

/*
 * sys_exit passes the return value only; the number is in the saved
 * registers, read from the tracepoint's own regs argument tp_regs where the
 * kernel lacks bpf_task_pt_regs() (before Linux 5.15, COMPAT_TP_REGS).
 */
static __always_inline long syscall_exit_nr(struct pt_regs *tp_regs)
{
	struct pt_regs *regs = tp_regs;

	if (!(cfg.compat & COMPAT_TP_REGS))
		regs = sys_regs();
	if (!regs)
		return -1;
#if defined(__TARGET_ARCH_x86)
	return cfg.compat & COMPAT_TP_REGS ? BPF_CORE_READ(regs, orig_ax) : regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	return cfg.compat & COMPAT_TP_REGS ? BPF_CORE_READ((struct user_pt_regs *)regs, syscallno) :
					     regs->syscallno;
#else
	return -1;
#endif
}

#endif
