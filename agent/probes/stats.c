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
	if (!s->pcpu) {
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

/* The counters of every CPU added up; min/max of the CPUs that saw a call in epoch `ended`. */
static void sum_cpus(const struct stats *s, uint64_t ended, struct cumulative *cur, struct summary *out)
{
	uint32_t slot = ended & 1;

	for (int c = 0; c < s->ncpus; c++) {
		const struct func_stats *p = &s->pcpu[c];

		cur->total_ns += p->total_ns;
		cur->slow += p->slow;
		cur->lost += p->lost;
		cur->untimed += p->untimed;
		cur->unmatched += p->unmatched;
		for (uint32_t b = 0; b < SMBLAT_NBUCKETS; b++)
			cur->buckets[b] += p->hist[b];
		if (p->mm_epoch[slot] == ended) {
			if (p->min_ns[slot] < out->min_ns)
				out->min_ns = p->min_ns[slot];
			if (p->max_ns[slot] > out->max_ns)
				out->max_ns = p->max_ns[slot];
		}
	}
	for (uint32_t b = 0; b < SMBLAT_NBUCKETS; b++)
		cur->count += cur->buckets[b];
}

static int collect_one(struct stats *s, int stats_fd, uint32_t id, uint64_t ended, struct interval *out)
{
	struct cumulative cur = {}, *prev = &s->prev[id];

	/* One read: the count is the histogram's sum, so the two always agree. */
	if (bpf_map_lookup_elem(stats_fd, &id, s->pcpu) < 0)
		return -errno;
	hist_init(&out->sum);
	sum_cpus(s, ended, &cur, &out->sum);
	out->lost = cur.lost - prev->lost;
	out->untimed = cur.untimed - prev->untimed;
	out->unmatched = cur.unmatched - prev->unmatched;
	out->sum.count = cur.count - prev->count;
	out->sum.total_ns = cur.total_ns - prev->total_ns;
	out->sum.slow = cur.slow - prev->slow;
	for (uint32_t b = 0; b < SMBLAT_NBUCKETS; b++)
		out->sum.buckets[b] = cur.buckets[b] - prev->buckets[b];
	*prev = cur;
	return 0;
}

int stats_collect(struct stats *s, int stats_fd, uint32_t n, uint64_t ended, struct interval *out)
{
	int r = grow(s, n);

	for (uint32_t id = 0; r == 0 && id < n; id++)
		r = collect_one(s, stats_fd, id, ended, &out[id]);
	return r;
}
