/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A slow call decoded from the ring buffer, ready for the sinks. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/func.h"

struct record {
	const struct func *func;
	uint64_t end_realtime_us;   /* end of the call, CLOCK_REALTIME */
	uint64_t latency_ns;
	uint64_t threshold_ns;
	uint32_t pid;               /* process (tgid) */
	uint32_t tid;
	uint32_t uid;
	char comm[SMBLAT_COMM_LEN + 1];
	const char *share;          /* \\server\share, or NULL */
	const char *file;           /* dentry name, or NULL */
	bool has_ret;
	int64_t ret;                /* raw return value */
	int err;                    /* positive errno when the call failed, else 0 */
	unsigned int nargs;
	uint64_t args[SMBLAT_MAX_ARGS];
	char *stack;                /* symbolized frames, innermost first, '\n' separated; or NULL */
	char *stack_folded;         /* outer;...;inner, or NULL */
	/* block layer */
	bool has_block;
	bool has_queue;
	bool has_sector;            /* flushes have none */
	char disk[BLOCK_DISK_LEN + 1];
	char op[16];                /* WRITE, READ, ... or the kernel's number */
	uint64_t bytes;
	uint64_t sector;
	uint64_t queue_ns;          /* insert to issue, when has_queue */
	/* smb2 layer: the request of an SMB2_* event, the requests a call waited on */
	bool smb2;                  /* smb_* below are set */
	bool smb_compound;
	bool smb_has_status;
	uint16_t smb_cmd;
	uint32_t smb_status;
	uint64_t smb_mid;
	char smb_server[SMBLAT_NAME_LEN + 1];
	uint32_t wire_n;            /* requests waited on; wire[] holds the first ones */
	uint64_t wire_ns;
	struct wire_req wire[SMBLAT_WIRE_MAX];
};
