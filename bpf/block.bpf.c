// SPDX-License-Identifier: GPL-2.0
/*
 * Block layer: each request timed from block_rq_issue (or block_rq_insert
 * with queue_time) to block_rq_complete; one never issued (a write that only
 * flushes) from block_io_start. Requests complete in interrupt
 * context, on another task than the one that issued them, so in-flight
 * requests are keyed by their struct request in a hash, not in task storage.
 */
#include "core.bpf.h"

const volatile struct block_cfg block_cfg = {};

/*
 * A plain hash, not an LRU: an LRU evicts live entries before it is full
 * (its free entries sit in per-CPU lists), and a request whose start was
 * evicted went by unseen. Here an entry goes when its request completes,
 * or when the agent sweeps one older than requests live (a request freed
 * without completing); a start that finds the table full is counted lost.
 */
struct {
	__uint(type, BPF_MAP_TYPE_HASH);
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

#define BLOCK_OP_IS(op, name)                                      \
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

/* The func id timing rq's op, or -1 when that op is not traced. */
static __always_inline long blk_op_id(struct request *rq)
{
	__u32 idx = block_op(BPF_CORE_READ(rq, cmd_flags) & BLOCK_REQ_OP_MASK), *idp, id;
	struct func_cfg *fc;

	idp = bpf_map_lookup_elem(&blk_ids, &idx);
	if (!idp || !*idp)
		return -1;
	id = *idp - 1;
	fc = bpf_map_lookup_elem(&funcs, &id);
	return fc && (fc->flags & FF_ENABLED) ? id : -1;
}

/*
 * The first task to see a request stands for it: the submitter when queued.
 * The agent is not left out here as elsewhere: starts seen in interrupt
 * context run on whichever task was interrupted, often the agent busy with
 * the events, and its own few requests feed nothing back.
 */
static __always_inline bool blk_wanted(struct request *rq)
{
	return task_selected() && disk_wanted(rq_disk(rq));
}

/*
 * An entry left by an earlier life of this struct request that was bound to
 * complete: its completion went by without our program. Linux 6.18 was
 * seen to do that, now and then, for block_rq_complete in a softirq (no
 * recursion miss counted, ftrace saw the event); the request is counted
 * lost when its struct comes back into use.
 */
static __always_inline void blk_missed(__u64 key)
{
	struct blk_start *old = bpf_map_lookup_elem(&blk_inflight, &key);

	if (old && (old->state == BLK_ISSUED || old->state == BLK_FLUSHING))
		account_untimed(old->func_id);
}

/* A new entry for rq, seen first now; a full table counts the request lost. */
static __always_inline void blk_track(struct request *rq, __u64 now, enum blk_state state)
{
	__u64 key = (__u64)rq, pid_tgid = bpf_get_current_pid_tgid();
	struct blk_start s = {};
	long id;

	blk_missed(key);
	id = blk_op_id(rq);
	if (id < 0 || !blk_wanted(rq)) {
		bpf_map_delete_elem(&blk_inflight, &key);
		return;
	}
	s.state = state;
	s.start_ns = now;
	s.insert_ns = state == BLK_QUEUED ? now : 0;
	s.issue_ns = state == BLK_ISSUED ? now : 0;
	s.sector = BPF_CORE_READ(rq, __sector);
	s.bytes = BPF_CORE_READ(rq, __data_len);
	s.func_id = id;
	s.pid = pid_tgid >> 32;
	s.tid = (__u32)pid_tgid;
	s.uid = (__u32)bpf_get_current_uid_gid();
	bpf_get_current_comm(s.comm, sizeof(s.comm));
	if (bpf_map_update_elem(&blk_inflight, &key, &s, BPF_ANY) < 0)
		account_untimed(id);
}

/*
 * A write that only flushes (fsync of a block device: no data, PREFLUSH)
 * is never inserted nor issued itself: the flush machinery runs a flush
 * request for it and ends it. The kernel counts it as a write; so do we,
 * from block_io_start (6.5 on), where every request begins.
 */
static __always_inline int blk_io_start(struct request *rq)
{
	__u32 flags;

	if (!bpf_core_enum_value_exists(enum req_flag_bits, __REQ_PREFLUSH))
		return 0;
	flags = BPF_CORE_READ(rq, cmd_flags);
	if (BPF_CORE_READ(rq, __data_len) ||
	    !(flags & (1u << bpf_core_enum_value(enum req_flag_bits, __REQ_PREFLUSH))))
		return 0;
	blk_track(rq, bpf_ktime_get_ns(), BLK_FLUSHING);
	return 0;
}

/* Queued: a new start, also for a request queued again after a requeue. */
static __always_inline int blk_insert(struct request *rq)
{
	blk_track(rq, bpf_ktime_get_ns(), BLK_QUEUED);
	return 0;
}

/* Back from the driver (busy): queued and issued again, it starts anew; no completion was missed. */
static __always_inline int blk_requeue(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct blk_start *p = bpf_map_lookup_elem(&blk_inflight, &key);

	if (p)
		p->state = BLK_REQUEUED;
	return 0;
}

static __always_inline int blk_issue(struct request *rq)
{
	__u64 key = (__u64)rq;
	struct blk_start *p;

	p = bpf_map_lookup_elem(&blk_inflight, &key);
	if (p && p->state == BLK_QUEUED) {
		p->sector = BPF_CORE_READ(rq, __sector);
		p->bytes = BPF_CORE_READ(rq, __data_len);
		p->issue_ns = bpf_ktime_get_ns();
		p->state = BLK_ISSUED;
		return 0;
	}
	/* Not queued (direct issue), or issued again after a requeue. */
	blk_track(rq, bpf_ktime_get_ns(), BLK_ISSUED);
	return 0;
}

static __always_inline void blk_fill(struct rec_block *b, struct blk_start *s, struct request *rq, __u32 id,
				     __u32 op, __u64 lat)
{
	struct gendisk *disk = rq_disk(rq);

	rec_head_fill_task(&b->h, REC_BLOCK, id, lat, s->pid, s->tid, s->uid, s->comm);
	b->queue_ns = 0;
	if (block_cfg.queue_time && s->insert_ns && s->issue_ns) {
		b->h.flags |= RF_BLOCK_QUEUE;
		b->queue_ns = s->issue_ns - s->insert_ns;
	}
	/* a request without data has no sector to speak of */
	b->sector = s->bytes ? s->sector : (__u64)-1;
	b->bytes = s->bytes;
	b->op = op;
	b->disk[0] = 0;
	if (disk)
		bpf_probe_read_kernel_str(b->disk, sizeof(b->disk), disk->disk_name);
}

static __always_inline int blk_complete(struct request *rq)
{
	__u64 key = (__u64)rq, now = bpf_ktime_get_ns(), lat, from;
	struct func_cfg *fc;
	struct blk_start *s;
	struct rec_block *b;
	long id;
	bool slow;

	s = bpf_map_lookup_elem(&blk_inflight, &key);
	if (!s)
		return 0;
	id = blk_op_id(rq);
	if (id < 0)
		goto out;
	fc = bpf_map_lookup_elem(&funcs, &(__u32) { id });
	if (!fc)
		goto out;
	/* Never issued (a write that only flushes, a request failed in the queue): since first seen. */
	from = block_cfg.queue_time && s->insert_ns ? s->insert_ns : s->issue_ns ? s->issue_ns : s->start_ns;
	lat = now - from;
	slow = lat >= fc->threshold_ns;
	account(id, lat, slow, ACCT_SHARED);
	if (!slow)
		goto out;
	b = bpf_ringbuf_reserve(&events, sizeof(*b), 0);
	if (!b) {
		account_lost(id);
		goto out;
	}
	blk_fill(b, s, rq, id, BPF_CORE_READ(rq, cmd_flags) & BLOCK_REQ_OP_MASK, lat);
	bpf_ringbuf_submit(b, 0);
out:
	bpf_map_delete_elem(&blk_inflight, &key);
	return 0;
}

/* block_rq_issue/insert/requeue lost their request_queue argument in 5.11: rq_arg says where rq is. */
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

static __always_inline int blk_requeue_tp(__u64 *ctx)
{
	return blk_requeue(blk_rq_arg(ctx));
}

static __always_inline int blk_io_start_tp(__u64 *ctx)
{
	return blk_io_start((struct request *)ctx[0]);
}

TRACEPOINT_PROGRAMS(block_rq_insert, blk_insert_btf, blk_insert_raw, blk_insert_tp)
TRACEPOINT_PROGRAMS(block_rq_issue, blk_issue_btf, blk_issue_raw, blk_issue_tp)
TRACEPOINT_PROGRAMS(block_rq_complete, blk_complete_btf, blk_complete_raw, blk_complete_tp)
TRACEPOINT_PROGRAMS(block_rq_requeue, blk_requeue_btf, blk_requeue_raw, blk_requeue_tp)
TRACEPOINT_PROGRAMS(block_io_start, blk_io_start_btf, blk_io_start_raw, blk_io_start_tp)
