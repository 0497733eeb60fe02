// SPDX-License-Identifier: GPL-2.0
/*
 * smb2 layer: every SMB2 request of the cifs client, timed from its
 * submission (before the wait for credits) or, where that is not hooked,
 * from the allocation of its mid (struct mid_q_entry) to its release,
 * accounted under the func id of its command (SMB2_CREATE, ...). The hooks
 * are kernel functions attached with the programs of this unit, their func
 * ids in the cookie; the agent writes which hook is which, and where each
 * finds the mid, to smb2_ctl. Connection events come from cifs tracepoints
 * (smb2_tp_*) and from the requests themselves (session setup, logoff).
 *
 * cifs.ko types: only the fields read here, relocated against the module's
 * BTF; each read is guarded so a kernel without the field still loads.
 */
#include "vfs.bpf.h"
#include "wire.bpf.h"
#include "view.bpf.h"
#include "smb2hdr.bpf.h"

struct TCP_Server_Info {
	char *hostname;
	__u64 conn_id;
} __attribute__((preserve_access_index));

struct mid_q_entry {
	__u64 mid;
	__u16 command;
	struct TCP_Server_Info *server;
	void *resp_buf;
	struct kref refcount;
	unsigned long when_alloc; /* jiffies, CONFIG_CIFS_STATS2 */
	unsigned long when_sent;
	unsigned long when_received;
} __attribute__((preserve_access_index));

#define SMB2_STATUS_SUCCESS 0u
#define SMB2_SUBMIT_MAX 8 /* mids one submission allocates: MAX_COMPOUND is 5 to 7 */

struct smb2_ctl smb2 = {
	.hook_id = { SMB2_NO_HOOK, SMB2_NO_HOOK, SMB2_NO_HOOK, SMB2_NO_HOOK, SMB2_NO_HOOK, SMB2_NO_HOOK,
		     SMB2_NO_HOOK },
};

/*
 * Keyed by mid pointer. A plain hash: an LRU would evict requests in flight
 * before it is full; mids freed where no hook sees them are swept by the
 * agent (probes/inflight.h), and a start finding the table full is counted
 * lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 8192);
	__type(key, __u64);
	__type(value, struct smb2_req);
} smb2_reqs SEC(".maps");

/* The allocation's header argument, from kprobe entry to return, by thread. */
/* The allocation's arguments, from its entry to its return (kprobes). */
struct smb2_alloc_args {
	__u64 shdr;
	__u64 server;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct smb2_alloc_args);
} smb2_alloc_hdr SEC(".maps");

/*
 * A submission in progress on a thread: when it began, and the mids it
 * allocated (pointer and message id: a mid answered and freed before the
 * send returns may be allocated again for another request).
 */
struct smb2_submit {
	__u64 start_ns;
	__u32 n;
	__u32 pad;
	struct {
		__u64 key;
		__u64 mid;
	} mids[SMB2_SUBMIT_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct smb2_submit);
} smb2_submits SEC(".maps");

/*
 * The last session, tree and share a connection carried a request of, by
 * the kernel's connection id: what its reconnects and credit stalls concern.
 */
struct smb2_conn {
	__u64 session;
	__u32 tree;
	__u32 dev;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 256);
	__type(key, __u64);
	__type(value, struct smb2_conn);
} smb2_conns SEC(".maps");

/* What __release_mid saw of the request it frees, for smb3_slow_rsp fired inside it. */
struct smb2_freed {
	struct smb2_req r;
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct smb2_freed);
} smb2_freeing SEC(".maps");

/*
 * Entries of smb2_ctl by a bounded index. The mask after the check is for
 * older verifiers, which lose the bound when the index is spilled.
 */
static __always_inline __u32 smb2_cmd_id(__u32 cmd)
{
	if (cmd >= SMB2_NCMD)
		return SMB2_NO_HOOK;
	barrier_var(cmd);
	return smb2.cmd_id[cmd & SMBLAT_INDEX_MASK(SMB2_NCMD)];
}

static __always_inline __u32 smb2_event_id(__u32 k)
{
	if (k >= _SMB_EV_MAX)
		return SMB2_NO_HOOK;
	barrier_var(k);
	return smb2.event_id[k & SMBLAT_INDEX_MASK(_SMB_EV_MAX)];
}

static __always_inline struct mid_q_entry *smb2_mid(__u32 h, __u64 p)
{
	if (!p || h >= _SMB2_HOOK_MAX)
		return NULL;
	barrier_var(h);
	if (smb2.hook_kref[h & SMBLAT_INDEX_MASK(_SMB2_HOOK_MAX)]) {
		if (!bpf_core_field_exists(struct mid_q_entry, refcount))
			return NULL;
		p -= bpf_core_field_offset(struct mid_q_entry, refcount);
	}
	return (struct mid_q_entry *)p;
}

static __always_inline bool str_eq(const char *a, const char *b)
{
	for (int i = 0; i < SMBLAT_NAME_LEN; i++) {
		if (a[i] != b[i])
			return false;
		if (!a[i])
			break;
	}
	return true;
}

/* [smb2] servers=: the server's name is one of them (none given: every server). */
static __always_inline bool smb2_server_wanted(const char *host)
{
	if (!smb2.n_servers)
		return true;
	for (int i = 0; i < SMB2_FILTER_MAX; i++)
		if (i < smb2.n_servers && str_eq(host, smb2.servers[i]))
			return true;
	return false;
}

/* [smb2] sessions=: the session is one of them (none given: every session). */
static __always_inline bool smb2_session_wanted(__u64 session)
{
	if (!smb2.n_sessions)
		return true;
	for (int i = 0; i < SMB2_FILTER_MAX; i++)
		if (i < smb2.n_sessions && smb2.sessions[i] == session)
			return true;
	return false;
}

/* The server's name into buf; false when there is none. */
static __always_inline bool smb2_host(__u64 server, char *buf)
{
	struct TCP_Server_Info *srv = (struct TCP_Server_Info *)server;
	char *host;

	buf[0] = 0;
	if (!srv || !bpf_core_field_exists(struct TCP_Server_Info, hostname))
		return false;
	host = BPF_CORE_READ(srv, hostname);
	return host && bpf_probe_read_kernel_str(buf, SMBLAT_NAME_LEN, host) > 0;
}

/* Status, credits granted and async id of the response still attached to the mid, if any. */
static __always_inline void smb2_read_response(struct mid_q_entry *mid, struct smb2_req *r)
{
	__u32 hdr[SMB2_HDR_WORDS] = {};
	struct smb2_ids rsp = {};
	void *buf = NULL;

	if (r->flags & RF_SMB2_STATUS || !bpf_core_field_exists(mid->resp_buf))
		return;
	buf = BPF_CORE_READ(mid, resp_buf);
	if (!buf || bpf_probe_read_kernel(hdr, sizeof(hdr), buf) < 0 || !smb2_hdr_parse(hdr, &rsp))
		return;
	r->ids.status = rsp.status;
	r->granted = rsp.credits;
	r->flags |= RF_SMB2_STATUS | RF_SMB2_GRANTED;
	if (rsp.flags & RF_SMB2_ASYNC) {
		r->ids.async_id = rsp.async_id;
		r->flags |= RF_SMB2_ASYNC;
	}
	/* the server names a new session in its answer to the first setup */
	if (!r->ids.session)
		r->ids.session = rsp.session;
}

/* Share and file of the innermost traced call on an SMB superblock the request is made for. */
static __always_inline void smb2_req_origin(struct smb2_req *r)
{
	struct frames *fr = task_frames();
	struct func_cfg *pfc;
	struct super_block *sb;
	struct dentry *de;
	const unsigned char *name;
	struct frame *pf;
	__u32 d, fid;

	if (!fr)
		return;
	d = fr->depth;
	for (__u32 i = 0; i < SMBLAT_NEST; i++) {
		if (i >= d)
			break;
		pf = &fr->f[(d - 1 - i) & (SMBLAT_NEST - 1)];
		if (pf->inner)
			continue; /* no arguments kept: the outer call of its operation has them */
		fid = pf->func_id;
		pfc = bpf_map_lookup_elem(&funcs, &fid);
		if (!pfc)
			continue;
		sb = arg_sb(pfc->sb_kind, arg_at(pf->args, pfc->sb_arg));
		if (!sb_is_smb(sb))
			continue;
		r->dev = BPF_CORE_READ(sb, s_dev);
		r->flags |= RF_HAS_DEV;
		de = arg_dentry(pfc->name_kind, arg_at(pf->args, pfc->name_arg));
		if (de) {
			name = BPF_CORE_READ(de, d_name.name);
			if (name && bpf_probe_read_kernel_str(r->name, sizeof(r->name), name) > 0)
				r->flags |= RF_HAS_NAME;
		}
		return;
	}
}

/* compound_send_recv() or cifs_call_async() on this thread: credits, lock, mids, send. */
static __always_inline void smb2_on_submit(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct smb2_submit *s, zero = {};

	if (!task_wanted())
		return;
	s = bpf_map_lookup_elem(&smb2_submits, &tid);
	if (!s) {
		bpf_map_update_elem(&smb2_submits, &tid, &zero, BPF_ANY);
		s = bpf_map_lookup_elem(&smb2_submits, &tid);
		if (!s)
			return;
	}
	s->n = 0;
	s->start_ns = bpf_ktime_get_ns();
}

/* The send of this thread's submission returned: its mids are on the wire. */
static __always_inline void smb2_on_sent(void)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct smb2_submit *s = bpf_map_lookup_elem(&smb2_submits, &tid);
	__u64 now = bpf_ktime_get_ns(), key;
	struct smb2_req *r;

	if (!s)
		return;
	for (__u32 i = 0; i < SMB2_SUBMIT_MAX; i++) {
		if (i >= s->n)
			break;
		key = s->mids[i].key;
		r = bpf_map_lookup_elem(&smb2_reqs, &key);
		if (r && r->ids.mid == s->mids[i].mid && !r->sent_ns)
			r->sent_ns = now;
	}
	bpf_map_delete_elem(&smb2_submits, &tid);
}

static __always_inline void smb2_conn_seen(const struct smb2_req *r)
{
	struct TCP_Server_Info *srv = (struct TCP_Server_Info *)r->server;
	struct smb2_conn c = { .session = r->ids.session, .tree = r->ids.tree, .dev = r->dev }, *old;
	__u64 conn;

	if (!r->ids.session || !srv || !bpf_core_field_exists(struct TCP_Server_Info, conn_id))
		return;
	conn = BPF_CORE_READ(srv, conn_id);
	old = bpf_map_lookup_elem(&smb2_conns, &conn);
	/* a request without a share (cifsd's) keeps the one known for the tree */
	if (old && old->session == c.session && old->tree == c.tree && (!c.dev || old->dev == c.dev))
		return;
	bpf_map_update_elem(&smb2_conns, &conn, &c, BPF_ANY);
}

/*
 * The allocation returned mid for the SMB2 header at shdr, on the connection
 * server (0: not an argument): the request starts now.
 */
static __always_inline void smb2_on_alloc(__u64 shdr, __u64 server, __u64 ret)
{
	struct mid_q_entry *mid = (struct mid_q_entry *)ret;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), key = ret;
	__u32 hdr[SMB2_HDR_WORDS] = {}, tid = (__u32)pid_tgid, n;
	struct smb2_submit *s;
	struct smb2_req r = {};
	char host[SMBLAT_NAME_LEN];

	if (!smb2.on || !mid || ret >= (__u64)-SMBLAT_MAX_ERRNO || !task_wanted())
		return;
	if (!shdr || bpf_probe_read_kernel(hdr, sizeof(hdr), (void *)shdr) < 0 ||
	    !smb2_hdr_parse(hdr, &r.ids))
		return;
	if (bpf_core_field_exists(mid->command))
		r.ids.cmd = BPF_CORE_READ(mid, command);
	if (r.ids.cmd >= SMB2_NCMD)
		return;
	if (bpf_core_field_exists(mid->mid))
		r.ids.mid = BPF_CORE_READ(mid, mid);
	r.server = bpf_core_field_exists(mid->server) ? (__u64)BPF_CORE_READ(mid, server) : server;
	if (!smb2_session_wanted(r.ids.session) ||
	    (smb2.n_servers && (!smb2_host(r.server, host) || !smb2_server_wanted(host))))
		return;
	r.flags = r.ids.flags;
	r.pid = pid_tgid >> 32;
	r.tid = tid;
	r.uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(r.comm, sizeof(r.comm));
	smb2_req_origin(&r);
	r.alloc_ns = r.start_ns = bpf_ktime_get_ns();
	s = bpf_map_lookup_elem(&smb2_submits, &tid);
	if (s) {
		r.start_ns = s->start_ns;
		n = s->n;
		if (n < SMB2_SUBMIT_MAX) {
			barrier_var(n);
			s->mids[n & (SMB2_SUBMIT_MAX - 1)].key = key;
			s->mids[n & (SMB2_SUBMIT_MAX - 1)].mid = r.ids.mid;
			s->n = n + 1;
		}
	}
	smb2_conn_seen(&r);
	if (bpf_map_update_elem(&smb2_reqs, &key, &r, BPF_ANY) < 0)
		account_untimed(smb2_cmd_id(r.ids.cmd));
}

static __always_inline bool smb2_status_failed(__u32 status)
{
	return (status >> 30) == 3; /* severity "error" */
}

/* A point of the request's life from its mid timestamp (jiffies); 0 when unknown. */
static __always_inline __u64 smb2_jiffies_at(const struct smb2_req *r, unsigned long alloc_j,
					     unsigned long at_j)
{
	if (!smb2.ns_per_jiffy || !at_j || (long)(at_j - alloc_j) < 0)
		return 0;
	return r->alloc_ns + (at_j - alloc_j) * smb2.ns_per_jiffy;
}

/*
 * Where the request's time went: each point from the hook that saw it, else
 * from the mid's own timestamps, else the one before; so the three parts
 * add up to the latency.
 */
static __always_inline void smb2_split(struct mid_q_entry *mid, const struct smb2_req *r, __u64 end,
				       struct smb2_split *s)
{
	__u64 sent = r->sent_ns, recv = r->recv_ns;
	unsigned long alloc_j = 0;

	if ((!sent || !recv) && bpf_core_field_exists(mid->when_alloc)) {
		alloc_j = BPF_CORE_READ(mid, when_alloc);
		if (!sent && bpf_core_field_exists(mid->when_sent))
			sent = smb2_jiffies_at(r, alloc_j, BPF_CORE_READ(mid, when_sent));
		if (!recv && bpf_core_field_exists(mid->when_received))
			recv = smb2_jiffies_at(r, alloc_j, BPF_CORE_READ(mid, when_received));
	}
	if (sent < r->alloc_ns)
		sent = r->alloc_ns;
	if (!recv || recv > end)
		recv = end;
	if (sent > recv)
		sent = recv;
	s->send_ns = sent - r->start_ns;
	s->rtt_ns = recv - sent;
	s->wake_ns = end - recv;
}

/* A request's record: an SMB2_* entry (REC_SMB2_REQ) or a connection event made from it. */
static __always_inline void smb2_fill(struct rec_smb2 *e, enum rec_kind kind, const struct smb2_req *r,
				      __u32 id, __u64 lat)
{
	struct TCP_Server_Info *srv = (struct TCP_Server_Info *)r->server;

	rec_head_fill_task(&e->h, kind, id, lat, r->pid, r->tid, r->uid, r->comm);
	e->h.flags = r->flags;
	e->ids = r->ids;
	e->dev = r->dev;
	e->credits_granted = r->granted;
	e->event = 0;
	for (int i = 0; i < 4; i++)
		e->event_val[i] = 0;
	e->split.send_ns = 0;
	e->split.rtt_ns = 0;
	e->split.wake_ns = 0;
	__builtin_memcpy(e->name, r->name, sizeof(e->name));
	e->server[0] = 0;
	smb2_host(r->server, e->server);
	e->conn_id = 0;
	if (srv && bpf_core_field_exists(struct TCP_Server_Info, conn_id))
		e->conn_id = BPF_CORE_READ(srv, conn_id);
}

static __always_inline void smb2_emit(const struct smb2_req *r, __u32 id, __u64 lat,
				      const struct smb2_split *s)
{
	struct rec_smb2 *e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);

	if (!e) {
		account_lost(id);
		return;
	}
	smb2_fill(e, REC_SMB2_REQ, r, id, lat);
	e->split = *s;
	bpf_ringbuf_submit(e, 0);
}

/* Session set up and logged off: connection events of their own, whatever their latency. */
static __always_inline void smb2_session_event(const struct smb2_req *r, __u64 lat)
{
	struct rec_smb2 *e;
	enum smb_event k;
	__u32 id;

	if (r->ids.cmd == SMB2_CMD_SESSION_SETUP && (r->flags & RF_SMB2_STATUS) &&
	    r->ids.status == SMB2_STATUS_SUCCESS)
		k = SMB_EV_SESSION_SETUP;
	else if (r->ids.cmd == SMB2_CMD_LOGOFF)
		k = SMB_EV_LOGOFF;
	else
		return;
	id = smb2_event_id(k);
	if (id == SMB2_NO_HOOK)
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		return;
	}
	smb2_fill(e, REC_SMB_EVENT, r, id, lat);
	e->event = k;
	bpf_ringbuf_submit(e, 0);
}

/* The request is over: account it under its command, link it, report it if slow. */
static __always_inline void smb2_finish(struct mid_q_entry *mid, struct smb2_req *r, __u64 key)
{
	__u64 now = bpf_ktime_get_ns(), lat = now - r->start_ns;
	__u32 cmd = r->ids.cmd, id = smb2_cmd_id(cmd);
	struct smb2_split s;
	struct func_cfg *fc;
	bool slow;

	smb2_split(mid, r, now, &s);
	if (r->tid == (__u32)bpf_get_current_pid_tgid())
		wire_link(cmd, lat, &s);
	else
		wire_link_async(r->tid, r->start_ns, cmd, lat, &s);
	smb2_session_event(r, lat);
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (fc && (fc->flags & FF_ENABLED)) {
		slow = lat >= fc->threshold_ns;
		account(id, lat, slow, ACCT_SHARED);
		if (r->flags & RF_HAS_DEV)
			share_account(id, r->dev, lat, slow, ACCT_SHARED);
		if (slow || ((fc->flags & FF_ERRORS) && (r->flags & RF_SMB2_STATUS) &&
			     smb2_status_failed(r->ids.status)))
			smb2_emit(r, id, lat, &s);
	}
	bpf_map_delete_elem(&smb2_reqs, &key);
}

/* Kept for smb3_slow_rsp, which __release_mid fires after this hook ran. */
static __always_inline void smb2_keep_freed(const struct smb2_req *r)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct smb2_freed *f, zero = {};

	f = bpf_map_lookup_elem(&smb2_freeing, &tid);
	if (!f) {
		bpf_map_update_elem(&smb2_freeing, &tid, &zero, BPF_ANY);
		f = bpf_map_lookup_elem(&smb2_freeing, &tid);
		if (!f)
			return;
	}
	f->r = *r;
}

/* A hook that sees a mid go by: answered (status only), deleted or freed (the end). */
static __always_inline int smb2_mid_seen(__u32 id, const __u64 *args)
{
	struct mid_q_entry *mid;
	struct smb2_req *r;
	enum smb2_hook h;
	__u64 key;

	if (!smb2.on)
		return 0;
	if (id == smb2.hook_id[SMB2_HOOK_SUBMIT] || id == smb2.hook_id[SMB2_HOOK_SUBMIT_ASYNC]) {
		smb2_on_submit();
		return 0;
	}
	if (id == smb2.hook_id[SMB2_HOOK_RESPONSE])
		h = SMB2_HOOK_RESPONSE;
	else if (id == smb2.hook_id[SMB2_HOOK_DONE])
		h = SMB2_HOOK_DONE;
	else if (id == smb2.hook_id[SMB2_HOOK_FREE])
		h = SMB2_HOOK_FREE;
	else
		return 0;
	mid = smb2_mid(h, arg_at(args, smb2.hook_arg[h & SMBLAT_INDEX_MASK(_SMB2_HOOK_MAX)]));
	key = (__u64)mid;
	r = mid ? bpf_map_lookup_elem(&smb2_reqs, &key) : NULL;
	if (!r)
		return 0;
	smb2_read_response(mid, r);
	if (h == SMB2_HOOK_RESPONSE) {
		if (!r->recv_ns)
			r->recv_ns = bpf_ktime_get_ns();
		return 0;
	}
	if (h == SMB2_HOOK_FREE && smb2.keep_freed)
		smb2_keep_freed(r);
	smb2_finish(mid, r, key);
	return 0;
}

/* ---- the allocation hook: the header argument at entry, the mid at return ---- */

SEC("fexit")
int BPF_PROG(smb2_alloc_fexit)
{
	__u64 shdr = 0, server = 0, ret = 0;

	bpf_get_func_arg(ctx, smb2.hook_arg[SMB2_HOOK_ALLOC], &shdr);
	if (smb2.alloc_server_arg)
		bpf_get_func_arg(ctx, smb2.alloc_server_arg - 1, &server);
	bpf_get_func_ret(ctx, &ret);
	smb2_on_alloc(shdr, server, ret);
	return 0;
}

static __always_inline int smb2_alloc_enter(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct smb2_alloc_args a = {};

	if (!smb2.on)
		return 0;
	regs_args(regs, args);
	a.shdr = arg_at(args, smb2.hook_arg[SMB2_HOOK_ALLOC]);
	if (smb2.alloc_server_arg)
		a.server = arg_at(args, smb2.alloc_server_arg - 1);
	bpf_map_update_elem(&smb2_alloc_hdr, &tid, &a, BPF_ANY);
	return 0;
}

static __always_inline int smb2_alloc_return(struct pt_regs *regs)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct smb2_alloc_args *p = bpf_map_lookup_elem(&smb2_alloc_hdr, &tid), a;

	if (!p)
		return 0;
	a = *p;
	bpf_map_delete_elem(&smb2_alloc_hdr, &tid);
	smb2_on_alloc(a.shdr, a.server, PT_REGS_RC(regs));
	return 0;
}

SEC("kprobe") int smb2_alloc_kprobe(struct pt_regs *r)
{
	return smb2_alloc_enter(r);
}
SEC("kretprobe") int smb2_alloc_kretprobe(struct pt_regs *r)
{
	return smb2_alloc_return(r);
}
SEC("kprobe.multi") int smb2_alloc_kmulti(struct pt_regs *r)
{
	return smb2_alloc_enter(r);
}
SEC("kretprobe.multi") int smb2_alloc_kretmulti(struct pt_regs *r)
{
	return smb2_alloc_return(r);
}

/* ---- the hooks that see a mid go by, and the submissions: entry only ---- */

SEC("fentry")
int BPF_PROG(smb2_mid_fentry)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	trampoline_args(ctx, args);
	return smb2_mid_seen(bpf_get_attach_cookie(ctx), args);
}

static __always_inline int smb2_mid_enter(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {};

	regs_args(regs, args);
	return smb2_mid_seen(probe_id(regs, false), args);
}

SEC("kprobe") int smb2_mid_kprobe(struct pt_regs *r)
{
	return smb2_mid_enter(r);
}
SEC("kprobe.multi") int smb2_mid_kmulti(struct pt_regs *r)
{
	return smb2_mid_enter(r);
}

/* ---- the send: return only ---- */

static __always_inline int smb2_sent(void)
{
	if (smb2.on)
		smb2_on_sent();
	return 0;
}

SEC("fexit") int BPF_PROG(smb2_sent_fexit)
{
	return smb2_sent();
}
SEC("kretprobe") int smb2_sent_kretprobe(struct pt_regs *r)
{
	return smb2_sent();
}
SEC("kretprobe.multi") int smb2_sent_kretmulti(struct pt_regs *r)
{
	return smb2_sent();
}

#include "smbevent.bpf.h"
