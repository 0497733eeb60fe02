/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Which kernel function serves which cifs VFS operation on the running
 * kernel: read from the live ops tables, not from a list that ages.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <bpf/btf.h>

#include "base/func.h"
#include "symbols/ksyms.h"

struct cifs_op {
	char *name;   /* INODE_OP_UNLINK */
	char *symbol; /* cifs_unlink */
	char *module; /* "cifs", "netfs", NULL for vmlinux */
	enum op_group group;
	bool generic; /* shared with other file systems: check the superblock */
	/*
	 * vmlinux BTF id of the ops member's prototype: the function's
	 * arguments where its module has no BTF of its own.
	 */
	uint32_t proto;
};

/* Reads len bytes of kernel memory at addr. */
typedef int (*kread_fn)(void *ctx, uint64_t addr, void *buf, size_t len);

/* FUNCTION name of an ops member: (GROUP_INODE, "rename", false) -> INODE_OP_RENAME2. */
int cifsops_op_name(enum op_group g, const char *member, bool dir, char *buf, size_t len);

/* The op group of FUNCTION name by its prefix (INODE_OP_, FILE_, ...); GROUP_NONE if none. */
enum op_group cifsops_name_group(const char *name);

/* FUNCTION names operators expect; those not resolved are reported as missing. */
extern const char *const cifsops_known[];

/*
 * Reads every cifs ops table found in ks through rd, using the member layout
 * of vmlinux BTF. -ENOENT when the cifs module is not loaded.
 */
int cifsops_resolve(const struct ksyms *ks, const struct btf *vmlinux, kread_fn rd, void *rdctx,
		    struct cifs_op **ops, size_t *n);
void cifsops_free(struct cifs_op *ops, size_t n);
