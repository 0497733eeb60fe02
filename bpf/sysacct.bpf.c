// SPDX-License-Identifier: GPL-2.0
/*
 * Every syscall of the followed processes (procs.bpf.h), counted and timed
 * in the kernel: per-CPU counters and histograms by function id (one per
 * syscall, SYSCALL_<NAME>), failures per errno, no event per call but the
 * slow or failed ones a threshold or errors= asks for; as strace -c, without
 * stopping the process. The same sys_enter/sys_exit pair gives smbd's views
 * their syscall parts: time in syscalls, disk time, the event loop's waits,
 * the client socket's receives and sends, the last failed syscall, the
 * client's address.
 */
#include "call.bpf.h"
#include "procs.bpf.h"
#include "stacks.bpf.h"
#include "sysnr.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, SMBLAT_SYSCALL_MAX);
	__type(key, __u32);
	__type(value, struct sys_info);
} sys_info SEC(".maps");

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_HASH);
	__uint(max_entries, SMBLAT_ACCT_ERR_KEYS);
	__type(key, struct acct_err_key);
	__type(value, __u64);
} acct_errs SEC(".maps");

/*
 * A slow syscall's arguments for call_fill(), off the BPF stack: the user
 * stack walk below it shares the 512 bytes of the whole call chain, and
 * 6.1 counted 544 with the frame here (sys_exit cannot nest on a CPU).
 */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct frame);
} acct_frame SEC(".maps");

/* The syscall in progress on this thread (procs.bpf.h); created when create is set. */
static __always_inline struct sys_call *sys_call_get(bool create)
{
	struct sys_call zero = {};

	return thread_state_get(&sys_calls, &zero, create);
}

/*
 * A loop thread met for the first time, in phase cur since the start of
 * the interval or its own start, whichever came later: the phases add up
 * to the part of the interval it lived, not to the part since it was met.
 */
static __always_inline struct split_thread *split_thread_new(__u8 cur)
{
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	__u64 from = BPF_CORE_READ(t, start_time);
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct split_thread st = { .tgid = current_tgid(), .cur = cur };

	if (from < procs_ctl.split_since_ns)
		from = procs_ctl.split_since_ns;
	st.since_ns = st.first_ns = from;
	bpf_map_update_elem(&split_threads, &tid, &st, BPF_NOEXIST);
	return bpf_map_lookup_elem(&split_threads, &tid);
}

/* smbd's loop thread enters a wait, or a receive or send on the client socket. */
static __always_inline void split_enter(struct pt_regs *regs, struct sys_call *c, __u32 cls, __u64 now)
{
	struct split_thread *st = split_thread();

	if (cls == SC_WAIT) {
		/* -p, comm= and cgroup= choose the processes split, as for calls; busy till now */
		if (!st && task_selected())
			st = split_thread_new(SPLIT_OTHER);
		if (!st || st->cur == SPLIT_CTDB)
			return;
		split_parse_end(st, now);
		/* a wait for a request's disk I/O in a worker thread is that request's time */
		split_push(st, now, st->io_pending ? SPLIT_RUN_IO : SPLIT_WAIT);
		c->pushed = 1;
		return;
	}
	if (!st || st->cur == SPLIT_CTDB || !fd_inet_sock(PT_REGS_PARM1_CORE_SYSCALL(regs)))
		return;
	split_push(st, now, cls == SC_RECV ? SPLIT_RECV : SPLIT_SEND);
	st->n[cls == SC_RECV ? SPLIT_N_RECV : SPLIT_N_SEND]++;
	c->pushed = 1;
}

static __always_inline int sysacct_enter(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long nr = (long)ctx[1];
	struct sys_info *si;
	struct sys_call *c;
	__u32 key = (__u32)nr, flags;
	__u64 now;

	if (nr < 0 || nr >= SMBLAT_SYSCALL_MAX)
		return 0;
	flags = proc_followed();
	if (!(flags & PROC_ACCT) && !((flags & PROC_SMBD) && procs_ctl.split))
		return 0;
	if (syscall_compat())
		return 0;
	si = bpf_map_lookup_elem(&sys_info, &key);
	c = sys_call_get(true);
	if (!si)
		return 0;
	if (!c) {
		/* no room to time it: counted, never silently left out */
		if ((flags & PROC_ACCT) && si->acct_id)
			account_untimed(si->acct_id - 1);
		return 0;
	}
	now = bpf_ktime_get_ns();
	c->start_ns = now;
	c->nr = key;
	c->pushed = 0;
	if ((flags & PROC_SMBD) && procs_ctl.split && si->cls >= SC_WAIT && si->cls <= SC_SEND)
		split_enter(regs, c, si->cls, now);
	return 0;
}

/* Counted, timed, failures by errno; an event when slow or failed as configured. */
static __noinline void acct(void *ctx, struct pt_regs *regs, __u32 id, __u64 lat, long ret)
{
	bool failed = smblat_is_errno(ret), slow;
	struct func_cfg *fc = bpf_map_lookup_elem(&funcs, &id);
	__u32 zero = 0;
	struct rec_call *e;
	struct frame *f;

	if (!fc || !(fc->flags & FF_ENABLED))
		return;
	slow = lat >= fc->threshold_ns;
	account(id, lat, slow, ACCT_EXCLUSIVE);
	if (failed) {
		struct acct_err_key k = { .id = id, .err = (__u32)-ret };
		__u64 one = 1, *n = bpf_map_lookup_elem(&acct_errs, &k);

		if (n)
			*n += 1;
		else
			bpf_map_update_elem(&acct_errs, &k, &one, BPF_NOEXIST);
	}
	if (fc->flags & FF_STACKS_USER)
		stacks_count(ctx, id, lat, FF_STACKS_USER);
	if (!slow && !((fc->flags & FF_ERRORS) && failed))
		return;
	f = bpf_map_lookup_elem(&acct_frame, &zero);
	e = f ? bpf_ringbuf_reserve(&events, sizeof(*e), 0) : NULL;
	if (!e) {
		account_lost(id);
		return;
	}
	__builtin_memset(f, 0, sizeof(*f));
	f->args[0] = PT_REGS_PARM1_CORE_SYSCALL(regs);
	f->args[1] = PT_REGS_PARM2_CORE_SYSCALL(regs);
	f->args[2] = PT_REGS_PARM3_CORE_SYSCALL(regs);
	f->args[3] = PT_REGS_PARM4_CORE_SYSCALL(regs);
	f->args[4] = PT_REGS_PARM5_CORE_SYSCALL(regs);
	call_fill(ctx, e, REC_CALL, fc, f, id, lat, (__u64)ret);
	bpf_ringbuf_submit(e, 0);
}

/* What an smbd's syscalls tell: its last failure, its client, and the split's parts. */
static __noinline void smbd_sys_exit(struct pt_regs *regs, struct sys_call *c, __u32 nr, __u32 cls, long ret)
{
	__u32 tgid = current_tgid();
	struct smbd_proc *p = bpf_map_lookup_elem(&smbd_procs, &tgid);
	struct split_thread *st;
	__u64 lat, now = bpf_ktime_get_ns();

	if (!p)
		return;
	/* a string smbd never touched is not paged in when it is handed over: again */
	if (p->reason_ptr &&
	    bpf_probe_read_user_str(p->reason, sizeof(p->reason), (void *)p->reason_ptr) > 0) {
		p->reason_ptr = 0;
		p->strs_unread &= ~SMBD_STR_REASON;
	}
	if (p->location_ptr &&
	    bpf_probe_read_user_str(p->location, sizeof(p->location), (void *)p->location_ptr) > 0) {
		p->location_ptr = 0;
		p->strs_unread &= ~SMBD_STR_LOCATION;
	}
	if (smblat_is_errno(ret)) {
		p->last_err_nr = nr + 1;
		p->last_err = (__s32)-ret;
		p->last_err_ns = now;
	}
	if (cls == SC_PEER && ret == 0 && !p->peer_len) {
		__u16 family = 0;

		bpf_probe_read_user(p->peer, sizeof(p->peer), (void *)PT_REGS_PARM2_CORE_SYSCALL(regs));
		__builtin_memcpy(&family, p->peer, sizeof(family));
		p->peer_len = family == 2 || family == 10 ? sizeof(p->peer) : 0;
	}
	/* a loop thread that waited since before the split met it: waiting till now */
	if (procs_ctl.split && cls == SC_WAIT && (!c || !c->start_ns) && !split_thread() && task_selected()) {
		st = split_thread_new(SPLIT_WAIT);
		if (st)
			split_pop(st, now);
	}
	if (!procs_ctl.split || !c || !c->start_ns)
		return;
	lat = now - c->start_ns;
	if (cls != SC_WAIT && cls != SC_IDLE) {
		/* waiting is a phase of its own, idle workers are not busy */
		__sync_fetch_and_add(&p->syscall_ns, lat);
		__sync_fetch_and_add(&p->syscalls, 1);
	}
	if (cls == SC_READ) {
		__sync_fetch_and_add(&p->disk_read_ns, lat);
		__sync_fetch_and_add(&p->disk_reads, 1);
	} else if (cls == SC_WRITE) {
		__sync_fetch_and_add(&p->disk_write_ns, lat);
		__sync_fetch_and_add(&p->disk_writes, 1);
	}
	if (!c->pushed)
		return;
	st = split_thread();
	if (!st)
		return;
	split_pop(st, now);
	/* data from the client, at the loop's level (not a read inside a request) */
	if (cls == SC_RECV && ret > 0 && st->cur == SPLIT_OTHER)
		split_switch(st, now, SPLIT_PARSE);
}

static __always_inline int sysacct_exit(__u64 *ctx)
{
	struct pt_regs *regs = (struct pt_regs *)ctx[0];
	long ret = (long)ctx[1], nr;
	struct sys_info *si = NULL;
	struct sys_call *c;
	__u32 flags = proc_followed(), key;
	__u64 now;

	if (!flags || syscall_compat())
		return 0;
	c = sys_call_get(false);
	nr = c && c->start_ns ? c->nr : syscall_exit_nr(regs);
	if (nr < 0 || nr >= SMBLAT_SYSCALL_MAX)
		return 0;
	key = (__u32)nr;
	si = bpf_map_lookup_elem(&sys_info, &key);
	if (!si)
		return 0;
	now = bpf_ktime_get_ns();
	if (flags & PROC_SMBD)
		smbd_sys_exit(regs, c, key, si->cls, ret);
	if ((flags & PROC_ACCT) && c && c->start_ns && si->acct_id)
		acct(ctx, regs, si->acct_id - 1, now - c->start_ns, ret);
	if (c) {
		c->start_ns = 0;
		c->pushed = 0;
	}
	return 0;
}

TRACEPOINT_PROGRAMS(sys_enter, sysacct_enter_btf, sysacct_enter_raw, sysacct_enter)
TRACEPOINT_PROGRAMS(sys_exit, sysacct_exit_btf, sysacct_exit_raw, sysacct_exit)
