// SPDX-License-Identifier: GPL-2.0
/*
 * smbd layer: SMB2 requests of Samba's smbd, by request pointer. (Its VFS
 * calls are plain calls of func.bpf.c on uprobes.)
 *
 * An SMB2 request may complete on a later turn of smbd's event loop (async
 * I/O, blocking locks, change notify), so the start cannot live on the task's
 * frame stack: it is keyed by process and request, in a plain hash (an LRU
 * would evict requests in flight before it is full). Requests whose
 * connection dies never complete: the agent sweeps their entries
 * (probes/inflight.h); a start finding the table full is counted lost.
 */
#include "call.bpf.h"
#include "smb2hdr.bpf.h"
#include "smbd.h"

/* Set by the agent when it found the request's layout (its SMB2 header ids). */
struct smbd_hdr_layout smbd_hdr = {};

struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 16384);
	__type(key, struct smbd_req_key);
	__type(value, struct smbd_req_start);
} smbd_reqs SEC(".maps");

/* Function id + 1 of SMBD_SMB2_CANCEL, set by the agent while it is attached; 0: not. */
__u32 smbd_cancel_id = 0;

/* In flight: an SMB2 CANCEL in its dispatch, by thread id (the return tells no request). */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
	__uint(max_entries, 1024);
	__type(key, __u32);
	__type(value, struct smbd_req_start);
} smbd_cancels SEC(".maps");

/*
 * The user stacks of requests in progress, taken where the handler begins
 * (how smbd came to the request), by their hash: the reply is sent from
 * elsewhere (a completion on a later turn of the event loop). An LRU: a
 * stack evicted before its request ends is counted as lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 1024);
	__type(key, __u64);
	__type(value, struct ustack_val);
} smbd_req_ustacks SEC(".maps");

/* The user stack here, kept for the request's end; its hash, 0 when none was taken. */
static __always_inline __u64 smbd_req_ustack(struct pt_regs *regs)
{
	struct uwalk *w = ustack_take(regs, SMBLAT_STACK_FRAMES);
	__u64 h = 0;

	if (!w)
		return 0;
	if (w->stk.n && bpf_map_update_elem(&smbd_req_ustacks, &w->hash, &w->stk, BPF_ANY) == 0)
		h = w->hash;
	ustack_put();
	return h;
}

/* The ids of the request's inbound SMB2 header, as the client sent them. */
static __always_inline bool smbd_req_ids(__u64 req, struct smb2_ids *ids)
{
	__u32 hdr[SMB2_HDR_WORDS] = {};
	__u64 vec = 0, base = 0;
	int idx = 0;

	if (!smbd_hdr.on || !req ||
	    bpf_probe_read_user(&idx, sizeof(idx), (void *)(req + smbd_hdr.current_idx)) < 0 ||
	    bpf_probe_read_user(&vec, sizeof(vec), (void *)(req + smbd_hdr.in_vector)) < 0 || idx < 0 ||
	    idx > 4096 || !vec ||
	    bpf_probe_read_user(&base, sizeof(base), (void *)(vec + (__u64)(idx + 1) * 16)) < 0 || !base ||
	    bpf_probe_read_user(hdr, sizeof(hdr), (void *)base) < 0)
		return false;
	return smb2_hdr_parse(hdr, ids);
}

/*
 * The same request dispatched again: smbd defers an open until the breaks
 * it caused are answered, then runs smbd_smb2_request_process_create()
 * once more for the same request. Its first start stands, as Samba's own
 * profile keeps it (SMBPROFILE_IOBYTES_ASYNC_SET_BUSY).
 */
static __always_inline bool smbd_req_again(const struct smbd_req_start *old, const struct smbd_req_start *s)
{
	return old && old->func_id == s->func_id && old->has_ids == s->has_ids &&
	       (!s->has_ids || old->ids.mid == s->ids.mid);
}

/* smbd_smb2_request_process_<cmd>(req): the id of SMBD_SMB2_<CMD> in the cookie (probe_id()). */
static __always_inline int smbd_request_begin(struct pt_regs *regs)
{
	struct smbd_req_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .req = PT_REGS_PARM1(regs) };
	struct smbd_req_start s = { .func_id = probe_id(regs, false) };
	struct func_cfg *fc;

	if (!task_wanted())
		return 0;
	fc = bpf_map_lookup_elem(&funcs, &s.func_id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return 0;
	s.has_ids = smbd_req_ids(k.req, &s.ids);
	if (smbd_req_again(bpf_map_lookup_elem(&smbd_reqs, &k), &s))
		return 0;
	if (fc->flags & (FF_USTACK | FF_STACKS_USER))
		s.ustack = smbd_req_ustack(regs);
	s.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&smbd_reqs, &k, &s, BPF_ANY) < 0)
		account_untimed(s.func_id);
	return 0;
}

/* A request s is over at now with status: accounted, and sent on when slow (or failed, errors = yes). */
static __always_inline void smbd_request_done(struct pt_regs *regs, const struct smbd_req_start *s, __u64 now,
					      __u64 status)
{
	struct frame f = { .start_ns = s->start_ns, .func_id = s->func_id };
	__u64 lat = now - s->start_ns;
	struct ustack_val *kept = NULL;
	struct func_cfg *fc, fill;
	struct rec_smbd_req *e;
	bool slow;

	fc = bpf_map_lookup_elem(&funcs, &f.func_id);
	if (!fc)
		return;
	slow = lat >= fc->threshold_ns;
	account(f.func_id, lat, slow, ACCT_SHARED);
	/* the stack is the handler's entry's, not the reply's */
	if (s->ustack)
		kept = bpf_map_lookup_elem(&smbd_req_ustacks, &s->ustack);
	if (fc->flags & FF_STACKS_USER)
		stacks_count_kept(f.func_id, lat, s->ustack, kept);
	/* NTSTATUS: severity "error" is the top two bits */
	if (!slow && !((fc->flags & FF_ERRORS) && (status >> 30) == 3))
		return;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(f.func_id);
		return;
	}
	fill = *fc;
	fill.flags &= ~FF_USTACK;
	call_fill(regs, &e->c, REC_SMBD_REQ, &fill, &f, f.func_id, lat, status);
	if (fc->flags & FF_USTACK)
		ustack_fill_kept(&e->c.st, kept);
	e->ids = s->ids;
	/* the client's SMB_SESSION_ID and SMB_MID: the two sides join on them */
	if (s->has_ids)
		e->c.h.flags |= RF_SMB2_IDS | s->ids.flags;
	bpf_ringbuf_submit(e, 0);
}

/* smbd_smb2_request_done_ex / _error_ex(req, NTSTATUS status, ...): the reply goes out. */
static __always_inline int smbd_request_end(struct pt_regs *regs)
{
	struct smbd_req_key k = { .tgid = bpf_get_current_pid_tgid() >> 32, .req = PT_REGS_PARM1(regs) };
	__u64 now = bpf_ktime_get_ns();
	struct smbd_req_start *p, s;

	p = bpf_map_lookup_elem(&smbd_reqs, &k);
	if (!p)
		return 0;
	s = *p;
	bpf_map_delete_elem(&smbd_reqs, &k);
	smbd_request_done(regs, &s, now, PT_REGS_PARM2(regs) & 0xffffffffu);
	return 0;
}

/*
 * SMB2 CANCEL: smbd exports no handler for it (its process function is
 * static) and sends no reply, so it is timed over the whole of its
 * smbd_smb2_request_dispatch(), from entry to return, told from the other
 * requests there by its inbound header's command.
 */
static __always_inline int smbd_cancel_begin(struct pt_regs *regs)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid(), id1 = smbd_cancel_id;
	struct smbd_req_start s = {};
	struct func_cfg *fc;

	if (!id1 || !task_wanted() || !smbd_req_ids(PT_REGS_PARM1(regs), &s.ids) ||
	    s.ids.cmd != SMB2_CMD_CANCEL)
		return 0;
	s.func_id = id1 - 1;
	fc = bpf_map_lookup_elem(&funcs, &s.func_id);
	if (!fc || !(fc->flags & FF_ENABLED))
		return 0;
	s.has_ids = 1;
	s.start_ns = bpf_ktime_get_ns();
	if (bpf_map_update_elem(&smbd_cancels, &tid, &s, BPF_ANY) < 0)
		account_untimed(s.func_id);
	return 0;
}

/* Its dispatch returns (the NTSTATUS it returns is RETVAL): the CANCEL is over. */
static __always_inline int smbd_cancel_end(struct pt_regs *regs)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	__u64 now = bpf_ktime_get_ns();
	struct smbd_req_start *p, s;

	p = bpf_map_lookup_elem(&smbd_cancels, &tid);
	if (!p)
		return 0;
	s = *p;
	bpf_map_delete_elem(&smbd_cancels, &tid);
	smbd_request_done(regs, &s, now, PT_REGS_RC(regs) & 0xffffffffu);
	return 0;
}

SEC("uprobe") int smbd_req_begin(struct pt_regs *r)
{
	return smbd_request_begin(r);
}
SEC("uprobe") int smbd_req_end(struct pt_regs *r)
{
	return smbd_request_end(r);
}
/* uprobe.multi, as umulti_entry in func.bpf.c */
SEC("kprobe.multi") int umulti_smbd_begin(struct pt_regs *r)
{
	return smbd_request_begin(r);
}
SEC("kprobe.multi") int umulti_smbd_end(struct pt_regs *r)
{
	return smbd_request_end(r);
}
SEC("uprobe") int smbd_cancel_dispatch(struct pt_regs *r)
{
	return smbd_cancel_begin(r);
}
SEC("uprobe") int smbd_cancel_dispatch_ret(struct pt_regs *r)
{
	return smbd_cancel_end(r);
}
SEC("kprobe.multi") int umulti_smbd_cancel_dispatch(struct pt_regs *r)
{
	return smbd_cancel_begin(r);
}
SEC("kprobe.multi") int umulti_smbd_cancel_dispatch_ret(struct pt_regs *r)
{
	return smbd_cancel_end(r);
}
