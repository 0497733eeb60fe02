/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Block layer types shared between the BPF programs and the agent. */
#ifndef SMBLAT_BLOCK_H
#define SMBLAT_BLOCK_H

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

#endif
