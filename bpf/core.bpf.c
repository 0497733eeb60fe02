// SPDX-License-Identifier: GPL-2.0
/* The one definition of what every unit shares besides the weak maps. */
#include "core.bpf.h"
#include "view.h"

char LICENSE[] SEC("license") = "GPL";

const volatile struct smblat_cfg cfg = {};

__u64 epoch = 1;

/* Where the search for a free user file index starts (ustack.bpf.h); 0 is no index. */
__u32 ufile_hint = 1;

/* Views the agent switches on and off (view.bpf.h). */
struct view_ctl views = {};

/*
 * The types of the ring buffer's records, which no map names: held here
 * (zero elements each: 8 bytes in all, as the kernel takes no variable of
 * size 0 in an object's BTF) so that the object's BTF has them, for
 * tests/test-records.c to compare with the agent's layout.
 */
struct {
	__u64 unused;
	struct rec_call call[0];
	struct rec_vfs_call vfs_call[0];
	struct rec_smb2 smb2[0];
	struct rec_block block[0];
	struct rec_smbd_req smbd_req[0];
	struct rec_smbd_exit smbd_exit[0];
	struct rec_smbd_break smbd_break[0];
} record_types __weak;
