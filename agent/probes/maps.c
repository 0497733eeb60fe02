// SPDX-License-Identifier: LGPL-2.1-or-later
/* The BPF maps and globals the layers and the core read and set. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/inflight.h"
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

int probes_hist_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.hist);
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

void probes_smb2_set(struct probes *p, const struct smb2_ctl *ctl)
{
	/* Off first, so no probe sees ids of one setting and arguments of another. */
	__atomic_store_n(&p->skel->data->smb2.on, 0, __ATOMIC_SEQ_CST);
	memcpy(&p->skel->data->smb2, ctl, sizeof(*ctl));
	__atomic_store_n(&p->skel->data->smb2.on, ctl->on, __ATOMIC_SEQ_CST);
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

uint64_t probes_epoch(const struct probes *p)
{
	return __atomic_load_n(&p->skel->data->epoch, __ATOMIC_SEQ_CST);
}

/* reliability: ids the histogram map was sized for; a reload cannot add more. */
uint32_t probes_func_capacity(const struct probes *p)
{
	return bpf_map__max_entries(p->skel->maps.hist) / SMBLAT_NBUCKETS;
}

int probes_sweep(struct probes *p, enum inflight_table t, const struct inflight_sweep *s)
{
	struct bpf_map *m = t == INFLIGHT_BLOCK ? p->skel->maps.blk_inflight :
			    t == INFLIGHT_SMB2 ? p->skel->maps.smb2_reqs : p->skel->maps.smbd_reqs;
	int fd = bpf_map__fd(m);

	if (fd < 0)
		return -EBADF;
	return inflight_sweep(fd, bpf_map__key_size(m), bpf_map__value_size(m), s);
}
