// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/waitclass.h"
#include "decode/offcpu.h"
#include "decode/stack.h"
#include "probes/progs.h"
#include "symbols/ksyms.h"

struct offcpu {
	struct folded f[SMBLAT_MAX_FUNCS];
};

int offcpu_new(struct offcpu **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void offcpu_free(struct offcpu *o)
{
	if (!o)
		return;
	for (uint32_t i = 0; i < SMBLAT_MAX_FUNCS; i++)
		folded_free(&o->f[i]);
	free(o);
}

/* The class of frames kv (n, innermost first) by their names. */
static enum wait_class class_of(const struct ksyms *ks, const uint64_t *kv, unsigned int n)
{
	const char *names[SMBLAT_STACK_FRAMES] = {};
	uint64_t off;

	for (unsigned int i = 0; ks && i < n && i < SMBLAT_STACK_FRAMES; i++) {
		const struct ksym *s = ksyms_find(ks, kv[i], &off);

		names[i] = s ? s->name : NULL;
	}
	return waitclass_of(names, n);
}

static void add_one(struct offcpu *o, const struct offcpu_key *k, const struct offcpu_sum *c, int ids,
		    const struct decoder *d, uint64_t *kv)
{
	struct stack_src src = { .ks = d->ks, .k = kv, .depth = SMBLAT_STACK_FRAMES };
	char *text = NULL, *folded = NULL, *line = NULL;
	uint32_t key = (uint32_t)k->kstack;

	if (k->func_id >= d->funcs->n || k->func_id >= SMBLAT_MAX_FUNCS || k->kstack < 0)
		return;
	memset(kv, 0, SMBLAT_STACK_FRAMES * sizeof(*kv));
	if (bpf_map_lookup_elem(ids, &key, kv) < 0)
		return;
	while (src.nk < SMBLAT_STACK_FRAMES && kv[src.nk])
		src.nk++;
	if (stack_symbolize(&src, &text, &folded) == 0 &&
	    asprintf(&line, "%s;%s", waitclass_name(class_of(d->ks, kv, src.nk)), folded ? folded : "") >= 0)
		(void)folded_add(&o->f[k->func_id], line, c->count, c->total_ns);
	free(line);
	free(text);
	free(folded);
}

int offcpu_drain(struct offcpu *o, struct probes *p, uint64_t ended, const struct decoder *d)
{
	struct smblat_bpf *skel = probes_skel(p);
	unsigned int gen = ended & 1;
	int sums = bpf_map__fd(gen ? skel->maps.offcpu_sums1 : skel->maps.offcpu_sums0);
	int ids = bpf_map__fd(gen ? skel->maps.offcpu_stacks1 : skel->maps.offcpu_stacks0);
	uint64_t *kv = calloc(SMBLAT_STACK_FRAMES, sizeof(uint64_t));
	struct offcpu_key k, *prev = NULL;
	struct offcpu_sum c;

	if (!kv || sums < 0 || ids < 0) {
		free(kv);
		return kv ? -ENOENT : -ENOMEM;
	}
	while (bpf_map_get_next_key(sums, prev, &k) == 0) {
		struct offcpu_key cur = k;

		if (bpf_map_lookup_elem(sums, &cur, &c) == 0)
			add_one(o, &cur, &c, ids, d, kv);
		k = cur;
		prev = &k;
	}
	probes_map_clear(sums, sizeof(struct offcpu_key));
	probes_map_clear(ids, sizeof(uint32_t));
	free(kv);
	return 0;
}

void offcpu_take(struct offcpu *o, uint32_t id, struct folded *out)
{
	*out = (struct folded) {};
	if (id >= SMBLAT_MAX_FUNCS)
		return;
	*out = o->f[id];
	o->f[id] = (struct folded) {};
}
