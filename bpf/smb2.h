/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* smb2 layer: what the agent tells the BPF side about the mid hooks it attached. */
#ifndef SMBLAT_SMB2_H
#define SMBLAT_SMB2_H

#define SMB2_NCMD 19              /* SMB2_NEGOTIATE (0) .. SMB2_OPLOCK_BREAK (0x12) */
#define SMB2_NO_HOOK 0xffffffffu

/*
 * Where a request's mid (struct mid_q_entry) is seen: allocated (return
 * value), answered (response header in resp_buf), deleted by the task that
 * waited for it, freed (last reference). Requests nobody waits for end at
 * the free.
 */
enum smb2_hook {
	SMB2_HOOK_ALLOC,
	SMB2_HOOK_RESPONSE,
	SMB2_HOOK_DONE,
	SMB2_HOOK_FREE,
	_SMB2_HOOK_MAX,
};

struct smb2_ctl {
	uint32_t on;
	uint32_t hook_id[_SMB2_HOOK_MAX];   /* func ids, SMB2_NO_HOOK when not attached */
	uint8_t hook_arg[_SMB2_HOOK_MAX];   /* argument holding the mid (the header at alloc) */
	uint8_t hook_kref[_SMB2_HOOK_MAX];  /* that argument is &mid->refcount */
	uint32_t cmd_id[SMB2_NCMD];         /* func id of SMB2_<COMMAND> */
};

#endif
