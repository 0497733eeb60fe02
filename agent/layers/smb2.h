/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The smb2 layer: SMB2 requests of the cifs client, timed through its mid hooks. */
#pragma once

#include <stdint.h>
#include <bpf/btf.h>

#include "bpf/smblat.h"

/*
 * Which argument of symbol holds what hook h needs: the SMB2 header at
 * allocation, else the mid or (*kref set) its refcount. -ENOENT: no such
 * function in btf; -EINVAL: a prototype without such an argument.
 */
int smb2_hook_arg(const struct btf *btf, enum smb2_hook h, const char *symbol, uint8_t *arg, uint8_t *kref);

struct record;
struct func_table;

/* The func of an smb2 FUNCTION and symbol, added when new: ids are not reused. NULL: no room. */
struct func *smb2_func_of(struct func_table *t, const char *name, const char *symbol);

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
