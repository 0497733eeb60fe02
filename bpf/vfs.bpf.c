// SPDX-License-Identifier: GPL-2.0
/*
 * The smb layer's call programs: cifs VFS operations and the shared
 * helpers that serve them, counted only on SMB superblocks, with the file,
 * the share and the SMB2 requests each call waited on.
 */
#include "call.bpf.h"

CALL_PROGRAMS(vfs_fentry, vfs_fexit, vfs_kprobe, vfs_kretprobe, vfs_kmulti, vfs_kretmulti, true)
