// SPDX-License-Identifier: GPL-2.0
/*
 * smb2 layer: every SMB2 request of the cifs client, timed from the
 * allocation of its mid (struct mid_q_entry) to its release, accounted under
 * the func id of its command (SMB2_CREATE, ...). The mid hooks are kernel
 * functions attached with the programs of this unit, their func ids in the
 * cookie; the agent writes which hook is which, and where each finds the
 * mid, to smb2_ctl.
 *
 * cifs.ko types: only the fields read here, relocated against the module's
 * BTF; each read is guarded so a kernel without the field still loads.
 */
#include "vfs.bpf.h"
#include "wire.bpf.h"

struct TCP_Server_Info {
	char *hostname;
} __attribute__((preserve_access_index));

struct mid_q_entry {
	__u64 mid;
	__u16 command;
	struct TCP_Server_Info *server;
	void *resp_buf;
	struct kref refcount;
} __attribute__((preserve_access_index));

/* SMB2 header (MS-SMB2 2.2.1): wire offsets, the same on every kernel. */
#define SMB2_PROTO_ID 0x424d53feu      /* "\xfeSMB" read as little endian */
#define SMB2_HDR_STATUS 8
#define SMB2_HDR_COMMAND 12
#define SMB2_HDR_FLAGS 16
#define SMB2_HDR_NEXT 20
#define SMB2_HDR_MID 24
#define SMB2_FLAGS_RELATED 0x4u

struct smb2_ctl smb2 = {
	.hook_id = { SMB2_NO_HOOK, SMB2_NO_HOOK, SMB2_NO_HOOK, SMB2_NO_HOOK },
};

/* A request in flight, from its mid's allocation on. */
struct smb2_req {
	__u64 start_ns;         /* first: the agent sweeps by it */
	__u64 mid;
	__u32 pid;
	__u32 tid;
	__u32 uid;
	__u32 dev;
	__u32 status;
	__u16 cmd;
	__u16 flags;            /* EF_* of the event */
	char comm[SMBLAT_COMM_LEN];
	char name[SMBLAT_NAME_LEN];
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
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, __u64);
} smb2_alloc_hdr SEC(".maps");

static __always_inline struct mid_q_entry *smb2_mid(enum smb2_hook h, __u64 p)
{
	if (!p)
		return NULL;
	if (smb2.hook_kref[h & 3]) {
		if (!bpf_core_field_exists(struct mid_q_entry, refcount))
			return NULL;
		p -= bpf_core_field_offset(struct mid_q_entry, refcount);
	}
	return (struct mid_q_entry *)p;
}

/* The NT status of the response still attached to the mid, if any. */
static __always_inline void smb2_read_status(struct mid_q_entry *mid, struct smb2_req *r)
{
	__u32 hdr[3] = {};
	void *buf = NULL;

	if (r->flags & EF_SMB2_STATUS || !bpf_core_field_exists(mid->resp_buf))
		return;
	buf = BPF_CORE_READ(mid, resp_buf);
	if (!buf || bpf_probe_read_kernel(hdr, sizeof(hdr), buf) < 0 || hdr[0] != SMB2_PROTO_ID)
		return;
	r->status = hdr[SMB2_HDR_STATUS / 4];
	r->flags |= EF_SMB2_STATUS;
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
			continue;       /* no arguments kept: the outer call of its operation has them */
		fid = pf->func_id;
		pfc = bpf_map_lookup_elem(&funcs, &fid);
		if (!pfc)
			continue;
		sb = arg_sb(pfc->sb_kind, arg_at(pf->args, pfc->sb_arg));
		if (!sb_is_smb(sb))
			continue;
		r->dev = BPF_CORE_READ(sb, s_dev);
		r->flags |= EF_HAS_DEV;
		de = arg_dentry(pfc->name_kind, arg_at(pf->args, pfc->name_arg));
		if (de) {
			name = BPF_CORE_READ(de, d_name.name);
			if (name && bpf_probe_read_kernel_str(r->name, sizeof(r->name), name) > 0)
				r->flags |= EF_HAS_NAME;
		}
		return;
	}
}

/* The allocation returned mid for the SMB2 header at shdr: the request starts now. */
static __always_inline void smb2_on_alloc(__u64 shdr, __u64 ret)
{
	struct mid_q_entry *mid = (struct mid_q_entry *)ret;
	__u64 pid_tgid = bpf_get_current_pid_tgid(), key = ret;
	__u32 hdr[8] = {}, cmd;
	struct smb2_req r = {};

	if (!smb2.on || !mid || ret >= (__u64)-4095 || !task_wanted())
		return;
	if (!shdr || bpf_probe_read_kernel(hdr, sizeof(hdr), (void *)shdr) < 0 ||
	    hdr[0] != SMB2_PROTO_ID)
		return;
	cmd = hdr[SMB2_HDR_COMMAND / 4] & 0xffff;
	if (bpf_core_field_exists(mid->command))
		cmd = BPF_CORE_READ(mid, command);
	if (cmd >= SMB2_NCMD)
		return;
	r.cmd = cmd;
	r.mid = hdr[SMB2_HDR_MID / 4] | (__u64)hdr[SMB2_HDR_MID / 4 + 1] << 32;
	if (bpf_core_field_exists(mid->mid))
		r.mid = BPF_CORE_READ(mid, mid);
	r.flags = EF_SMB2;
	if (hdr[SMB2_HDR_NEXT / 4] || (hdr[SMB2_HDR_FLAGS / 4] & SMB2_FLAGS_RELATED))
		r.flags |= EF_SMB2_COMPOUND;
	r.pid = pid_tgid >> 32;
	r.tid = (__u32)pid_tgid;
	r.uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(r.comm, sizeof(r.comm));
	smb2_req_origin(&r);
	r.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&smb2_reqs, &key, &r, BPF_ANY) < 0)
		account_untimed(smb2.cmd_id[cmd]);
}

static __always_inline bool smb2_status_failed(__u32 status)
{
	return (status >> 30) == 3;     /* severity "error" */
}

static __always_inline void smb2_emit(struct mid_q_entry *mid, struct smb2_req *r, __u32 id,
				      __u64 lat)
{
	struct event *e;
	char *host;

	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		return;
	}
	e->end_ns = bpf_ktime_get_boot_ns();
	e->latency_ns = lat;
	e->ret = 0;
	e->func_id = id;
	e->pid = r->pid;
	e->tid = r->tid;
	e->uid = r->uid;
	e->dev = r->dev;
	e->flags = r->flags;
	e->kstack_sz = 0;
	e->ustack_sz = 0;
	for (int i = 0; i < SMBLAT_MAX_ARGS; i++)
		e->args[i] = 0;
	__builtin_memcpy(e->comm, r->comm, sizeof(e->comm));
	__builtin_memcpy(e->name, r->name, sizeof(e->name));
	e->smb_mid = r->mid;
	e->smb_status = r->status;
	e->smb_cmd = r->cmd;
	e->wire_n = 0;
	e->wire_ns = 0;
	e->smb_server[0] = 0;
	if (bpf_core_field_exists(mid->server) &&
	    bpf_core_field_exists(struct TCP_Server_Info, hostname)) {
		host = BPF_CORE_READ(mid, server, hostname);
		if (host)
			bpf_probe_read_kernel_str(e->smb_server, sizeof(e->smb_server), host);
	}
	bpf_ringbuf_submit(e, 0);
}

/* The request is over: account it under its command, link it, report it if slow. */
static __always_inline void smb2_finish(struct mid_q_entry *mid, struct smb2_req *r, __u64 key)
{
	__u64 lat = bpf_ktime_get_ns() - r->start_ns;
	__u32 cmd = r->cmd, id = SMB2_NO_HOOK;
	struct func_cfg *fc;
	bool slow;

	if (cmd < SMB2_NCMD)
		id = smb2.cmd_id[cmd];
	if (r->tid == (__u32)bpf_get_current_pid_tgid())
		wire_link(r->cmd, lat);
	else
		wire_link_async(r->tid, r->start_ns, r->cmd, lat);
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (fc && (fc->flags & FF_ENABLED)) {
		slow = lat >= fc->threshold_ns;
		account(id, lat, slow, ACCT_SHARED);
		if (slow || ((fc->flags & FF_ERRORS) && (r->flags & EF_SMB2_STATUS) &&
			     smb2_status_failed(r->status)))
			smb2_emit(mid, r, id, lat);
	}
	bpf_map_delete_elem(&smb2_reqs, &key);
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
	if (id == smb2.hook_id[SMB2_HOOK_RESPONSE])
		h = SMB2_HOOK_RESPONSE;
	else if (id == smb2.hook_id[SMB2_HOOK_DONE])
		h = SMB2_HOOK_DONE;
	else if (id == smb2.hook_id[SMB2_HOOK_FREE])
		h = SMB2_HOOK_FREE;
	else
		return 0;
	mid = smb2_mid(h, arg_at(args, smb2.hook_arg[h]));
	key = (__u64)mid;
	r = mid ? bpf_map_lookup_elem(&smb2_reqs, &key) : NULL;
	if (!r)
		return 0;
	smb2_read_status(mid, r);
	if (h != SMB2_HOOK_RESPONSE)
		smb2_finish(mid, r, key);
	return 0;
}

/* ---- the allocation hook: the header argument at entry, the mid at return ---- */

SEC("fexit")
int BPF_PROG(smb2_alloc_fexit)
{
	__u64 shdr = 0, ret = 0;

	bpf_get_func_arg(ctx, smb2.hook_arg[SMB2_HOOK_ALLOC], &shdr);
	bpf_get_func_ret(ctx, &ret);
	smb2_on_alloc(shdr, ret);
	return 0;
}

static __always_inline int smb2_alloc_enter(struct pt_regs *regs)
{
	__u64 args[SMBLAT_MAX_ARGS] = {}, shdr;
	__u32 tid = (__u32)bpf_get_current_pid_tgid();

	if (!smb2.on)
		return 0;
	regs_args(regs, args);
	shdr = arg_at(args, smb2.hook_arg[SMB2_HOOK_ALLOC]);
	bpf_map_update_elem(&smb2_alloc_hdr, &tid, &shdr, BPF_ANY);
	return 0;
}

static __always_inline int smb2_alloc_return(struct pt_regs *regs)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 *shdr = bpf_map_lookup_elem(&smb2_alloc_hdr, &tid), s;

	if (!shdr)
		return 0;
	s = *shdr;
	bpf_map_delete_elem(&smb2_alloc_hdr, &tid);
	smb2_on_alloc(s, PT_REGS_RC(regs));
	return 0;
}

SEC("kprobe") int smb2_alloc_kprobe(struct pt_regs *r) { return smb2_alloc_enter(r); }
SEC("kretprobe") int smb2_alloc_kretprobe(struct pt_regs *r) { return smb2_alloc_return(r); }
SEC("kprobe.multi") int smb2_alloc_kmulti(struct pt_regs *r) { return smb2_alloc_enter(r); }
SEC("kretprobe.multi") int smb2_alloc_kretmulti(struct pt_regs *r) { return smb2_alloc_return(r); }

/* ---- the hooks that see a mid go by: entry only ---- */

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

SEC("kprobe") int smb2_mid_kprobe(struct pt_regs *r) { return smb2_mid_enter(r); }
SEC("kprobe.multi") int smb2_mid_kmulti(struct pt_regs *r) { return smb2_mid_enter(r); }
