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

/* The logged arguments of a system call from regs; R: empty (plain loads) or _CORE. */
#define SYS_ARGS(args, n, regs, R, r9)                              \
	do {                                                        \
		if (n > 0)                                          \
			args[0] = PT_REGS_PARM1##R##_SYSCALL(regs); \
		if (n > 1)                                          \
			args[1] = PT_REGS_PARM2##R##_SYSCALL(regs); \
		if (n > 2)                                          \
			args[2] = PT_REGS_PARM3##R##_SYSCALL(regs); \
		if (n > 3)                                          \
			args[3] = PT_REGS_PARM4##R##_SYSCALL(regs); \
		if (n > 4)                                          \
			args[4] = PT_REGS_PARM5##R##_SYSCALL(regs); \
		if (SYS_HAS_ARG6 && n > 5)                          \
			args[5] = r9;                               \
	} while (0)

#ifdef __TARGET_ARCH_x86
#define SYS_HAS_ARG6 1
#define SYS_R9(regs) ((regs)->r9)
#define SYS_R9_CORE(regs) BPF_CORE_READ(regs, r9)
#else
#define SYS_HAS_ARG6 0
#define SYS_R9(regs) 0
#define SYS_R9_CORE(regs) 0
#endif

/*
 * tp_regs: the tracepoint's own regs argument, read field by field where
 * the kernel lacks bpf_task_pt_regs() (before Linux 5.15, COMPAT_TP_REGS).
 */
static __always_inline int sys_enter(void *ctx, struct pt_regs *tp_regs, long nr)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	__u32 id = sys_id(nr), n;
	struct func_cfg *fc;
	struct pt_regs *regs;
	__u64 sp;

	if (!id)
		return 0;
	id--;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc)
		return 0;
	/* only the arguments logged */
	n = fc->nargs;
	/* the user stack pointer: a syscall nests inside the thread's user calls */
	if (cfg.compat & COMPAT_TP_REGS) {
		SYS_ARGS(args, n, tp_regs, _CORE, SYS_R9_CORE(tp_regs));
		sp = PT_REGS_SP_CORE(tp_regs);
	} else {
		regs = sys_regs();
		if (!regs)
			return 0;
		SYS_ARGS(args, n, regs, , SYS_R9(regs));
		sp = PT_REGS_SP(regs);
	}
	return call_entry(ctx, id, args, false, sp);
}

static __always_inline int sys_exit(void *ctx, struct pt_regs *tp_regs, long ret)
{
	__u32 id = sys_id(syscall_exit_nr(tp_regs));

	if (!id)
		return 0;
	return call_exit(ctx, id - 1, (__u64)ret, false, ACCT_EXCLUSIVE);
}

static __always_inline int sys_enter_tp(__u64 *ctx)
{
	return sys_enter(ctx, (struct pt_regs *)ctx[0], (long)ctx[1]);
}

static __always_inline int sys_exit_tp(__u64 *ctx)
{
	return sys_exit(ctx, (struct pt_regs *)ctx[0], (long)ctx[1]);
}

TRACEPOINT_PROGRAMS(sys_enter, sys_enter_btf, sys_enter_raw, sys_enter_tp)
TRACEPOINT_PROGRAMS(sys_exit, sys_exit_btf, sys_exit_raw, sys_exit_tp)
