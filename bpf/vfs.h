/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* smb layer: the record of a cifs VFS operation (REC_VFS_CALL). */
#ifndef SMBLAT_VFS_H
#define SMBLAT_VFS_H

#include "smblat.h" /* the records' head, when this header comes first */

/* One SMB2 request a VFS call waited on. */
#define SMBLAT_WIRE_MAX 8
struct wire_req {
	uint32_t lat_us;
	uint16_t cmd; /* SMB2 command code */
	uint16_t pad;
};

/* The SMB2 requests a call waited on (the smb2 layer links them to it). */
struct rec_wire {
	uint32_t n; /* requests waited on, also those past req[] */
	uint32_t pad;
	uint64_t ns;             /* their total latency */
	struct smb2_split split; /* theirs, summed */
	struct wire_req req[SMBLAT_WIRE_MAX];
};

struct rec_vfs_call {
	struct rec_call c;
	uint32_t dev; /* RF_HAS_DEV: the share's super_block s_dev */
	uint32_t pad;
	char name[SMBLAT_NAME_LEN]; /* RF_HAS_NAME: the file's dentry name */
	struct rec_wire wire;
};

SMBLAT_SIZE(wire_req, 8);
SMBLAT_SIZE(rec_wire, 16 + 24 + 8 * SMBLAT_WIRE_MAX);
SMBLAT_AT(rec_vfs_call, dev, sizeof(struct rec_call));
SMBLAT_SIZE(rec_vfs_call, sizeof(struct rec_call) + 8 + SMBLAT_NAME_LEN + sizeof(struct rec_wire));

#endif
