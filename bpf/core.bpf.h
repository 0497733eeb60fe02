/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What every BPF unit shares: the maps (weak, so that each unit may name
 * them and the linker keeps one), the read-only configuration (defined in
 * core.bpf.c), and the accounting of a finished call. Each layer's unit
 * (func, vfs, smb2, block, syscall, smbd) includes this and what it uses
 * of vfs.bpf.h, wire.bpf.h and call.bpf.h; no unit calls into another.
 */
#ifndef SMBLAT_CORE_BPF_H
#define SMBLAT_CORE_BPF_H

#include "vmlinux.h"
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_tracing.h>
#include <bpf/bpf_core_read.h>
#include "smblat.h"

/* The errno values the programs return (vmlinux.h has no macros). */
#ifndef ENOENT
#define ENOENT 2
#endif
#ifndef ENOMEM
#define ENOMEM 12
#endif
#ifndef EFAULT
#define EFAULT 14
#endif

extern const volatile struct smblat_cfg cfg;

/* Bumped by the agent at each histogram interval; selects the min/max slot. */
extern __u64 epoch;

/* One call in progress on a task, from its entry on. */
struct frame {
	__u64 start_ns;
	__u64 args[SMBLAT_MAX_ARGS];
	__u32 func_id;
	__u32 op; /* func_cfg.op of the call */
	/* the SMB2 requests this call waited on (wire.bpf.h) */
	__u32 wire_n;
	__u32 inner;     /* an inner call of an operation timed further out: not timed */
	__s32 kstack_id; /* its entry's kernel stack in entry_kstacks, by depth (COMPAT_ENTRY_KSTACK); <0: none */
	__u32 pad;
	__u64 sp;      /* the stack pointer at the call's entry, 0: not known (call.bpf.h) */
	__u64 offcpu0; /* the thread's off-CPU total at the entry (offcpu.bpf.h) */
	__u64 wire_ns;
	struct smb2_split wire_split; /* theirs, summed */
	struct wire_req wire[SMBLAT_WIRE_MAX];
};

struct frames {
	__u32 depth;
	__u32 pad;
	struct frame f[SMBLAT_NEST];
};

/*
 * The frames of each thread: task storage, or where the kernel has none
 * (COMPAT_FRAMES_HASH) the agent makes this a hash by thread id, sized
 * from the configuration, which holds the threads inside a traced call.
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct frames);
} frames SEC(".maps") __weak;

/* Zeroes, never written: a thread's first frames in the hash. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct frames);
} frames_zero SEC(".maps") __weak;

/*
 * Kernels that need entry stacks (before 5.15) have no bpf_find_vma()
 * (5.17) either, so they load the kernel-walk build (SMBLAT_KERNEL_USTACK)
 * and the agent loads no other there (probes/object.c): only that build
 * carries the path. The verifier walks it even when a rodata flag turns it
 * off (6.1: 4,900 of vfs_kretprobe's 11,900 instructions).
 */
#ifdef SMBLAT_KERNEL_USTACK
#define ENTRY_KSTACKS_ON() (cfg.compat & COMPAT_ENTRY_KSTACK)
#else
#define ENTRY_KSTACKS_ON() 0
#endif

/*
 * Kernel stacks taken at a call's entry, for kernels whose kretprobes end
 * the stack at their trampoline (COMPAT_ENTRY_KSTACK): by thread and depth
 * (the thread id in the upper half of the key), taken by the call's
 * return into its record and dropped there. The agent sizes the map then,
 * and sweeps the stacks of threads that died inside a call.
 */
struct entry_kstack {
	__s64 size; /* bpf_get_stack()'s bytes, or its negative errno */
	__u64 ip[SMBLAT_STACK_SLOTS];
};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, 1);
	__type(key, __u64);
	__type(value, struct entry_kstack);
} entry_kstacks SEC(".maps") __weak;

/* Where the entry's stack is taken before it goes into entry_kstacks: too large for the BPF stack. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct entry_kstack);
} entry_kstack_buf SEC(".maps") __weak;

/* Function ids by probed place, for kernels without BPF cookies (COMPAT_PLACE_IDS). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, struct probe_place);
	__type(value, __u32);
} probe_ids SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 4 << 20); /* resized by the agent */
} events SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct func_cfg);
} funcs SEC(".maps") __weak;

/* Sized by the agent to the ids it may hand out. */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, SMBLAT_MAX_FUNCS);
	__type(key, __u32);
	__type(value, struct func_stats);
} stats SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct global_stats);
} totals SEC(".maps") __weak;

/*
 * A thread's own value in map: its task storage, or (COMPAT_FRAMES_HASH)
 * its entry in the hash by thread id, made from zero when create is set.
 * NULL when it has none, or no room for it (counted by the caller).
 */
static __always_inline void *thread_state_get(void *map, const void *zero, bool create)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	void *v;

	if (!(cfg.compat & COMPAT_FRAMES_HASH))
		return bpf_task_storage_get(map, bpf_get_current_task_btf(), 0,
					    create ? BPF_LOCAL_STORAGE_GET_F_CREATE : 0);
	v = bpf_map_lookup_elem(map, &tid);
	if (v || !create || !zero)
		return v;
	bpf_map_update_elem(map, &tid, zero, BPF_NOEXIST);
	return bpf_map_lookup_elem(map, &tid);
}

/* The calls in progress on this thread; created when create is set. */
static __always_inline struct frames *frames_get(bool create)
{
	__u32 key = 0;
	const void *zero = NULL;

	/* too large for the stack: the zeroes come from a map */
	if (create && (cfg.compat & COMPAT_FRAMES_HASH))
		zero = bpf_map_lookup_elem(&frames_zero, &key);
	return thread_state_get(&frames, zero, create);
}

/* The calls in progress on this task, or NULL when it has none. */
static __always_inline struct frames *task_frames(void)
{
	return frames_get(false);
}

/*
 * The thread's outermost call is over (fr no longer used): in the hash its
 * entry goes, so the table holds only threads inside a traced call.
 */
static __always_inline void frames_put(struct frames *fr)
{
	__u32 tid;

	if (!(cfg.compat & COMPAT_FRAMES_HASH) || fr->depth)
		return;
	tid = (__u32)bpf_get_current_pid_tgid();
	bpf_map_delete_elem(&frames, &tid);
}

/*
 * Where a kprobe or uprobe entry fired, without cookies: a kprobe's
 * function address from the instruction pointer (x86 leaves it one past
 * the address, behind the breakpoint or as kprobes on ftrace set it), a
 * uprobe's file and offset, which the kernel's uprobe dispatcher leaves in
 * the task's utask. False when neither tells.
 */
static __always_inline bool probe_place(struct pt_regs *regs, struct probe_place *pl)
{
	__u64 ip = PT_REGS_IP(regs);
	struct uprobe_dispatch_data *udd;
	struct task_struct *t;

	if ((__s64)ip < 0) { /* a kernel address: a kprobe */
#ifdef __TARGET_ARCH_x86
		pl->addr = ip - 1;
#else
		pl->addr = ip;
#endif
		pl->offset = 0;
		return true;
	}
	t = (struct task_struct *)bpf_get_current_task();
	udd = (struct uprobe_dispatch_data *)BPF_CORE_READ(t, utask, vaddr);
	if (!udd)
		return false;
	pl->addr = BPF_CORE_READ(udd, tu, path.dentry, d_inode, i_ino);
	pl->offset = BPF_CORE_READ(udd, tu, offset);
	return true;
}

/*
 * The function id a kprobe, uprobe or kprobe.multi program runs for: the
 * BPF cookie, or without cookies the probed place's. A kretprobe's
 * instruction pointer tells nothing of its function: it returns from the
 * thread's innermost call in progress, the id of its frame.
 */
static __always_inline __u32 probe_id(struct pt_regs *regs, bool ret)
{
	struct probe_place pl = {};
	struct frames *fr;
	__u32 *id;

	if (!(cfg.compat & COMPAT_PLACE_IDS))
		return (__u32)bpf_get_attach_cookie(regs);
	if (ret && (__s64)PT_REGS_IP(regs) < 0) {
		fr = task_frames();
		if (!fr || !fr->depth)
			return SMBLAT_NO_ID;
		return fr->f[(fr->depth - 1) & (SMBLAT_NEST - 1)].func_id;
	}
	if (!probe_place(regs, &pl))
		return SMBLAT_NO_ID;
	id = bpf_map_lookup_elem(&probe_ids, &pl);
	return id ? *id : SMBLAT_NO_ID;
}

static __always_inline bool comm_matches(void)
{
	char comm[SMBLAT_COMM_LEN];

	bpf_get_current_comm(comm, sizeof(comm));
	for (int i = 0; i < SMBLAT_COMM_LEN; i++) {
		if (comm[i] != cfg.comm[i])
			return false;
		if (!comm[i])
			break;
	}
	return true;
}

/* The pid, cgroup and comm filters of the configuration. */
static __always_inline bool task_selected(void)
{
	__u32 tgid = bpf_get_current_pid_tgid() >> 32;

	if (cfg.tgid && tgid != cfg.tgid)
		return false;
	if (cfg.cgroup_id && bpf_get_current_cgroup_id() != cfg.cgroup_id)
		return false;
	if (cfg.filter_comm && !comm_matches())
		return false;
	return true;
}

/* Selected, and not the agent itself: its own calls would feed back. */
static __always_inline bool task_wanted(void)
{
	return (bpf_get_current_pid_tgid() >> 32) != cfg.self_tgid && task_selected();
}

static __always_inline struct global_stats *global_stats(void)
{
	__u32 zero = 0;

	return bpf_map_lookup_elem(&totals, &zero);
}

static __always_inline __u64 arg_at(const __u64 *args, __u8 i)
{
	return i < SMBLAT_MAX_ARGS ? args[i] : 0;
}

/*
 * How the programs of a unit run, as each passes it to account(): whether
 * two of them that account one id can interleave on one CPU.
 *
 * ACCT_EXCLUSIVE: no. kprobe, kretprobe and kprobe.multi programs run with
 * preemption off and the kernel's per-CPU bpf_prog_active lets one of them
 * run on a CPU at a time; a fentry/fexit program is skipped (recursion
 * miss) while the same program runs on its CPU, and each function id is
 * accounted by its own fexit program only; raw and BTF tracepoint programs
 * of sys_exit run with preemption off in task context, where nothing nests.
 *
 * ACCT_SHARED: yes. uprobe, uretprobe, uprobe.multi and USDT programs run
 * with only migration off, preemptible on a preemptible kernel, and with no
 * recursion check, so another task on the CPU may account the same id in
 * between a program's read and write; the smb2 hooks are separate fentry
 * programs accounting one command id; block completions nest in interrupts.
 * Their additions are atomic. min/max are plain there too: under forced
 * preemption a value can be lost in a window of a few instructions, never
 * a count.
 */
enum acct {
	ACCT_EXCLUSIVE,
	ACCT_SHARED,
};

static __always_inline void add(__u64 *p, __u64 v, const enum acct how)
{
	if (how == ACCT_SHARED)
		__sync_fetch_and_add(p, v);
	else
		*p += v;
}

/* A finished call in one set of counters: a function's, or one of a view's. */
static __always_inline void stats_add(struct func_stats *st, __u64 lat, bool slow, const enum acct how)
{
	__u64 ep = *(volatile __u64 *)&epoch;
	__u64 b = smblat_bucket(lat);
	__u32 slot = ep & 1;

	/*
	 * One register for the index, checked and used: 6.1's verifier loses
	 * the bounds of a copy the compiler makes when st is a hash value.
	 */
	barrier_var(b);
	if (b >= SMBLAT_NBUCKETS)
		return;
	barrier_var(b);
	add(&st->hist[b], 1, how);
	add(&st->total_ns, lat, how);
	if (slow)
		add(&st->slow, 1, how);
	/*
	 * Min/max restart each interval: the agent bumps epoch and reads the
	 * other slot, which no probe touches until the epoch after next.
	 */
	if (st->mm_epoch[slot] != ep) {
		st->mm_epoch[slot] = ep;
		st->min_ns[slot] = lat;
		st->max_ns[slot] = lat;
	} else {
		if (lat < st->min_ns[slot])
			st->min_ns[slot] = lat;
		if (lat > st->max_ns[slot])
			st->max_ns[slot] = lat;
	}
}

/* A finished call of id in its per-CPU counters and histogram: one lookup. */
static __always_inline void account(__u32 id, __u64 lat, bool slow, const enum acct how)
{
	struct func_stats *st = bpf_map_lookup_elem(&stats, &id);

	if (st)
		stats_add(st, lat, slow, how);
}

/* A request of id that could not be timed (block, smb2, smbd: started elsewhere than it ends). */
static __always_inline void account_untimed(__u32 id)
{
	struct func_stats *st = bpf_map_lookup_elem(&stats, &id);

	if (st)
		__sync_fetch_and_add(&st->untimed, 1);
}

/* A slow call of id the ring buffer had no room for. */
static __always_inline void account_lost(__u32 id)
{
	struct func_stats *st = bpf_map_lookup_elem(&stats, &id);

	if (st)
		__sync_fetch_and_add(&st->lost, 1);
}

/* Width in bytes of what the value of kind is, for a convention; 0: not known. */
static __always_inline int ret_width(__u8 kind)
{
	switch (kind) {
	case RK_USER_S8:
	case RK_USER_U8:
		return 1;
	case RK_USER_S16:
	case RK_USER_U16:
		return 2;
	case RK_INT:
	case RK_USER_S32:
	case RK_USER_U32:
		return 4;
	case RK_LONG:
	case RK_PTR:
	case RK_USER_S64:
	case RK_USER_U64:
	case RK_USER_PTR:
		return 8;
	}
	return 0;
}

/* ret read as signed, as wide as kind says: negative by a convention's measure. */
static __always_inline __s64 ret_signed(__u8 kind, __u64 ret)
{
	switch (ret_width(kind)) {
	case 1:
		return (__s8)ret;
	case 2:
		return (__s16)ret;
	case 4:
		return (__s32)ret;
	case 8:
		return (__s64)ret;
	}
	/* not known: a 64-bit value, or an int's 32 bits with the upper half zero */
	return (ret >> 32) ? (__s64)ret : (__s32)ret;
}

static __always_inline bool ret_failed(const struct func_cfg *fc, __u64 ret)
{
	__u8 kind = fc->ret_kind;

	switch (fc->ret_fail) {
	case FAIL_NEVER:
		return false;
	case FAIL_NEGATIVE:
		return ret_signed(kind, ret) < 0;
	case FAIL_MINUS1:
		return ret_signed(kind, ret) == -1;
	case FAIL_NULL:
		return ret_width(kind) ? ret_signed(kind, ret) == 0 : ret == 0;
	}
	switch (kind) {
	case RK_INT:
		return (__s32)ret < 0;
	case RK_LONG:
		return smblat_is_errno((__s64)ret);
	case RK_PTR:
		return ret >= (__u64)-SMBLAT_MAX_ERRNO;
	}
	return false;
}

/*
 * A record's head for a task seen earlier (the one that started a request,
 * not the one ending it: an interrupt, a kernel thread); no flags yet.
 */
static __always_inline void rec_head_fill_task(struct rec_head *h, enum rec_kind kind, __u32 id, __u64 lat,
					       __u32 pid, __u32 tid, __u32 uid, const char *comm)
{
	h->kind = kind;
	h->func_id = id;
	h->end_ns = bpf_ktime_get_boot_ns();
	h->latency_ns = lat;
	h->pid = pid;
	h->tid = tid;
	h->uid = uid;
	h->flags = 0;
	__builtin_memcpy(h->comm, comm, sizeof(h->comm));
}

/* A record's head for the current task: what, who, when; no flags yet. */
static __always_inline void rec_head_fill(struct rec_head *h, enum rec_kind kind, __u32 id, __u64 lat)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	h->kind = kind;
	h->func_id = id;
	h->end_ns = bpf_ktime_get_boot_ns();
	h->latency_ns = lat;
	h->pid = pid_tgid >> 32;
	h->tid = (__u32)pid_tgid;
	h->uid = (__u32)bpf_get_current_uid_gid();
	h->flags = 0;
	bpf_get_current_comm(h->comm, sizeof(h->comm));
}

/* The arguments of a traced function, at a trampoline (fentry/fexit). */
static __always_inline void trampoline_args(void *ctx, __u64 *args)
{
	__u64 n = bpf_get_func_arg_cnt(ctx);

	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		if (i < n)
			bpf_get_func_arg(ctx, i, &args[i]);
}

/*
 * One program as a BTF-typed and as a raw tracepoint (btf_name, raw_name):
 * the agent attaches whichever the kernel takes.
 */
#define TRACEPOINT_PROGRAMS(tp, btf_name, raw_name, fn) \
	SEC("tp_btf/" #tp) int btf_name(__u64 *ctx)     \
	{                                               \
		return fn(ctx);                         \
	}                                               \
	SEC("raw_tp/" #tp) int raw_name(__u64 *ctx)     \
	{                                               \
		return fn(ctx);                         \
	}

static __always_inline void regs_args(struct pt_regs *regs, __u64 *args)
{
	args[0] = PT_REGS_PARM1(regs);
	args[1] = PT_REGS_PARM2(regs);
	args[2] = PT_REGS_PARM3(regs);
	args[3] = PT_REGS_PARM4(regs);
	args[4] = PT_REGS_PARM5(regs);
#ifdef __TARGET_ARCH_x86
	args[5] = regs->r9;
#endif
}

#endif
