/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The processes the kernel side follows (smbd.h): every smbd, and those
 * whose syscalls are accounted, told by exec and fork (tasks.bpf.c) and by
 * the agent for those that ran before it. Shared by the tasks, sysacct and
 * smbd units.
 */
#ifndef SMBLAT_PROCS_BPF_H
#define SMBLAT_PROCS_BPF_H

#include "core.bpf.h"

extern struct procs_ctl procs_ctl;

/* tgid -> enum proc_flags */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, SMBLAT_PROCS_MAX);
	__type(key, __u32);
	__type(value, __u32);
} procs SEC(".maps") __weak;

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SMBLAT_PROCS_MAX);
	__type(key, __u32);
	__type(value, struct smbd_proc);
} smbd_procs SEC(".maps") __weak;

/* The syscall in progress on a task. */
struct sys_call {
	__u64 start_ns;
	__u32 nr;
	__u32 pushed; /* a split phase was entered for it */
};

/*
 * Task storage; where the kernel has none or thread_state = hash asks
 * (COMPAT_FRAMES_HASH), the agent makes it a preallocated hash by thread id,
 * whose entry a thread's exit removes (exit never returns to sys_exit).
 */
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct sys_call);
} sys_calls SEC(".maps") __weak;

/* tid -> the time split of an smbd loop thread */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__uint(max_entries, SMBLAT_PROCS_MAX);
	__type(key, __u32);
	__type(value, struct split_thread);
} split_threads SEC(".maps") __weak;

/* The cgroup whose tasks' syscalls are accounted (select = cgroup:PATH). */
struct {
	__uint(type, BPF_MAP_TYPE_CGROUP_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, __u32);
} acct_cgroups SEC(".maps") __weak;

static __always_inline __u32 current_tgid(void)
{
	return bpf_get_current_pid_tgid() >> 32;
}

#define S_IFMT 00170000
#define S_IFSOCK 0140000

/* The socket of file f if it is TCP/IP (the client's, not messaging). */
static __always_inline struct sock *file_inet_sock(struct file *f)
{
	struct socket *sock;
	struct sock *sk;
	__u16 family;

	if ((BPF_CORE_READ(f, f_inode, i_mode) & S_IFMT) != S_IFSOCK)
		return NULL;
	sock = BPF_CORE_READ(f, private_data);
	sk = BPF_CORE_READ(sock, sk);
	family = BPF_CORE_READ(sk, __sk_common.skc_family);
	return family == 2 /* AF_INET */ || family == 10 /* AF_INET6 */ ? sk : NULL;
}

/* The socket behind fd of the current task if it is TCP/IP. */
static __always_inline struct sock *fd_inet_sock(long fd)
{
	/* not bpf_get_current_task_btf(): 5.10 has no such helper */
	struct task_struct *t = (struct task_struct *)bpf_get_current_task();
	struct file **fds, *f = NULL;

	if (fd < 0 || fd >= BPF_CORE_READ(t, files, fdt, max_fds))
		return NULL;
	fds = BPF_CORE_READ(t, files, fdt, fd);
	if (bpf_probe_read_kernel(&f, sizeof(f), &fds[fd]) < 0 || !f)
		return NULL;
	return file_inet_sock(f);
}

/* sk's peer into peer[], laid out as getpeername(2) fills a sockaddr_in/_in6. */
static __always_inline __u32 sock_peer(struct sock *sk, __u8 peer[32])
{
	__u16 family = BPF_CORE_READ(sk, __sk_common.skc_family);
	__be16 port = BPF_CORE_READ(sk, __sk_common.skc_dport);

	__builtin_memset(peer, 0, 32);
	__builtin_memcpy(peer, &family, 2);
	__builtin_memcpy(peer + 2, &port, 2);
	if (family == 2) {
		__be32 a4 = BPF_CORE_READ(sk, __sk_common.skc_daddr);

		__builtin_memcpy(peer + 4, &a4, sizeof(a4));
	} else {
		struct in6_addr a6 = {};

		BPF_CORE_READ_INTO(&a6, sk, __sk_common.skc_v6_daddr);
		__builtin_memcpy(peer + 8, &a6, sizeof(a6));
	}
	return 32;
}

/* Why the current process is followed (enum proc_flags), 0 when it is not. */
static __always_inline __u32 proc_followed(void)
{
	__u32 tgid = current_tgid(), *f, flags;

	if (tgid == cfg.self_tgid)
		return 0;
	f = bpf_map_lookup_elem(&procs, &tgid);
	flags = f ? *f : 0;
	if (procs_ctl.acct_cgroup && bpf_current_task_under_cgroup(&acct_cgroups, 0) == 1)
		flags |= PROC_ACCT;
	return flags;
}

static __always_inline struct split_thread *split_thread(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	return bpf_map_lookup_elem(&split_threads, &tid);
}

/* The time since since_ns goes to the phase in force; then to is. */
static __always_inline void split_switch(struct split_thread *st, __u64 now, __u8 to)
{
	__u8 cur = st->cur;

	if (cur < _SPLIT_MAX)
		st->acc_ns[cur] += now - st->since_ns;
	st->since_ns = now;
	st->cur = to;
}

static __always_inline void split_push(struct split_thread *st, __u64 now, __u8 to)
{
	__u8 d = st->depth;

	if (d < SPLIT_DEPTH) {
		st->stack[d] = st->cur;
		st->depth = d + 1;
	}
	split_switch(st, now, to);
}

static __always_inline void split_pop(struct split_thread *st, __u64 now)
{
	__u8 d = st->depth, to = SPLIT_OTHER;

	if (d > 0 && d <= SPLIT_DEPTH) {
		d--;
		to = st->stack[d];
		st->depth = d;
	}
	split_switch(st, now, to);
}

/* A parse ends with whatever comes next: the dispatch, or the next wait. */
static __always_inline void split_parse_end(struct split_thread *st, __u64 now)
{
	if (st->cur == SPLIT_PARSE)
		split_switch(st, now, SPLIT_OTHER);
}

#endif
