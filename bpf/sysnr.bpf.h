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
	    (BPF_CORE_READ(bpf_get_current_task_btf(), thread_info.status) & 0x0002))
		return true;
#endif
	return false;
}

/* sys_exit passes the return value only; the number is in the saved registers. */
static __always_inline long syscall_exit_nr(struct pt_regs *regs)
{
#if defined(__TARGET_ARCH_x86)
	return BPF_CORE_READ(regs, orig_ax);
#elif defined(__TARGET_ARCH_arm64)
	return BPF_CORE_READ((struct user_pt_regs *)regs, syscallno);
#else
	return -1;
#endif
}

#endif
