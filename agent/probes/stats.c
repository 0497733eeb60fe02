// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/stats.h"

struct cumulative {
	uint64_t count, total_ns, slow, lost, untimed, unmatched;
	uint64_t buckets[SMBLAT_NBUCKETS];
};

struct stats {
	int ncpus;
	struct cumulative *prev;
	uint32_t cap;
	struct func_stats *pcpu;
	uint64_t *pcpu_u64;
};

int stats_new(struct stats **ret)
{
	struct stats *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		int r = s->ncpus ? s->ncpus : -EINVAL;

		free(s);
		return r;
	}
	s->pcpu = calloc(s->ncpus, sizeof(*s->pcpu));
	s->pcpu_u64 = calloc(s->ncpus, sizeof(uint64_t));
	if (!s->pcpu || !s->pcpu_u64) {
		stats_free(s);
		return -ENOMEM;
	}
	*ret = s;
	return 0;
}

void stats_free(struct stats *s)
{
	if (!s)
		return;
	free(s->prev);
	free(s->pcpu);
	free(s->pcpu_u64);
	free(s);
}

static int grow(struct stats *s, uint32_t n)
{
	struct cumulative *v;

	if (n <= s->cap)
		return 0;
	v = realloc(s->prev, n * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memset(v + s->cap, 0, (n - s->cap) * sizeof(*v));
	s->prev = v;
	s->cap = n;
	return 0;
}

static int read_buckets(struct stats *s, int hist_fd, uint32_t id, struct cumulative *cur)
{
	for (uint32_t b = 0; b < SMBLAT_NBUCKETS; b++) {
		uint32_t key = id * SMBLAT_NBUCKETS + b;

		cur->buckets[b] = 0;
		if (bpf_map_lookup_elem(hist_fd, &key, s->pcpu_u64) < 0)
			return -errno;
		for (int c = 0; c < s->ncpus; c++)
			cur->buckets[b] += s->pcpu_u64[c];
	}
	return 0;
}

static int collect_one(struct stats *s, int stats_fd, int hist_fd, uint32_t id, uint64_t ended,
		       struct interval *out)
{
	struct cumulative cur = {}, *prev = &s->prev[id];
	uint32_t slot = ended & 1;
	int r;

	if (bpf_map_lookup_elem(stats_fd, &id, s->pcpu) < 0)
		return -errno;
	hist_init(&out->sum);
	for (int c = 0; c < s->ncpus; c++) {
		const struct func_stats *p = &s->pcpu[c];

		cur.count += p->count;
		cur.total_ns += p->total_ns;
		cur.slow += p->slow;
		cur.lost += p->lost;
		cur.untimed += p->untimed;
		cur.unmatched += p->unmatched;
		if (p->mm_epoch[slot] == ended && p->count) {
			if (p->min_ns[slot] < out->sum.min_ns)
				out->sum.min_ns = p->min_ns[slot];
			if (p->max_ns[slot] > out->sum.max_ns)
				out->sum.max_ns = p->max_ns[slot];
		}
	}
	out->lost = cur.lost - prev->lost;
	out->untimed = cur.untimed - prev->untimed;
	out->unmatched = cur.unmatched - prev->unmatched;
	out->sum.count = cur.count - prev->count;
	if (!out->sum.count) {
		prev->lost = cur.lost;
		prev->untimed = cur.untimed;
		prev->unmatched = cur.unmatched;
		return 0;
	}
	r = read_buckets(s, hist_fd, id, &cur);
	if (r < 0)
		return r;
	out->sum.total_ns = cur.total_ns - prev->total_ns;
	out->sum.slow = cur.slow - prev->slow;
	for (uint32_t b = 0; b < SMBLAT_NBUCKETS; b++)
		out->sum.buckets[b] = cur.buckets[b] - prev->buckets[b];
	*prev = cur;
	return 0;
}

int stats_collect(struct stats *s, int stats_fd, int hist_fd, uint32_t n, uint64_t ended,
		  struct interval *out)
{
	int r = grow(s, n);

	for (uint32_t id = 0; r == 0 && id < n; id++)
		r = collect_one(s, stats_fd, hist_fd, id, ended, &out[id]);
	return r;
}
