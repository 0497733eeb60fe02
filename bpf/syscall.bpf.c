// SPDX-License-Identifier: GPL-2.0
/*
 * Syscall targets of [probe NAME]: raw tracepoints sys_enter/sys_exit time
 * calls like any other probe (call.bpf.h), the function id looked up by
 * syscall number.
 */
#include "call.bpf.h"

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
	if (!v || !*v)
		return 0;
#ifdef __TARGET_ARCH_x86
	/* 32-bit tasks number their syscalls differently: TS_COMPAT, arch/x86 */
	if (bpf_core_field_exists(((struct thread_info *)0)->status) &&
	    (BPF_CORE_READ((struct task_struct *)bpf_get_current_task(),
			   thread_info.status) & 0x0002))
		return 0;
#endif
	return *v;
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

/* The logged arguments of a system call from regs; R: empty (plain loads) or _CORE. */
#define SYS_ARGS(args, n, regs, R, r9)						\
	do {									\
		if (n > 0)							\
			args[0] = PT_REGS_PARM1##R##_SYSCALL(regs);		\
		if (n > 1)							\
			args[1] = PT_REGS_PARM2##R##_SYSCALL(regs);		\
		if (n > 2)							\
			args[2] = PT_REGS_PARM3##R##_SYSCALL(regs);		\
		if (n > 3)							\
			args[3] = PT_REGS_PARM4##R##_SYSCALL(regs);		\
		if (n > 4)							\
			args[4] = PT_REGS_PARM5##R##_SYSCALL(regs);		\
		if (SYS_HAS_ARG6 && n > 5)					\
			args[5] = r9;						\
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

	if (!id)
		return 0;
	id--;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc)
		return 0;
	/* only the arguments logged */
	n = fc->nargs;
	if (cfg.compat & COMPAT_TP_REGS) {
		SYS_ARGS(args, n, tp_regs, _CORE, SYS_R9_CORE(tp_regs));
	} else {
		regs = sys_regs();
		if (!regs)
			return 0;
		SYS_ARGS(args, n, regs, , SYS_R9(regs));
	}
	return call_entry(ctx, id, args, false);
}

/* sys_exit passes the return value only; the number is in the saved registers. */
static __always_inline long sys_exit_nr(struct pt_regs *tp_regs)
{
	struct pt_regs *regs = tp_regs;

	if (!(cfg.compat & COMPAT_TP_REGS))
		regs = sys_regs();
	if (!regs)
		return -1;
#if defined(__TARGET_ARCH_x86)
	return cfg.compat & COMPAT_TP_REGS ? BPF_CORE_READ(regs, orig_ax) : regs->orig_ax;
#elif defined(__TARGET_ARCH_arm64)
	return cfg.compat & COMPAT_TP_REGS ?
		BPF_CORE_READ((struct user_pt_regs *)regs, syscallno) : regs->syscallno;
#else
	return -1;
#endif
}

static __always_inline int sys_exit(void *ctx, struct pt_regs *tp_regs, long ret)
{
	__u32 id = sys_id(sys_exit_nr(tp_regs));

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

TRACEPOINT_PROGRAMS(sys_enter, sys_enter, sys_enter_tp)
TRACEPOINT_PROGRAMS(sys_exit, sys_exit, sys_exit_tp)
