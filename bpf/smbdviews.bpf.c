// SPDX-License-Identifier: GPL-2.0
/*
 * smbd layer views on uprobes of what Debian's Samba exports (smblat(8),
 * SMBD VIEWS): the time split's dispatch, tevent handler and ctdbd marks;
 * what smbd says when it drops a client (the disconnect status, the
 * termination's reason and place, exit_server's explanation and stack);
 * oplock and lease breaks from sent to answered. Each program also has a
 * uprobe.multi twin (umulti_), as in func.bpf.c.
 */
#include "call.bpf.h"
#include "procs.bpf.h"

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 4096);
	__type(key, struct smbd_break_key);
	__type(value, struct smbd_break);
} smbd_breaks SEC(".maps");

static __always_inline struct smbd_proc *smbd_proc(void)
{
	__u32 tgid = current_tgid();

	return bpf_map_lookup_elem(&smbd_procs, &tgid);
}

/* ---- time split ---- */

/* smbd_smb2_request_dispatch(req): what was received is parsed, the request runs. */
static __always_inline int split_dispatch(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();
	__u64 now;

	if (!st)
		return 0;
	now = bpf_ktime_get_ns();
	split_parse_end(st, now);
	split_push(st, now, SPLIT_RUN);
	st->n[SPLIT_N_REQUESTS]++;
	return 0;
}

static __always_inline int split_dispatch_ret(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();

	if (st && st->cur == SPLIT_RUN)
		split_pop(st, bpf_ktime_get_ns());
	return 0;
}

/* tevent_common_invoke_{fd,timer,immediate,signal}_handler: the cookie says which. */
static __always_inline int split_event(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();
	/* without BPF cookies (before 5.15) the kind is not known: not counted */
	__u64 kind = (cfg.compat & COMPAT_PLACE_IDS) ? _SPLIT_N_MAX : bpf_get_attach_cookie(regs);

	if (st && kind <= SPLIT_N_SIGNAL)
		st->n[kind]++;
	return 0;
}

/* The synchronous ctdbd calls: the outermost one is the wait for ctdb. */
static __always_inline int split_ctdb(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();

	if (!st)
		return 0;
	st->n[SPLIT_N_CTDB]++;
	if (st->cur == SPLIT_CTDB)
		st->ctdb_nest++;
	else
		split_push(st, bpf_ktime_get_ns(), SPLIT_CTDB);
	return 0;
}

static __always_inline int split_ctdb_ret(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();

	if (!st)
		return 0;
	if (st->ctdb_nest)
		st->ctdb_nest--;
	else if (st->cur == SPLIT_CTDB)
		split_pop(st, bpf_ktime_get_ns());
	return 0;
}

/*
 * smb_vfs_call_{pread,pwrite,fsync,getxattrat}_send and their _recv: the
 * loop thread hands disk I/O to a worker thread and, in a later event,
 * takes its result. Both run on the loop thread, so the count is its own.
 */
static __always_inline int split_io_send(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();

	if (st && st->io_pending < 0xffff)
		st->io_pending++;
	return 0;
}

static __always_inline int split_io_recv(struct pt_regs *regs)
{
	struct split_thread *st = split_thread();

	if (st && st->io_pending)
		st->io_pending--;
	return 0;
}

/* ---- why smbd dropped a client ---- */

/* smbXsrv_connection_disconnect_transport(xconn, NTSTATUS): the first status is the cause. */
static __always_inline int exit_disconnect(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();
	__u32 status = (__u32)PT_REGS_PARM2(regs);

	if (p && !p->disc_status && status)
		p->disc_status = status;
	return 0;
}

/* smbd_add_connection(client, sock_fd, now, &xconn): the client, from the kernel's socket */
static __always_inline int exit_conn(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();
	struct sock *sk;

	if (!p || p->peer_len)
		return 0;
	sk = fd_inet_sock((long)(int)PT_REGS_PARM2(regs));
	if (sk)
		p->peer_len = sock_peer(sk, p->peer);
	return 0;
}

/*
 * The strings smbd hands over on its way out: a reason (often nt_errstr()'s,
 * in libsamba-errors' .rodata) and a source location (__location__, in the
 * library's .rodata), which smbd itself never reads: their page is often
 * not in memory yet. A non-sleepable program cannot fault it in
 * (bpf_probe_read_user_str fails): it notes the string as unread and
 * sysacct.bpf.c tries again at the process's later syscalls; the sleepable
 * twins (_sleep, Linux 6.0) copy it with bpf_copy_from_user, which can.
 */
static __always_inline void str_read(struct smbd_proc *p, char *dst, __u64 ptr, __u64 *retry, __u32 bit)
{
	if (bpf_probe_read_user_str(dst, SMBLAT_REASON_LEN, (void *)ptr) > 0) {
		*retry = 0;
		p->strs_unread &= ~bit;
	} else {
		dst[0] = 0;
		*retry = ptr;
		p->strs_unread |= bit;
	}
}

/*
 * The same in a sleepable program: the string's first page, and the next
 * one only when the string goes on there (a fixed-size copy past its end
 * could run into an unmapped page and fail as a whole).
 */
static __always_inline void str_copy(struct smbd_proc *p, char *dst, __u64 ptr, __u32 bit)
{
	__u32 first = 4096 - (__u32)(ptr & 4095);
	char next[SMBLAT_REASON_LEN];
	bool nul = false;

	if (first >= SMBLAT_REASON_LEN - 1) {
		if (bpf_copy_from_user(dst, SMBLAT_REASON_LEN - 1, (void *)ptr) < 0)
			goto unread;
	} else {
		first &= SMBLAT_REASON_LEN - 1;
		if (!first || bpf_copy_from_user(dst, first, (void *)ptr) < 0)
			goto unread;
		for (__u32 i = 0; i < SMBLAT_REASON_LEN - 1 && i < first; i++)
			if (!dst[i]) {
				nul = true;
				break;
			}
		if (!nul) {
			if (bpf_copy_from_user(next, sizeof(next), (void *)(ptr + first)) < 0)
				goto unread;
			for (__u32 i = 0; i < SMBLAT_REASON_LEN - 1; i++) {
				__u32 j = i + first;

				if (j >= SMBLAT_REASON_LEN - 1)
					break;
				dst[j] = next[i];
			}
		}
	}
	dst[SMBLAT_REASON_LEN - 1] = 0;
	p->strs_unread &= ~bit;
	return;
unread:
	dst[0] = 0;
	p->strs_unread |= bit;
}

/* smbd_server_connection_terminate_ex(xconn, reason, location) */
static __always_inline int exit_terminate(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();

	if (!p || p->location[0] || procs_ctl.str_sleep)
		return 0;
	str_read(p, p->location, PT_REGS_PARM3(regs), &p->location_ptr, SMBD_STR_LOCATION);
	if (!p->reason[0] && PT_REGS_PARM2(regs))
		str_read(p, p->reason, PT_REGS_PARM2(regs), &p->reason_ptr, SMBD_STR_REASON);
	return 0;
}

static __always_inline int exit_terminate_sleep(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();

	if (!p || p->location[0])
		return 0;
	str_copy(p, p->location, PT_REGS_PARM3(regs), SMBD_STR_LOCATION);
	if (!p->reason[0] && PT_REGS_PARM2(regs))
		str_copy(p, p->reason, PT_REGS_PARM2(regs), SMBD_STR_REASON);
	return 0;
}

/* smbd_exit_server(explanation), _cleanly (cookie 1, 2): the last word, and where from. */
static __always_inline int exit_server(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();

	if (!p)
		return 0;
	if (PT_REGS_PARM1(regs) && !procs_ctl.str_sleep)
		str_read(p, p->reason, PT_REGS_PARM1(regs), &p->reason_ptr, SMBD_STR_REASON);
	/* without BPF cookies (before 5.15): neither way told */
	p->exit_how = (cfg.compat & COMPAT_PLACE_IDS) ? 0 : (__u32)bpf_get_attach_cookie(regs);
	ustack_keep(regs, p->ustack, &p->ustack_sz, &p->uflags);
	return 0;
}

static __always_inline int exit_server_sleep(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();

	if (p && PT_REGS_PARM1(regs))
		str_copy(p, p->reason, PT_REGS_PARM1(regs), SMBD_STR_REASON);
	return 0;
}

/* ---- oplock and lease breaks ---- */

static __always_inline void break_event(struct pt_regs *regs, __u32 id1, const struct smbd_break *b,
					const struct smbd_break_key *k, __u32 to)
{
	__u64 lat = bpf_ktime_get_ns() - b->start_ns;
	__u32 id = id1 - 1;
	struct func_cfg *fc;
	struct rec_smbd_break *e;

	if (!id1)
		return;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return;
	account(id, lat, lat >= fc->threshold_ns, ACCT_SHARED);
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		return;
	}
	rec_head_fill(&e->h, REC_SMBD_BREAK, id, lat);
	e->from = b->from;
	e->to = to;
	e->key[0] = k->oplock ? 0 : k->key[0];
	e->key[1] = k->oplock ? 0 : k->key[1];
	e->oplock = k->oplock;
	bpf_ringbuf_submit(e, 0);
}

/*
 * smbd_smb2_request_process_break(req), _close(req): the client answers a
 * break, or may (a client may close the file instead). An oplock break's
 * removal counts as its answer only after one of these (break_oplock_done).
 */
static __always_inline int break_answer(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();

	/* the loop thread alone runs requests: no other writer */
	if (p)
		p->answers++;
	return 0;
}

/* smbd_smb2_send_oplock_break(client, op, level): answered in order, per process. */
static __always_inline int break_oplock(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();
	struct smbd_break_key k = { .tgid = current_tgid(), .oplock = 1 };
	struct smbd_break b = { .start_ns = bpf_ktime_get_ns(), .to = (__u8)PT_REGS_PARM3(regs) };

	if (!p || !task_selected())
		return 0;
	k.key[0] = p->breaks_sent++;
	b.from = 0xff; /* the level before is the client's to know */
	b.answers = p->answers;
	bpf_map_update_elem(&smbd_breaks, &k, &b, BPF_ANY);
	return 0;
}

/*
 * remove_oplock(fsp), downgrade_oplock(fsp): the oldest break sent is
 * answered, when a BREAK or CLOSE of the client came since it was sent.
 * Without one, smbd ends a break itself: at once, for a level II oplock
 * broken to none, which SMB2 clients do not acknowledge (the newest break,
 * sent to none just before), or when it gives up waiting (the oldest).
 * Neither was answered: no entry.
 */
static __always_inline int break_oplock_done(struct pt_regs *regs)
{
	struct smbd_proc *p = smbd_proc();
	struct smbd_break_key k = { .tgid = current_tgid(), .oplock = 1 };
	struct smbd_break *b;

	if (!p || p->breaks_done >= p->breaks_sent)
		return 0;
	k.key[0] = p->breaks_sent - 1;
	b = bpf_map_lookup_elem(&smbd_breaks, &k);
	if (b && b->to == 0 /* none */ && b->answers == p->answers) {
		bpf_map_delete_elem(&smbd_breaks, &k);
		p->breaks_sent--;
		return 0;
	}
	k.key[0] = p->breaks_done++;
	b = bpf_map_lookup_elem(&smbd_breaks, &k);
	if (!b)
		return 0;
	if (b->answers != p->answers)
		break_event(regs, procs_ctl.oplock_id, b, &k, b->to);
	bpf_map_delete_elem(&smbd_breaks, &k);
	return 0;
}

#define SMB2_LEASE_FLAG_ACK_REQUIRED 0x01u

/* smbd_smb2_send_lease_break(client, epoch, flags, key, current, new) */
static __always_inline int break_lease(struct pt_regs *regs)
{
	struct smbd_break_key k = { .tgid = current_tgid() };
	struct smbd_break b = { .start_ns = bpf_ktime_get_ns(), .from = (__u32)PT_REGS_PARM5(regs) };

	/* a break the client is not to acknowledge (from R to none) is never answered */
	if (!smbd_proc() || !task_selected() || !(PT_REGS_PARM3(regs) & SMB2_LEASE_FLAG_ACK_REQUIRED))
		return 0;
#ifdef __TARGET_ARCH_x86
	b.to = (__u32)regs->r9;
#endif
	bpf_probe_read_user(k.key, sizeof(k.key), (void *)PT_REGS_PARM4(regs));
	bpf_map_update_elem(&smbd_breaks, &k, &b, BPF_ANY);
	return 0;
}

/* downgrade_lease(client, num_file_ids, ids, key, lease_state): the client's answer. */
static __always_inline int break_lease_done(struct pt_regs *regs)
{
	struct smbd_break_key k = { .tgid = current_tgid() };
	struct smbd_break *b;

	bpf_probe_read_user(k.key, sizeof(k.key), (void *)PT_REGS_PARM4(regs));
	b = bpf_map_lookup_elem(&smbd_breaks, &k);
	if (!b)
		return 0;
	break_event(regs, procs_ctl.lease_id, b, &k, (__u32)PT_REGS_PARM5(regs));
	bpf_map_delete_elem(&smbd_breaks, &k);
	return 0;
}

/*
 * A uprobe program (of section sec: uprobe, or the sleepable uprobe.s) and
 * its uprobe.multi twin, named whole as the agent's program tables name them.
 */
#define SMBD_UPROBE_IN(sec, single, multi, fn)           \
	SEC(sec) int single(struct pt_regs *r)           \
	{                                                \
		return fn(r);                            \
	}                                                \
	SEC("kprobe.multi") int multi(struct pt_regs *r) \
	{                                                \
		return fn(r);                            \
	}
#define SMBD_UPROBE(single, multi, fn) SMBD_UPROBE_IN("uprobe", single, multi, fn)

SMBD_UPROBE(smbd_split_dispatch, umulti_smbd_split_dispatch, split_dispatch)
SMBD_UPROBE(smbd_split_dispatch_ret, umulti_smbd_split_dispatch_ret, split_dispatch_ret)
SMBD_UPROBE(smbd_split_event, umulti_smbd_split_event, split_event)
SMBD_UPROBE(smbd_split_ctdb, umulti_smbd_split_ctdb, split_ctdb)
SMBD_UPROBE(smbd_split_io_send, umulti_smbd_split_io_send, split_io_send)
SMBD_UPROBE(smbd_split_io_recv, umulti_smbd_split_io_recv, split_io_recv)
SMBD_UPROBE(smbd_split_ctdb_ret, umulti_smbd_split_ctdb_ret, split_ctdb_ret)
SMBD_UPROBE(smbd_exit_conn, umulti_smbd_exit_conn, exit_conn)
SMBD_UPROBE(smbd_exit_disconnect, umulti_smbd_exit_disconnect, exit_disconnect)
SMBD_UPROBE(smbd_exit_terminate, umulti_smbd_exit_terminate, exit_terminate)
SMBD_UPROBE(smbd_exit_server, umulti_smbd_exit_server, exit_server)
SMBD_UPROBE(smbd_break_answer, umulti_smbd_break_answer, break_answer)
SMBD_UPROBE(smbd_break_oplock, umulti_smbd_break_oplock, break_oplock)
SMBD_UPROBE(smbd_break_oplock_done, umulti_smbd_break_oplock_done, break_oplock_done)
SMBD_UPROBE(smbd_break_lease, umulti_smbd_break_lease, break_lease)
SMBD_UPROBE(smbd_break_lease_done, umulti_smbd_break_lease_done, break_lease_done)

/* The same, sleepable (PROG_USLEEP, PROG_UMULTI_SLEEP: the agent loads the twin so). */
#define SMBD_UPROBE_SLEEP(single, multi, fn) SMBD_UPROBE_IN("uprobe.s", single, multi, fn)

SMBD_UPROBE_SLEEP(smbd_exit_terminate_sleep, umulti_smbd_exit_terminate_sleep, exit_terminate_sleep)
SMBD_UPROBE_SLEEP(smbd_exit_server_sleep, umulti_smbd_exit_server_sleep, exit_server_sleep)
