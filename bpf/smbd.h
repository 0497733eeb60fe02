/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* smbd layer: where Samba keeps the inbound SMB2 header of a request. */
#ifndef SMBLAT_SMBD_H
#define SMBLAT_SMBD_H

/*
 * struct smbd_smb2_request has no BTF or stable layout; the agent reads
 * the offsets of current_idx and in.vector from the library's own code
 * (agent/layers/smbdreq.c). The header of the request being processed is
 * in.vector[current_idx + 1].iov_base.
 */
struct smbd_hdr_layout {
	uint32_t on;
	uint32_t current_idx;       /* offset of int current_idx */
	uint32_t in_vector;         /* offset of struct iovec *in.vector */
	uint32_t pad;
};

#endif
