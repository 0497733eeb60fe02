/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Block layer types shared between the BPF programs and the agent. */
#ifndef SMBLAT_BLOCK_H
#define SMBLAT_BLOCK_H

#include "smblat.h" /* the records' head, when this header comes first */

#define BLOCK_MAX_DISKS 16
#define BLOCK_DISK_LEN 32       /* struct gendisk disk_name */
#define BLOCK_REQ_OP_MASK 0xffu /* (1 << REQ_OP_BITS) - 1, unchanged since 4.10 */

/*
 * Our own op numbering: the kernel's REQ_OP_* values move between releases
 * (REQ_OP_ZONE_APPEND was 13, then 7), so BPF maps them here through CO-RE.
 */
enum block_op {
	BLOCK_OP_READ,
	BLOCK_OP_WRITE,
	BLOCK_OP_FLUSH,
	BLOCK_OP_DISCARD,
	BLOCK_OP_SECURE_ERASE,
	BLOCK_OP_WRITE_ZEROES,
	BLOCK_OP_ZONE_APPEND,
	BLOCK_OP_ZONE_OPEN,
	BLOCK_OP_ZONE_CLOSE,
	BLOCK_OP_ZONE_FINISH,
	BLOCK_OP_ZONE_RESET,
	BLOCK_OP_ZONE_RESET_ALL,
	BLOCK_OP_DRV_IN,
	BLOCK_OP_DRV_OUT,
	BLOCK_OP_OTHER, /* anything this build does not know by name */
	_BLOCK_OP_MAX,
};

/* Read-only block configuration, set between __open() and __load(). */
struct block_cfg {
	uint32_t rq_arg;                /* ctx index of struct request in block_rq_issue/insert */
	uint32_t queue_time;            /* latency from block_rq_insert when seen */
	uint32_t n_devs;                /* 0: every disk */
	uint32_t devs[BLOCK_MAX_DISKS]; /* kernel dev_t: major << 20 | minor */
};
SMBLAT_SIZE(block_cfg, 76);

/*
 * In flight (blk_inflight, by struct request): what the start of a request
 * saw, read back at completion, and by the agent's sweep of requests that
 * never completed.
 */
enum blk_state {
	BLK_QUEUED,   /* inserted; may yet be merged into another and freed */
	BLK_ISSUED,   /* given to the driver: it completes */
	BLK_FLUSHING, /* a write that only flushes: it completes */
	BLK_REQUEUED, /* back from the driver, to be queued again */
};

/* What the start of a request saw; read back at completion. */
struct blk_start {
	uint64_t start_ns;  /* first seen: the agent sweeps by it (probes/inflight.h) */
	uint64_t insert_ns; /* 0: not seen queued */
	uint64_t issue_ns;  /* 0: not issued (yet, or ever: a write that only flushes) */
	uint64_t sector;
	uint32_t bytes;
	uint32_t func_id; /* of its op when first seen */
	uint32_t pid;
	uint32_t tid;
	uint32_t uid;
	uint32_t state; /* enum blk_state */
	char comm[SMBLAT_COMM_LEN];
};
SMBLAT_SIZE(blk_start, 72);
INFLIGHT_VALUE(blk_start);

/* REC_BLOCK: a block I/O request, as issued (block layer). */
struct rec_block {
	struct rec_head h;
	uint64_t sector;   /* UINT64_MAX: a request without data (a flush) */
	uint64_t queue_ns; /* insert to issue, with RF_BLOCK_QUEUE */
	uint32_t bytes;
	uint32_t op; /* cmd_flags & REQ_OP_MASK, the kernel's numbering */
	char disk[BLOCK_DISK_LEN];
};

SMBLAT_SIZE(rec_block, 56 + 24 + BLOCK_DISK_LEN);

#endif
