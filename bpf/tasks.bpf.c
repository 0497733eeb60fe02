// SPDX-License-Identifier: GPL-2.0
/*
 * Following processes (procs.bpf.h): an exec decides anew whether a process
 * is an smbd and whether its syscalls are accounted, a fork hands the
 * parent's flags to the child, an exit forgets it; the exit of an smbd is
 * an entry of its own (SMBD_EXIT) with what the smbd programs gathered.
 */
#include "call.bpf.h"
#include "procs.bpf.h"

struct procs_ctl procs_ctl = {};

/* Never written: what a new smbd_proc starts from (too large for the stack). */
const volatile struct smbd_proc smbd_proc_zero = {};

static __always_inline bool comm_is(const char *comm, const char *want, int n)
{
	for (int i = 0; i < n; i++) {
		if (comm[i] != want[i])
			return false;
		if (!want[i])
			return true;
	}
	return true;
}

/*
 * Whether task runs the smbd executable followed: the same file, not the
 * same name (Samba 4.22 renames each connection's process smbd[CLIENT],
 * and an smbd of another installation is named smbd too).
 */
static __always_inline bool task_runs_smbd(struct task_struct *task)
{
	return procs_ctl.smbd_inode &&
	       (__u64)BPF_CORE_READ(task, mm, exe_file, f_inode) == procs_ctl.smbd_inode;
}

static __always_inline void smbd_proc_new(__u32 tgid, __u32 ppid)
{
	struct smbd_proc *p;

	bpf_map_update_elem(&smbd_procs, &tgid, (const void *)&smbd_proc_zero, BPF_ANY);
	p = bpf_map_lookup_elem(&smbd_procs, &tgid);
	if (p) {
		p->start_ns = bpf_ktime_get_ns();
		p->ppid = ppid;
	}
}

static __always_inline void proc_forget(__u32 tgid)
{
	bpf_map_delete_elem(&procs, &tgid);
	bpf_map_delete_elem(&smbd_procs, &tgid);
}

/* What task, running comm, is followed for; was: what it was followed for before. */
static __always_inline __u32 proc_flags_for(struct task_struct *task, const char *comm, __u32 was)
{
	__u32 now = 0;

	if (was & PROC_ACCT_KEEP)
		now |= PROC_ACCT | PROC_ACCT_KEEP;
	if (procs_ctl.smbd && task_runs_smbd(task)) {
		now |= PROC_SMBD;
		if (procs_ctl.acct_smbd)
			now |= PROC_ACCT;
	}
	if (procs_ctl.acct_comm[0] && comm_is(comm, procs_ctl.acct_comm, SMBLAT_COMM_LEN))
		now |= PROC_ACCT;
	return now;
}

/* (task, old_pid, bprm): current is the task, its comm the new program's. */
static __always_inline int tasks_exec(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];
	__u32 tgid = current_tgid(), *f, was, now;
	char comm[SMBLAT_COMM_LEN];

	if (tgid == cfg.self_tgid)
		return 0;
	f = bpf_map_lookup_elem(&procs, &tgid);
	was = f ? *f : 0;
	bpf_get_current_comm(comm, sizeof(comm));
	now = proc_flags_for(task, comm, was);
	if (!now) {
		if (was)
			proc_forget(tgid);
		return 0;
	}
	bpf_map_update_elem(&procs, &tgid, &now, BPF_ANY);
	if ((now & PROC_SMBD) && !(was & PROC_SMBD))
		smbd_proc_new(tgid, BPF_CORE_READ(task, real_parent, tgid));
	else if (!(now & PROC_SMBD))
		bpf_map_delete_elem(&smbd_procs, &tgid);
	return 0;
}

/* (parent, child): a new process (not a thread) inherits what its parent was followed for. */
static __always_inline int tasks_fork(__u64 *ctx)
{
	struct task_struct *parent = (struct task_struct *)ctx[0];
	struct task_struct *child = (struct task_struct *)ctx[1];
	__u32 ptgid = BPF_CORE_READ(parent, tgid), pid = BPF_CORE_READ(child, pid), *f, flags;

	if (pid != BPF_CORE_READ(child, tgid))
		return 0;
	f = bpf_map_lookup_elem(&procs, &ptgid);
	if (!f)
		return 0;
	flags = *f;
	bpf_map_update_elem(&procs, &pid, &flags, BPF_ANY);
	if (flags & PROC_SMBD)
		smbd_proc_new(pid, ptgid);
	return 0;
}

/*
 * SMBD_EXIT: the process's lifetime as latency, its exit code as RETVAL,
 * and what smbd said (reason, location, NT status), its client and its
 * last failed syscall in fields of the event the smbd layer decodes.
 */
static __always_inline void smbd_exit_event(void *ctx, struct task_struct *task, struct smbd_proc *p)
{
	__u32 id = procs_ctl.exit_id;
	struct func_cfg *fc;
	struct rec_smbd_exit *e;
	__u64 now = bpf_ktime_get_ns(), lat;

	if (!id)
		return;
	id--;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return;
	lat = now - p->start_ns;
	account(id, lat, true, ACCT_SHARED);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		return;
	}
	rec_head_fill(&e->h, REC_SMBD_EXIT, id, lat);
	e->exit_code = BPF_CORE_READ(task, exit_code);
	e->status = p->disc_status;
	e->ppid = p->ppid;
	e->exit_how = p->exit_how;
	e->unread = p->strs_unread;
	e->last_err_nr = p->last_err_nr;
	e->last_err = p->last_err;
	e->last_err_ago_ns = p->last_err_nr ? now - p->last_err_ns : 0;
	__builtin_memcpy(e->peer, p->peer, sizeof(e->peer));
	__builtin_memcpy(e->reason, p->reason, SMBLAT_REASON_LEN);
	__builtin_memcpy(e->location, p->location, SMBLAT_REASON_LEN);
	e->st.kstack_sz = 0;
	if (p->ustack_sz > 0) {
		__builtin_memcpy(e->st.ustack, p->ustack, sizeof(p->ustack));
		e->st.ustack_sz = p->ustack_sz;
		e->st.uflags = p->uflags;
	} else {
		/* killed, or exited without exit_server: where it was */
		ustack_fill(ctx, &e->st);
	}
	bpf_ringbuf_submit(e, 0);
}

/* (task): each thread's exit; the process's is its leader's. */
static __always_inline int tasks_exit(__u64 *ctx)
{
	struct task_struct *task = (struct task_struct *)ctx[0];
	__u32 pid = BPF_CORE_READ(task, pid), tgid = BPF_CORE_READ(task, tgid), *f;
	struct split_thread *st = bpf_map_lookup_elem(&split_threads, &pid);
	__u64 now = bpf_ktime_get_ns();
	struct smbd_proc *p;

	/* a loop thread's last phases wait for the agent's next time split read */
	if (st && procs_ctl.split) {
		split_switch(st, now, st->cur);
		st->dead_ns = now;
	} else if (st) {
		bpf_map_delete_elem(&split_threads, &pid);
	}
	if (cfg.compat & COMPAT_FRAMES_HASH)
		bpf_map_delete_elem(&sys_calls, &pid);
	if (pid != tgid)
		return 0;
	f = bpf_map_lookup_elem(&procs, &tgid);
	if (!f)
		return 0;
	p = *f & PROC_SMBD ? bpf_map_lookup_elem(&smbd_procs, &tgid) : NULL;
	/* the exiting task is current: -p, comm= and cgroup= choose as for calls */
	if (p && task_selected())
		smbd_exit_event(ctx, task, p);
	if (p && procs_ctl.split) {
		p->dead_ns = now;
		bpf_map_delete_elem(&procs, &tgid);
	} else {
		proc_forget(tgid);
	}
	return 0;
}

TRACEPOINT_PROGRAMS(sched_process_exec, tasks_exec_btf, tasks_exec_raw, tasks_exec)
TRACEPOINT_PROGRAMS(sched_process_fork, tasks_fork_btf, tasks_fork_raw, tasks_fork)
TRACEPOINT_PROGRAMS(sched_process_exit, tasks_exit_btf, tasks_exit_raw, tasks_exit)

/*
 * The processes that ran before the agent, told once after exec, fork and
 * exit are attached: one those met already keeps what they said. Each
 * process's comm and executable are read here, in the kernel, not from
 * /proc/PID of every process, which a confined agent may not read. Each
 * process followed for what the seeding asks (seed_count) writes its
 * tgid, so the agent counts them.
 */
SEC("iter/task")
int tasks_seed(struct bpf_iter__task *ctx)
{
	struct task_struct *task = ctx->task;
	char comm[SMBLAT_COMM_LEN];
	__u32 tgid, *f, old, now;
	struct smbd_proc *p;

	if (!task)
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	if (BPF_CORE_READ(task, pid) != tgid || tgid == cfg.self_tgid)
		return 0;
	BPF_CORE_READ_STR_INTO(&comm, task, comm);
	f = bpf_map_lookup_elem(&procs, &tgid);
	old = f ? *f : 0;
	now = proc_flags_for(task, comm, 0) | old;
	if (procs_ctl.seed_pid && tgid == procs_ctl.seed_pid)
		now |= PROC_ACCT | PROC_ACCT_KEEP;
	if (!now || bpf_map_update_elem(&procs, &tgid, &now, BPF_ANY) < 0)
		return 0;
	if ((now & PROC_SMBD) &&
	    bpf_map_update_elem(&smbd_procs, &tgid, (const void *)&smbd_proc_zero, BPF_NOEXIST) == 0 &&
	    (p = bpf_map_lookup_elem(&smbd_procs, &tgid))) {
		p->start_ns = BPF_CORE_READ(task, start_time);
		p->ppid = BPF_CORE_READ(task, real_parent, tgid);
	}
	if (now & procs_ctl.seed_count)
		bpf_seq_write(ctx->meta->seq, &tgid, sizeof(tgid));
	return 0;
}

/*
 * The client of an smbd connection older than the agent, whose accept and
 * getpeername came before the probes: its connected TCP socket (a
 * listening one has no peer port).
 */
SEC("iter/task_file")
int tasks_seed_peer(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;
	struct smbd_proc *p;
	struct sock *sk;
	__u32 tgid;

	if (!task || !file)
		return 0;
	tgid = BPF_CORE_READ(task, tgid);
	p = bpf_map_lookup_elem(&smbd_procs, &tgid);
	if (!p || p->peer_len)
		return 0;
	sk = file_inet_sock(file);
	if (sk && BPF_CORE_READ(sk, __sk_common.skc_dport))
		p->peer_len = sock_peer(sk, p->peer);
	return 0;
}

/*
 * The kernel's inode of the agent's own descriptor exe_fd (smbd's
 * executable): what task_runs_smbd() compares a process's executable with.
 */
SEC("iter/task_file")
int tasks_exe_inode(struct bpf_iter__task_file *ctx)
{
	struct task_struct *task = ctx->task;
	struct file *file = ctx->file;

	if (task && file && BPF_CORE_READ(task, tgid) == cfg.self_tgid && ctx->fd == procs_ctl.exe_fd)
		procs_ctl.exe_inode = (__u64)BPF_CORE_READ(file, f_inode);
	return 0;
}
