// SPDX-License-Identifier: GPL-2.0
/*
 * Block layer: each request timed from block_rq_issue (or block_rq_insert
 * with queue_time) to block_rq_complete. Requests complete in interrupt
 * context, on another task than the one that issued them, so in-flight
 * requests are keyed by their struct request in a hash, not in task storage.
 */
#include "core.bpf.h"

const volatile struct block_cfg block_cfg = {};

/* What the issue side saw; read back at completion. */
struct blk_start {
	__u64 insert_ns;            /* 0: not seen queued */
	__u64 issue_ns;             /* 0: queued, not issued yet */
	__u64 sector;
	__u32 bytes;
	__u32 pid;
	__u32 tid;
	__u32 uid;
	char comm[SMBLAT_COMM_LEN];
};

/*
 * LRU: a request freed without a completion event (queue teardown, a driver
 * that ends requests its own way) must not pin a slot for ever.
 */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 16384);
	__type(key, __u64);
	__type(value, struct blk_start);
} blk_inflight SEC(".maps");

/* enum block_op -> func id + 1; 0: the op is not traced. Set by the agent. */
struct {
	__uint(type, BPF_MAP_TYPE_ARRAY);
	__uint(max_entries, _BLOCK_OP_MAX);
	__type(key, __u32);
	__type(value, __u32);
} blk_ids SEC(".maps");

/* Before 5.16 the disk hung off the request itself. */
struct request___old {
	struct gendisk *rq_disk;
} __attribute__((preserve_access_index));

static __always_inline struct gendisk *rq_disk(struct request *rq)
{
	if (bpf_core_field_exists(((struct request_queue *)0)->disk))
		return BPF_CORE_READ(rq, q, disk);
	return BPF_CORE_READ((struct request___old *)rq, rq_disk);
}

static __always_inline bool disk_wanted(struct gendisk *disk)
{
	__u32 dev;

	if (!block_cfg.n_devs)
		return true;
	if (!disk)
		return false;
	dev = smblat_kdev(BPF_CORE_READ(disk, major), BPF_CORE_READ(disk, first_minor));
	for (int i = 0; i < BLOCK_MAX_DISKS; i++) {
		if (i >= block_cfg.n_devs)
			break;
		if (block_cfg.devs[i] == dev)
			return true;
	}
	return false;
}

#define BLOCK_OP_IS(op, name) \
	(bpf_core_enum_value_exists(enum req_op, REQ_OP_##name) && \
	 (op) == bpf_core_enum_value(enum req_op, REQ_OP_##name))

static __always_inline __u32 block_op(__u32 op)
{
	if (!bpf_core_type_exists(enum req_op)) {
		/* enum req_opf before 5.19: these four never moved */
		return op <= 3 ? op : BLOCK_OP_OTHER;
	}
	if (BLOCK_OP_IS(op, READ))
		return BLOCK_OP_READ;
	if (BLOCK_OP_IS(op, WRITE))
		return BLOCK_OP_WRITE;
	if (BLOCK_OP_IS(op, FLUSH))
		return BLOCK_OP_FLUSH;
	if (BLOCK_OP_IS(op, DISCARD))
		return BLOCK_OP_DISCARD;
	if (BLOCK_OP_IS(op, SECURE_ERASE))
		return BLOCK_OP_SECURE_ERASE;
	if (BLOCK_OP_IS(op, WRITE_ZEROES))
		return BLOCK_OP_WRITE_ZEROES;
	if (BLOCK_OP_IS(op, ZONE_APPEND))
		return BLOCK_OP_ZONE_APPEND;
	if (BLOCK_OP_IS(op, ZONE_OPEN))
		return BLOCK_OP_ZONE_OPEN;
	if (BLOCK_OP_IS(op, ZONE_CLOSE))
		return BLOCK_OP_ZONE_CLOSE;
	if (BLOCK_OP_IS(op, ZONE_FINISH))
		return BLOCK_OP_ZONE_FINISH;
	if (BLOCK_OP_IS(op, ZONE_RESET))
		return BLOCK_OP_ZONE_RESET;
	if (BLOCK_OP_IS(op, ZONE_RESET_ALL))
		return BLOCK_OP_ZONE_RESET_ALL;
	if (BLOCK_OP_IS(op, DRV_IN))
		return BLOCK_OP_DRV_IN;
	if (BLOCK_OP_IS(op, DRV_OUT))
		return BLOCK_OP_DRV_OUT;
	return BLOCK_OP_OTHER;
}

static __always_inline void blk_task(struct blk_start *s)
{
	__u64 pid_tgid = bpf_get_current_pid_tgid();

	s->pid = pid_tgid >> 32;
	s->tid = (__u32)pid_tgid;
	s->uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(s->comm, sizeof(s->comm));
}

/* The first task to see a request stands for it: the submitter when queued. */
static __always_inline int blk_insert(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct blk_start s = {};

	if (!task_wanted() || !disk_wanted(rq_disk(rq)))
		return 0;
	s.insert_ns = bpf_ktime_get_ns();
	blk_task(&s);
	bpf_map_update_elem(&blk_inflight, &key, &s, BPF_ANY);
	return 0;
}

static __always_inline int blk_issue(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct blk_start *p, s = {};

	p = bpf_map_lookup_elem(&blk_inflight, &key);
	if (p && !p->issue_ns) {
		p->sector = BPF_CORE_READ(rq, __sector);
		p->bytes = BPF_CORE_READ(rq, __data_len);
		p->issue_ns = bpf_ktime_get_ns();
		return 0;
	}
	/* Not queued (direct issue), or issued again after a requeue. */
	if (!task_wanted() || !disk_wanted(rq_disk(rq)))
		return 0;
	blk_task(&s);
	s.sector = BPF_CORE_READ(rq, __sector);
	s.bytes = BPF_CORE_READ(rq, __data_len);
	s.issue_ns = bpf_ktime_get_ns();
	bpf_map_update_elem(&blk_inflight, &key, &s, BPF_ANY);
	return 0;
}

static __always_inline void blk_fill(struct event *e, struct blk_start *s, struct request *rq,
				     __u32 id, __u32 op, __u64 lat)
{
	struct gendisk *disk = rq_disk(rq);

	__builtin_memset(e, 0, offsetof(struct event, kstack));
	e->end_ns = bpf_ktime_get_boot_ns();
	e->latency_ns = lat;
	e->func_id = id;
	e->pid = s->pid;
	e->tid = s->tid;
	e->uid = s->uid;
	__builtin_memcpy(e->comm, s->comm, sizeof(e->comm));
	e->flags = EF_BLOCK;
	if (block_cfg.queue_time && s->insert_ns) {
		e->flags |= EF_BLOCK_QUEUE;
		e->blk_queue_ns = s->issue_ns - s->insert_ns;
	}
	e->blk_sector = s->sector;
	e->blk_bytes = s->bytes;
	e->blk_op = op;
	if (disk)
		bpf_probe_read_kernel_str(e->blk_disk, sizeof(e->blk_disk), disk->disk_name);
	/* Completion runs in interrupt context: no stack says anything about the I/O. */
	e->kstack_sz = 0;
	e->ustack_sz = 0;
}

static __always_inline int blk_complete(struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), lat;
	struct func_cfg *fc;
	struct blk_start *s;
	struct event *e;
	__u32 op, idx, *idp, id;
	bool slow;

	s = bpf_map_lookup_elem(&blk_inflight, &key);
	if (!s)
		return 0;
	if (!s->issue_ns) {
		/* Completed without an issue event: nothing to time. */
		bpf_map_delete_elem(&blk_inflight, &key);
		return 0;
	}
	op = BPF_CORE_READ(rq, cmd_flags) & BLOCK_REQ_OP_MASK;
	idx = block_op(op);
	idp = bpf_map_lookup_elem(&blk_ids, &idx);
	if (!idp || !*idp)
		goto out;
	id = *idp - 1;
	fc = bpf_map_lookup_elem(&funcs, &id);
	if (!fc || !(fc->flags & FF_ENABLED))
		goto out;
	lat = now - (block_cfg.queue_time && s->insert_ns ? s->insert_ns : s->issue_ns);
	slow = lat >= fc->threshold_ns;
	account(id, lat, slow);
	if (!slow)
		goto out;
	e = bpf_ringbuf_reserve(&events, sizeof(*e), 0);
	if (!e) {
		account_lost(id);
		goto out;
	}
	blk_fill(e, s, rq, id, op, lat);
	bpf_ringbuf_submit(e, 0);
out:
	bpf_map_delete_elem(&blk_inflight, &key);
	return 0;
}

/* block_rq_issue/insert lost their request_queue argument in 5.11: rq_arg says where rq is. */
static __always_inline struct request *blk_rq_arg(__u64 *ctx)
{
	return (struct request *)(block_cfg.rq_arg ? ctx[1] : ctx[0]);
}

static __always_inline int blk_insert_tp(__u64 *ctx)
{
	return blk_insert(blk_rq_arg(ctx));
}

static __always_inline int blk_issue_tp(__u64 *ctx)
{
	return blk_issue(blk_rq_arg(ctx));
}

static __always_inline int blk_complete_tp(__u64 *ctx)
{
	return blk_complete((struct request *)ctx[0]);
}

TRACEPOINT_PROGRAMS(block_rq_insert, blk_insert, blk_insert_tp)
TRACEPOINT_PROGRAMS(block_rq_issue, blk_issue, blk_issue_tp)
TRACEPOINT_PROGRAMS(block_rq_complete, blk_complete, blk_complete_tp)
