/* SPDX-License-Identifier: GPL-2.0 */
/*
 * smb2 layer: connection events from cifs tracepoints (raw: the module may
 * come and go). Part of smb2.bpf.c, included at its end: the events read
 * its filters, its per-connection ids and what its release hook kept.
 */
#ifndef SMBLAT_SMBEVENT_BPF_H
#define SMBLAT_SMBEVENT_BPF_H

/* An event of kind k with the task that fired it, or NULL (counted as lost). */
static __always_inline struct rec_smb2 *smb_event_new(enum smb_event k)
{
	__u32 id = smb2_event_id(k);
	struct rec_smb2 *e;

	if (!smb2.on || id == SMB2_NO_HOOK)
		return NULL;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		return NULL;
	}
	rec_head_fill(&e->h, REC_SMB_EVENT, id, 0);
	__builtin_memset(&e->ids, 0, sizeof(e->ids));
	e->conn_id = 0;
	e->dev = 0;
	e->credits_granted = 0;
	e->event = k;
	for (int i = 0; i < 4; i++)
		e->event_val[i] = 0;
	e->split.send_ns = 0;
	e->split.rtt_ns = 0;
	e->split.wake_ns = 0;
	e->name[0] = 0;
	e->server[0] = 0;
	return e;
}

/* Events about a server by name: its connection id, the host, the current mid. */
static __always_inline struct rec_smb2 *smb_event_server(enum smb_event k, const __u64 *ctx)
{
	char host[SMBLAT_NAME_LEN] = {};
	struct smb2_conn *c;
	struct rec_smb2 *e;
	__u64 conn;

	if (bpf_probe_read_kernel_str(host, sizeof(host), (void *)ctx[2]) < 0)
		host[0] = 0;
	if (!smb2_server_wanted(host))
		return NULL;
	e = smb_event_new(k);
	if (!e)
		return NULL;
	e->ids.mid = ctx[0];
	e->conn_id = ctx[1];
	__builtin_memcpy(e->server, host, sizeof(host));
	conn = ctx[1]; /* keys from the stack: older kernels take no ring buffer memory */
	c = bpf_map_lookup_elem(&smb2_conns, &conn);
	if (c) {
		e->ids.session = c->session;
		e->ids.tree = c->tree;
		e->dev = c->dev;
		if (c->dev)
			e->h.flags |= RF_HAS_DEV;
	}
	return e;
}

/* smb3_reconnect(currmid, conn_id, hostname) */
SEC("raw_tp/smb3_reconnect")
int smb2_tp_reconnect(__u64 *ctx)
{
	struct rec_smb2 *e = smb_event_server(SMB_EV_RECONNECT, ctx);

	if (e)
		bpf_ringbuf_submit(e, 0);
	return 0;
}

/* smb3_credit_timeout / smb3_insufficient_credits(currmid, conn_id, hostname, credits, needed, in_flight) */
static __always_inline int smb2_credit_stall(__u64 *ctx, bool none_in_flight)
{
	struct rec_smb2 *e = smb_event_server(SMB_EV_CREDIT_STALL, ctx);

	if (!e)
		return 0;
	e->event_val[0] = (int)ctx[3];
	e->event_val[1] = (int)ctx[4];
	e->event_val[2] = (int)ctx[5];
	e->event_val[3] = none_in_flight;
	bpf_ringbuf_submit(e, 0);
	return 0;
}

SEC("raw_tp/smb3_credit_timeout") int smb2_tp_credit_timeout(__u64 *ctx)
{
	return smb2_credit_stall(ctx, false);
}
SEC("raw_tp/smb3_insufficient_credits") int smb2_tp_credit_short(__u64 *ctx)
{
	return smb2_credit_stall(ctx, true);
}

/* smb3_ses_expired(tid, sesid, cmd, mid) */
SEC("raw_tp/smb3_ses_expired")
int smb2_tp_ses_expired(__u64 *ctx)
{
	struct rec_smb2 *e;

	if (!smb2_session_wanted(ctx[1]))
		return 0;
	e = smb_event_new(SMB_EV_SESSION_EXPIRED);
	if (!e)
		return 0;
	e->ids.tree = (__u32)ctx[0];
	e->ids.session = ctx[1];
	e->ids.cmd = (__u16)ctx[2];
	e->ids.mid = ctx[3];
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/* smb3_tcon(xid, tid, sesid, unc_name, rc): a share (tree) connected, or not. */
SEC("raw_tp/smb3_tcon")
int smb2_tp_tcon(__u64 *ctx)
{
	struct rec_smb2 *e;

	if (!smb2_session_wanted(ctx[2]))
		return 0;
	e = smb_event_new(SMB_EV_TREE_CONNECT);
	if (!e)
		return 0;
	e->ids.tree = (__u32)ctx[1];
	e->ids.session = ctx[2];
	e->ids.cmd = SMB2_CMD_TREE_CONNECT;
	/* the share's UNC name, read by the decoder from name: it is no file */
	bpf_probe_read_kernel_str(e->name, sizeof(e->name), (void *)ctx[3]);
	e->event_val[0] = (int)ctx[4];
	bpf_ringbuf_submit(e, 0);
	return 0;
}

/*
 * smb3_slow_rsp(cmd, mid, pid, when_sent, when_received): cifs's own slow
 * response (over slow_rsp_threshold), fired inside __release_mid, whose
 * hook kept what it knew of the request.
 */
SEC("raw_tp/smb3_slow_rsp")
int smb2_tp_slow_rsp(__u64 *ctx)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct smb2_freed *f = bpf_map_lookup_elem(&smb2_freeing, &tid);
	struct rec_smb2 *e;

	if (f && f->r.ids.mid != ctx[1])
		f = NULL;
	/* a request the filters left out was never kept */
	if (!f && (smb2.n_servers || smb2.n_sessions))
		return 0;
	e = smb_event_new(SMB_EV_SLOW_RESPONSE);
	if (!e)
		return 0;
	if (f) {
		smb2_fill(e, REC_SMB_EVENT, &f->r, e->h.func_id, bpf_ktime_get_ns() - f->r.start_ns);
		e->event = SMB_EV_SLOW_RESPONSE;
	} else {
		e->h.tid = (__u32)ctx[2]; /* the mid's creator */
	}
	e->ids.cmd = (__u16)ctx[0];
	e->ids.mid = ctx[1];
	bpf_ringbuf_submit(e, 0);
	return 0;
}

#endif
