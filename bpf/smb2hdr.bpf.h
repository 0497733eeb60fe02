/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMB2 header (MS-SMB2 2.2.1) as the client sends and the server
 * receives it: wire offsets, the same on every kernel and every Samba. Both
 * the smb2 unit (cifs, kernel memory) and the smbd unit (user memory) read
 * the ids from it, so that the two sides of one request carry the same ones.
 */
#ifndef SMBLAT_SMB2HDR_BPF_H
#define SMBLAT_SMB2HDR_BPF_H

#include "core.bpf.h"

#define SMB2_PROTO_ID 0x424d53feu /* "\xfeSMB" read as little endian */
#define SMB2_HDR_WORDS 12         /* up to SessionId: 48 bytes */
#define SMB2_FLAGS_ASYNC 0x2u
#define SMB2_FLAGS_RELATED 0x4u

/* What a header says about its request, in the event's terms. */
struct smb2_ids {
	__u64 mid;
	__u64 session;
	__u64 async_id;
	__u32 tree;
	__u32 status;
	__u32 flags; /* EF_SMB2_COMPOUND, EF_SMB2_ASYNC */
	__u16 cmd;
	__u16 credit_charge;
	__u16 credits; /* CreditRequest, or CreditResponse in a response */
	__u16 pad;
};

/* Parses the words of a header read from memory; false when it is none. */
static __always_inline bool smb2_hdr_parse(const __u32 *h, struct smb2_ids *ids)
{
	if (h[0] != SMB2_PROTO_ID)
		return false;
	ids->credit_charge = h[1] >> 16;
	ids->status = h[2];
	ids->cmd = h[3] & 0xffff;
	ids->credits = h[3] >> 16;
	ids->mid = h[6] | (__u64)h[7] << 32;
	ids->session = h[10] | (__u64)h[11] << 32;
	ids->flags = 0;
	if (h[5] || (h[4] & SMB2_FLAGS_RELATED))
		ids->flags |= EF_SMB2_COMPOUND;
	if (h[4] & SMB2_FLAGS_ASYNC) {
		ids->async_id = h[8] | (__u64)h[9] << 32;
		ids->tree = 0;
		ids->flags |= EF_SMB2_ASYNC;
	} else {
		ids->async_id = 0;
		ids->tree = h[9];
	}
	return true;
}

/* The header ids into an event (EF_SMB2 and what the header had). */
static __always_inline void smb2_ids_fill(struct event *e, const struct smb2_ids *ids)
{
	e->smb_mid = ids->mid;
	e->smb_session = ids->session;
	e->smb_async_id = ids->async_id;
	e->smb_tree = ids->tree;
	e->smb_cmd = ids->cmd;
	e->smb_credit_charge = ids->credit_charge;
	e->smb_credits_requested = ids->credits;
	e->flags |= EF_SMB2 | ids->flags;
}

/* The smb2 parts of an event nobody filled: decoders read them only by their flags. */
static __always_inline void smb2_event_clear(struct event *e)
{
	e->smb_mid = 0;
	e->smb_session = 0;
	e->smb_async_id = 0;
	e->smb_tree = 0;
	e->smb_status = 0;
	e->smb_cmd = 0;
	e->smb_credit_charge = 0;
	e->smb_credits_requested = 0;
	e->smb_credits_granted = 0;
	e->smb_event = 0;
	e->smb_conn_id = 0;
	for (int i = 0; i < 4; i++)
		e->smb_event_val[i] = 0;
	e->smb_split.send_ns = 0;
	e->smb_split.rtt_ns = 0;
	e->smb_split.wake_ns = 0;
	e->smb_server[0] = 0;
}

#endif
