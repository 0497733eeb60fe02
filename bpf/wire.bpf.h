/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The SMB2 requests a traced call waited on: the smb2 unit links each
 * finished request into the frames of the calls in progress on the task
 * that sent it (or, when another thread released it, into a per-thread
 * list); a slow VFS call's event lists them.
 */
#ifndef SMBLAT_WIRE_BPF_H
#define SMBLAT_WIRE_BPF_H

#include "core.bpf.h"

/*
 * Requests of a thread that another one released (cifsd, after an async
 * read or write callback), by sending thread: the last SMBLAT_WIRE_MAX. A
 * call of that thread picks those it started while it ran.
 */
struct wire_async {
	__u32 n;
	__u32 pad;
	struct {
		__u64 start_ns;
		__u32 lat_us;
		__u16 cmd;
		__u16 pad;
		__u32 send_us, rtt_us, wake_us, pad2;
	} req[SMBLAT_WIRE_MAX];
};

struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 4096);
	__type(key, __u32);
	__type(value, struct wire_async);
} wire_async SEC(".maps") __weak;

static __always_inline void split_add(struct smb2_split *sum, const struct smb2_split *s)
{
	sum->send_ns += s->send_ns;
	sum->rtt_ns += s->rtt_ns;
	sum->wake_ns += s->wake_ns;
}

/* The request's latency goes into every call of this task still waiting. */
static __always_inline void wire_link(__u16 cmd, __u64 lat, const struct smb2_split *s)
{
	struct frames *fr = task_frames();
	struct frame *f;
	__u32 d, n;

	if (!fr)
		return;
	d = fr->depth;
	for (__u32 i = 0; i < SMBLAT_NEST; i++) {
		if (i >= d)
			break;
		f = &fr->f[i];
		n = f->wire_n;
		if (n < SMBLAT_WIRE_MAX) {
			f->wire[n].cmd = cmd;
			f->wire[n].lat_us = lat / 1000;
		}
		f->wire_n = n + 1;
		f->wire_ns += lat;
		split_add(&f->wire_split, s);
	}
}

static __always_inline void wire_link_async(__u32 tid, __u64 start_ns, __u16 cmd, __u64 lat,
					    const struct smb2_split *s)
{
	struct wire_async *a, zero = {};
	__u32 i;

	a = bpf_map_lookup_elem(&wire_async, &tid);
	if (!a) {
		bpf_map_update_elem(&wire_async, &tid, &zero, BPF_NOEXIST);
		a = bpf_map_lookup_elem(&wire_async, &tid);
		if (!a)
			return;
	}
	/* Two callbacks racing for one slot lose one request of the list, no more. */
	i = a->n++ & (SMBLAT_WIRE_MAX - 1);
	a->req[i].lat_us = lat / 1000;
	a->req[i].cmd = cmd;
	a->req[i].start_ns = start_ns;
	a->req[i].send_us = s->send_ns / 1000;
	a->req[i].rtt_us = s->rtt_ns / 1000;
	a->req[i].wake_us = s->wake_ns / 1000;
}

/* Requests this thread sent during the call and another thread released. */
static __always_inline void wire_fill_async(struct rec_wire *w, const struct frame *f)
{
	__u32 tid = (__u32)bpf_get_current_pid_tgid();
	struct wire_async *a = bpf_map_lookup_elem(&wire_async, &tid);
	__u64 start;
	__u32 n;

	if (!a)
		return;
	for (int i = 0; i < SMBLAT_WIRE_MAX; i++) {
		start = a->req[i].start_ns;
		if (!start || start < f->start_ns)
			continue;
		n = w->n;
		if (n >= 0xffff)
			break;
		if (n < SMBLAT_WIRE_MAX) {
			w->req[n].cmd = a->req[i].cmd;
			w->req[n].lat_us = a->req[i].lat_us;
		}
		w->n = n + 1;
		w->ns += (__u64)a->req[i].lat_us * 1000;
		w->split.send_ns += (__u64)a->req[i].send_us * 1000;
		w->split.rtt_ns += (__u64)a->req[i].rtt_us * 1000;
		w->split.wake_ns += (__u64)a->req[i].wake_us * 1000;
	}
}

/* The SMB2 requests the call of frame f waited on. */
static __always_inline void wire_fill(struct rec_wire *w, const struct frame *f)
{
	__u32 n = f->wire_n;

	w->n = n > 0xffff ? 0xffff : n;
	w->ns = f->wire_ns;
	w->split = f->wire_split;
	for (int i = 0; i < SMBLAT_WIRE_MAX; i++)
		w->req[i] = f->wire[i];
	wire_fill_async(w, f);
}

/* A call that kept no frame waited on nothing we know of. */
static __always_inline void wire_none(struct rec_wire *w)
{
	w->n = 0;
	w->ns = 0;
	w->split.send_ns = 0;
	w->split.rtt_ns = 0;
	w->split.wake_ns = 0;
}

#endif
