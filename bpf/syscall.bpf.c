// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall targets of [probe NAME]: raw tracepoints sys_enter/sys_exit time
 * calls like any other probe (call.bpf.h), the function id looked up by
 * syscall number.
 */
#include "call.bpf.h"
#include "sysnr.bpf.h"

/* Syscall number -> func id + 1; 0: not traced. Set by the agent. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SMBLAT_SYSCALL_MAX);
	__type(key, __u32);
	__type(value, __u32);
} sys_ids SEC(".maps");

/* Runs for every syscall of every task: the common case, not traced, must be cheap. */
static __always_inline __u32 sys_id(long nr)
{
	__u32 key = (__u32)nr, *v;

	/* x32 numbers have bit 30 set, out of range here too */
	if (nr < 0 || nr >= SMBLAT_SYSCALL_MAX)
		return 0;
	v = bpf_map_lookup_elem(&sys_ids, &key);
	if (!v || !*v || syscall_compat())
		return 0;
	return *v;
}

static __always_inline int sys_enter(struct pt_regs *regs, long nr)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	__u32 id = sys_id(nr), n;
	struct func_cfg *fc;

	if (!id)
		return 0;
	id--;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc)
		return 0;
	/* each argument is a read of the saved registers: only those logged */
	n = fc->nargs;
	if (n > 0)
		args[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	if (n > 1)
		args[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
	if (n > 2)
		args[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
	if (n > 3)
		args[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
	if (n > 4)
		args[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
#ifdef __TARGET_ARCH_x86
	if (n > 5)
		args[5] = BPF_CORE_READ(regs, r9);
#endif
	return call_entry(id, args, false);
}

static __always_inline int sys_exit(void *ctx, struct pt_regs *regs, long ret)
{
	__u32 id = sys_id(syscall_exit_nr(regs));

	if (!id)
		return 0;
	return call_exit(ctx, id - 1, (__u64)ret, false);
}

static __always_inline int sys_enter_tp(__u64 *ctx)
{
	return sys_enter((struct pt_regs *)ctx[0], (long)ctx[1]);
}

static __always_inline int sys_exit_tp(__u64 *ctx)
{
	return sys_exit(ctx, (struct pt_regs *)ctx[0], (long)ctx[1]);
}

TRACEPOINT_PROGRAMS(sys_enter, sys_enter, sys_enter_tp)
TRACEPOINT_PROGRAMS(sys_exit, sys_exit, sys_exit_tp)
