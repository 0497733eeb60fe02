/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * SMB2 as the records carry it: protocol names (commands, MS-SMB2 2.2.1;
 * common NT status codes, MS-ERREF 2.3) and the SMB2 parts of records as
 * fields, shared by the layers whose records have them (smb, smb2, smbd).
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "bpf/smblat.h"

struct record;

/* "SMB2_CREATE" for 0x05; NULL for codes SMB2 does not define. */
const char *smb2_command_name(unsigned int cmd);

/* "STATUS_OBJECT_NAME_NOT_FOUND", else "0xC0000034"-style hex in buf. */
const char *smb2_status_name(uint32_t status, char *buf, size_t len);

/* SMB_SESSION_ID, SMB_TREE_ID: as the protocol's own tools print them. */
#define SMB2_SESSION_FMT "0x%016llx"
#define SMB2_TREE_FMT "0x%08x"

/* SMB_MID, SMB_SESSION_ID and SMB_TREE_ID or SMB_ASYNC_ID (RF_SMB2_ASYNC in flags). */
void smb2_decode_ids(const struct smb2_ids *ids, uint32_t flags, struct record *r);
/* SMB_CREDIT_CHARGE and SMB_CREDITS_REQUESTED of a request's header. */
void smb2_decode_credits(const struct smb2_ids *ids, struct record *r);
/*
 * A cifs request (REC_SMB2_REQ): its ids, SMB_COMPOUND, SMB_SERVER,
 * SMB_STATUS, credits and where its time went.
 */
int smb2_decode_request(const struct rec_smb2 *e, struct record *r);
/*
 * The requests a VFS call waited on: SMB2_REQUESTS, SMB2_REQUEST_COUNT,
 * SMB2_WIRE_US and their split summed; nothing when there were none.
 */
void smb2_decode_wire(const struct rec_wire *w, struct record *r);
