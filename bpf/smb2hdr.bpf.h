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
		ids->flags |= RF_SMB2_COMPOUND;
	if (h[4] & SMB2_FLAGS_ASYNC) {
		ids->async_id = h[8] | (__u64)h[9] << 32;
		ids->tree = 0;
		ids->flags |= RF_SMB2_ASYNC;
	} else {
		ids->async_id = 0;
		ids->tree = h[9];
	}
	return true;
}

#endif
