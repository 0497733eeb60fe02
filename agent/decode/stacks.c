// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "decode/stack.h"
#include "decode/stacks.h"
#include "probes/progs.h"

struct per_func {
	struct folded set;
	uint64_t lost_seen; /* cumulative, from the kernel */
	uint64_t lost_taken;
};

struct stacks {
	struct per_func f[SMBLAT_MAX_FUNCS];
	int ncpus;
};

int stacks_new(struct stacks **ret)
{
	struct stacks *s = calloc(1, sizeof(*s));

	if (!s)
		return -ENOMEM;
	s->ncpus = libbpf_num_possible_cpus();
	if (s->ncpus <= 0) {
		free(s);
		return -EINVAL;
	}
	*ret = s;
	return 0;
}

void stacks_free(struct stacks *s)
{
	if (!s)
		return;
	for (uint32_t i = 0; i < SMBLAT_MAX_FUNCS; i++)
		folded_free(&s->f[i].set);
	free(s);
}

/* The frames of kernel stack id, 0-terminated in the map; 0 when there is none. */
static unsigned int kframes_of(int fd, int32_t id, uint64_t *v)
{
	uint32_t key = (uint32_t)id;
	unsigned int n = 0;

	if (id < 0 || bpf_map_lookup_elem(fd, &key, v) < 0)
		return 0;
	while (n < SMBLAT_STACK_FRAMES && v[n])
		n++;
	return n;
}

/* The user stack of hash h (0: none) into *v; its frames. */
static unsigned int uframes_of(int fd, uint64_t h, struct ustack_val *v)
{
	if (!h || bpf_map_lookup_elem(fd, &h, v) < 0)
		return 0;
	return v->n < SMBLAT_STACK_FRAMES ? v->n : SMBLAT_STACK_FRAMES;
}

/* The kernel's comm, as a folded line's root frame. */
static void comm_of(const struct stack_key *k, char *buf, size_t n)
{
	snprintf(buf, n, "%.*s", (int)sizeof(k->comm), k->comm);
	if (!buf[0])
		snprintf(buf, n, "[%u]", k->tgid);
	/* ';' separates frames */
	for (char *c = buf; *c; c++)
		if (*c == ';' || *c == ' ')
			*c = '_';
}

struct gen_fds {
	int counts, ids, ustacks;
};

static void add_one(struct stacks *s, const struct stack_key *k, const struct stack_count *c,
		    const struct gen_fds *g, const struct decoder *d, uint64_t *kv, struct ustack_val *uv)
{
	const struct func *fn;
	char comm[32], *text = NULL, *folded = NULL, *line = NULL;
	struct stack_src src = { .ks = d->ks,
				 .us = d->us,
				 .pid = k->tgid,
				 .k = kv,
				 .u = uv->frames,
				 .depth = SMBLAT_STACK_FRAMES };

	if (k->func_id >= d->funcs->n || k->func_id >= SMBLAT_MAX_FUNCS)
		return;
	fn = &d->funcs->v[k->func_id];
	src.nk = kframes_of(g->ids, k->kstack, kv);
	src.nu = uframes_of(g->ustacks, k->ustack, uv);
	src.uflags = k->uflags;
	comm_of(k, comm, sizeof(comm));
	if (stack_symbolize(&src, &text, &folded) == 0 &&
	    asprintf(&line, "%s;%s%s%s", comm, folded ? folded : "", folded ? ";" : "", fn->name) >= 0)
		(void)folded_add_tagged(&s->f[k->func_id].set, line, c->count, c->total_ns,
					src.nu ? STACKS_TAG_USER | k->uflags : 0);
	free(line);
	free(text);
	free(folded);
}

static void lost_read(struct stacks *s, struct probes *p, const struct decoder *d)
{
	int fd = bpf_map__fd(probes_skel(p)->maps.stack_lost);
	struct stack_lost *v = calloc(s->ncpus, sizeof(*v));

	for (uint32_t id = 0; v && fd >= 0 && id < d->funcs->n && id < SMBLAT_MAX_FUNCS; id++) {
		uint64_t sum = 0;

		if (!(d->funcs->v[id].cfg.flags & (FF_STACKS_USER | FF_STACKS_KERNEL)) ||
		    bpf_map_lookup_elem(fd, &id, v) < 0)
			continue;
		for (int c = 0; c < s->ncpus; c++)
			sum += v[c].stack_full + v[c].keys_full;
		s->f[id].lost_seen = sum;
	}
	free(v);
}

int stacks_drain(struct stacks *s, struct probes *p, uint64_t ended, const struct decoder *d)
{
	struct smblat_bpf *skel = probes_skel(p);
	struct stack_key k, *prev = NULL;
	struct stack_count c;
	uint64_t *kv = calloc(SMBLAT_STACK_FRAMES, sizeof(uint64_t));
	struct ustack_val *uv = calloc(1, sizeof(*uv));
	struct gen_fds g;
	unsigned int gen = ended & 1;

	/* the maps of the epoch that ended, which the programs no longer touch */
	g.counts = bpf_map__fd(gen ? skel->maps.stack_counts1 : skel->maps.stack_counts0);
	g.ids = bpf_map__fd(gen ? skel->maps.stack_ids1 : skel->maps.stack_ids0);
	g.ustacks = bpf_map__fd(gen ? skel->maps.ustacks1 : skel->maps.ustacks0);
	if (!kv || !uv || g.counts < 0 || g.ids < 0 || g.ustacks < 0) {
		free(kv);
		free(uv);
		return kv && uv ? -ENOENT : -ENOMEM;
	}
	while (bpf_map_get_next_key(g.counts, prev, &k) == 0) {
		struct stack_key cur = k;

		if (bpf_map_lookup_elem(g.counts, &cur, &c) == 0)
			add_one(s, &cur, &c, &g, d, kv, uv);
		k = cur;
		prev = &k;
	}
	probes_map_clear(g.counts, sizeof(struct stack_key));
	probes_map_clear(g.ids, sizeof(uint32_t));
	probes_map_clear(g.ustacks, sizeof(uint64_t));
	lost_read(s, p, d);
	free(kv);
	free(uv);
	return 0;
}

void stacks_take(struct stacks *s, uint32_t id, struct folded *out, uint64_t *lost)
{
	struct per_func *f;

	*out = (struct folded) {};
	*lost = 0;
	if (id >= SMBLAT_MAX_FUNCS)
		return;
	f = &s->f[id];
	*out = f->set;
	f->set = (struct folded) {};
	*lost = f->lost_seen - f->lost_taken;
	f->lost_taken = f->lost_seen;
}
