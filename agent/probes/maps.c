// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loaded object's maps and data that the agent reads or sets while the
 * probes run: counters, the ring buffer, routing tables, and the settings
 * of the smb2, smbd and view programs (each switched off while it changes).
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

static int id_set(struct bpf_map *m, uint32_t key, int id)
{
	uint32_t v = id < 0 ? 0 : (uint32_t)id + 1;

	if (bpf_map__update_elem(m, &key, sizeof(key), &v, sizeof(v), BPF_ANY) < 0)
		return -errno;
	return 0;
}

int probes_set_block_id(struct probes *p, uint32_t op, int id)
{
	return id_set(p->skel->maps.blk_ids, op, id);
}

int probes_set_syscall_id(struct probes *p, uint32_t nr, int id)
{
	return id_set(p->skel->maps.sys_ids, nr, id);
}

int probes_ringbuf_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.events);
}

int probes_stats_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.stats);
}

int probes_totals_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.totals);
}

uint64_t probes_epoch_bump(struct probes *p)
{
	uint64_t old = p->skel->data->epoch;

	__atomic_store_n(&p->skel->data->epoch, old + 1, __ATOMIC_SEQ_CST);
	return old;
}

uint64_t probes_epoch(const struct probes *p)
{
	return __atomic_load_n(&p->skel->data->epoch, __ATOMIC_SEQ_CST);
}

int probes_map_fd(const struct probes *p, const char *name)
{
	int fd = bpf_object__find_map_fd_by_name(p->skel->obj, name);

	return fd < 0 ? -ENOENT : fd;
}

struct procs_ctl *probes_procs_ctl(struct probes *p)
{
	return &p->skel->bss->procs_ctl;
}

void probes_smb2_set(struct probes *p, const struct smb2_ctl *ctl)
{
	/* Off first, so no probe sees ids of one setting and arguments of another. */
	__atomic_store_n(&p->skel->data->smb2.on, 0, __ATOMIC_SEQ_CST);
	memcpy(&p->skel->data->smb2, ctl, sizeof(*ctl));
	__atomic_store_n(&p->skel->data->smb2.on, ctl->on, __ATOMIC_SEQ_CST);
}

void probes_smbd_layout_set(struct probes *p, const struct smbd_hdr_layout *l)
{
	__atomic_store_n(&p->skel->bss->smbd_hdr.on, 0, __ATOMIC_SEQ_CST);
	p->skel->bss->smbd_hdr.current_idx = l->current_idx;
	p->skel->bss->smbd_hdr.in_vector = l->in_vector;
	__atomic_store_n(&p->skel->bss->smbd_hdr.on, l->on, __ATOMIC_SEQ_CST);
}

void probes_share_view_set(struct probes *p, bool on)
{
	__atomic_store_n(&p->skel->bss->views.share_on, on, __ATOMIC_SEQ_CST);
}

int probes_share_view_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.share_view);
}

int probes_share_overflow_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.share_overflow);
}
