// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The loaded object's maps and data that the agent reads or sets while the
 * probes run: counters, the ring buffer, id tables, and live settings that
 * the programs read (each switched off while it changes).
 */
#include <errno.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/inflight.h"
#include "probes/probes-int.h"

int probes_route(struct bpf_map *table, uint32_t key, int id)
{
	uint32_t v = id < 0 ? 0 : (uint32_t)id + 1;

	if (bpf_map__update_elem(table, &key, sizeof(key), &v, sizeof(v), BPF_ANY) < 0)
		return -errno;
	return 0;
}

int probes_ringbuf_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.events);
}

int probes_maps_readable(const struct probes *p)
{
	uint32_t key;

	/* an array always has a first key: only a refused bpf() fails */
	if (bpf_map_get_next_key(bpf_map__fd(p->skel->maps.stats), NULL, &key) < 0)
		return -errno;
	return 0;
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

void probes_publish(void *live, const void *ctl, size_t size)
{
	uint32_t on;

	memcpy(&on, ctl, sizeof(on));
	/* off; the rest, never the switch itself; then on, last */
	__atomic_store_n((uint32_t *)live, 0, __ATOMIC_SEQ_CST);
	memcpy((char *)live + sizeof(on), (const char *)ctl + sizeof(on), size - sizeof(on));
	__atomic_store_n((uint32_t *)live, on, __ATOMIC_SEQ_CST);
}

int probes_sweep(struct bpf_map *m, const struct inflight_sweep *s)
{
	int fd = bpf_map__fd(m);

	if (fd < 0)
		return -EBADF;
	return inflight_sweep(fd, bpf_map__key_size(m), bpf_map__value_size(m), s);
}

/* Every key of fd, deleted after the walk (deleting during it would restart it). */
void probes_map_clear(int fd, size_t key_size)
{
	void *prev = NULL, *keys = NULL;
	size_t n = 0;

	for (;;) {
		void *v = realloc(keys, (n + 1) * key_size);

		if (!v)
			break;
		keys = v;
		if (bpf_map_get_next_key(fd, prev, (char *)keys + n * key_size) < 0)
			break;
		prev = (char *)keys + n++ * key_size;
	}
	for (size_t i = 0; i < n; i++)
		(void)bpf_map_delete_elem(fd, (char *)keys + i * key_size);
	free(keys);
}
