/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* smb2 layer: what the agent tells the BPF side about the mid hooks it attached. */
#ifndef SMBLAT_SMB2_H
#define SMBLAT_SMB2_H

#define SMB2_NCMD 19 /* SMB2_NEGOTIATE (0) .. SMB2_OPLOCK_BREAK (0x12) */
#define SMB2_NO_HOOK 0xffffffffu

#define SMB2_FILTER_MAX 4 /* servers and sessions a filter names */

/*
 * Where a request's mid (struct mid_q_entry) is seen: allocated (return
 * value), answered (response header in resp_buf), deleted by the task that
 * waited for it, freed (last reference). Requests nobody waits for end at
 * the free. Optional: submitted (before the wait for credits; synchronous
 * and asynchronous requests have a function each) and sent (the return of
 * the send of everything allocated since the submission).
 */
enum smb2_hook {
	SMB2_HOOK_ALLOC,
	SMB2_HOOK_RESPONSE,
	SMB2_HOOK_DONE,
	SMB2_HOOK_FREE,
	SMB2_HOOK_SUBMIT,
	SMB2_HOOK_SUBMIT_ASYNC,
	SMB2_HOOK_SENT,
	_SMB2_HOOK_MAX,
};

struct smb2_ctl {
	uint32_t on;
	uint32_t hook_id[_SMB2_HOOK_MAX];  /* func ids, SMB2_NO_HOOK when not attached */
	uint8_t hook_arg[_SMB2_HOOK_MAX];  /* argument holding the mid (the header at alloc) */
	uint8_t hook_kref[_SMB2_HOOK_MAX]; /* that argument is &mid->refcount */
	uint8_t alloc_server_arg;          /* the allocation's server argument + 1 (mids without */
	uint8_t pad;                       /* a server pointer, 7.x); 0: none */
	uint32_t cmd_id[SMB2_NCMD];        /* func id of SMB2_<COMMAND> */
	uint32_t event_id[_SMB_EV_MAX];    /* func id of each connection event, SMB2_NO_HOOK: off */
	uint64_t ns_per_jiffy;             /* mid timestamps (CONFIG_CIFS_STATS2) in ns; 0: unused */
	uint32_t keep_freed;               /* smb3_slow_rsp attached: what __release_mid saw, kept */
	/* only requests and events of these servers and sessions (none given: all) */
	uint32_t n_servers;
	uint32_t n_sessions;
	uint32_t pad2;
	char servers[SMB2_FILTER_MAX][SMBLAT_NAME_LEN];
	uint64_t sessions[SMB2_FILTER_MAX];
};

#endif
