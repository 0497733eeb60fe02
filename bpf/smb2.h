/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* smb2 layer: what the agent tells the BPF side about the mid hooks it attached. */
#ifndef SMBLAT_SMB2_H
#define SMBLAT_SMB2_H

#include "smblat.h" /* the records' head, when this header comes first */

#define SMB2_NCMD 19 /* SMB2_NEGOTIATE (0) .. SMB2_OPLOCK_BREAK (0x12) */
#define SMB2_NO_HOOK 0xffffffffu

#define SMB2_FILTER_MAX 4 /* servers and sessions a filter names */

/* SMB2 command codes (MS-SMB2 2.2.1) the programs act on. */
enum smb2_command {
	SMB2_CMD_SESSION_SETUP = 0x01,
	SMB2_CMD_LOGOFF = 0x02,
	SMB2_CMD_TREE_CONNECT = 0x03,
	SMB2_CMD_CANCEL = 0x0c,
	SMB2_CMD_OPLOCK_BREAK = 0x12,
};

/* Connection events (REC_SMB_EVENT), each its own FUNCTION and MESSAGE_ID. */
enum smb_event {
	SMB_EV_RECONNECT,       /* cifs tracepoint smb3_reconnect */
	SMB_EV_SESSION_SETUP,   /* an SMB2_SESSION_SETUP request succeeded */
	SMB_EV_LOGOFF,          /* an SMB2_LOGOFF request completed */
	SMB_EV_SESSION_EXPIRED, /* cifs tracepoint smb3_ses_expired */
	SMB_EV_TREE_CONNECT,    /* cifs tracepoint smb3_tcon */
	SMB_EV_CREDIT_STALL,    /* cifs tracepoints smb3_credit_timeout, smb3_insufficient_credits */
	SMB_EV_SLOW_RESPONSE,   /* cifs tracepoint smb3_slow_rsp */
	_SMB_EV_MAX,
};

/*
 * Where an SMB2 request's time went, in ns: before it was on the wire
 * (credits, the connection's send lock, the send itself), until its
 * response arrived (network and server), until the task waiting for it ran
 * again. A VFS call's record sums those of the requests it waited on.
 */
struct smb2_split {
	uint64_t send_ns;
	uint64_t rtt_ns;
	uint64_t wake_ns;
};
SMBLAT_SIZE(smb2_split, 24);

/* What an SMB2 header says about its request (MS-SMB2 2.2.1), client or server side. */
struct smb2_ids {
	uint64_t mid;
	uint64_t session;
	uint64_t async_id; /* RF_SMB2_ASYNC */
	uint32_t tree;
	uint32_t status;
	uint32_t flags; /* RF_SMB2_COMPOUND, RF_SMB2_ASYNC: go to the record's flags */
	uint16_t cmd;
	uint16_t credit_charge;
	uint16_t credits; /* CreditRequest, or CreditResponse in a response */
	uint16_t pad;
};

/* In flight (smb2_reqs, by mid pointer): an SMB2 request of cifs. */
struct smb2_req {
	uint64_t start_ns; /* first: the agent sweeps by it; submitted, else allocated */
	uint64_t alloc_ns;
	uint64_t sent_ns; /* 0: not seen */
	uint64_t recv_ns; /* 0: not seen */
	struct smb2_ids ids;
	uint32_t pid;
	uint32_t tid;
	uint32_t uid;
	uint32_t dev;
	uint32_t flags; /* RF_* of its record */
	uint16_t granted;
	uint16_t pad;
	char comm[SMBLAT_COMM_LEN];
	char name[SMBLAT_NAME_LEN];
	uint64_t server; /* struct TCP_Server_Info *: the mid's, else the allocation's argument */
};
SMBLAT_SIZE(smb2_req, 192);
INFLIGHT_VALUE(smb2_req);

/*
 * REC_SMB2_REQ: a cifs SMB2 request (its split set); REC_SMB_EVENT: a
 * connection event (event and event_val set, the ids as far as known).
 */
struct rec_smb2 {
	struct rec_head h;
	struct smb2_ids ids;
	uint64_t conn_id;         /* the kernel's connection id */
	uint32_t dev;             /* RF_HAS_DEV: the share's super_block s_dev */
	uint16_t credits_granted; /* RF_SMB2_GRANTED */
	uint16_t event;           /* enum smb_event */
	int32_t event_val[4]; /* credit stalls: credits, needed, in flight, none in flight; tree connect: rc */
	struct smb2_split split;
	char name[SMBLAT_NAME_LEN];   /* the file (RF_HAS_NAME), or a tree connect's share */
	char server[SMBLAT_NAME_LEN]; /* the server's host name */
};

SMBLAT_SIZE(smb2_ids, 48);
SMBLAT_SIZE(rec_smb2, 56 + 48 + 8 + 8 + 16 + 24 + 2 * SMBLAT_NAME_LEN);

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
SMBLAT_SIZE(smb2_ctl, 464);

#endif
