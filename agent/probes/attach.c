// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What is attached, kept per function id so that probes_detach() and
 * probes_close() can take it down: single links and fentry clones, and the
 * kprobe.multi and uprobe.multi batches whose ids go dormant one by one.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

char *errdup(const char *what, int err)
{
	char *s;

	if (asprintf(&s, "%s: %s", what, strerror(err < 0 ? -err : err)) < 0)
		return NULL;
	return s;
}

void attachment_release(struct attachment *a)
{
	for (int i = 1; i >= 0; i--) {
		bpf_link__destroy(a->link[i]);
		a->link[i] = NULL;
		if (a->link_fd[i] >= 0)
			close(a->link_fd[i]);
		if (a->prog_fd[i] >= 0)
			close(a->prog_fd[i]);
		a->link_fd[i] = a->prog_fd[i] = -1;
	}
}

void attachment_release_counted(struct probes *p, struct attachment *a)
{
	for (int i = 0; i < 2; i++)
		p->misses_released += probes_prog_misses(a->prog_fd[i]);
	attachment_release(a);
}

struct attachment *attachment_new(struct probes *p, uint32_t id)
{
	struct attachment *v = realloc(p->att, (p->n_att + 1) * sizeof(*v));

	if (!v)
		return NULL;
	p->att = v;
	v[p->n_att] = (struct attachment) {
		.id = id,
		.prog_fd = { -1, -1 },
		.link_fd = { -1, -1 },
	};
	return &v[p->n_att++];
}

int multi_keep(struct probes *p, const struct attachment *att, const uint64_t *cookies, uint32_t n,
	       enum backend be)
{
	struct multi *v = realloc(p->multi, (p->n_multi + 1) * sizeof(*v));
	struct multi *m;

	if (!v)
		return -ENOMEM;
	p->multi = v;
	m = &v[p->n_multi];
	*m = (struct multi) { .att = *att,
			      .ids = calloc(n, sizeof(uint32_t)),
			      .live = calloc(n, sizeof(bool)),
			      .n_ids = n,
			      .n_live = n,
			      .backend = be };
	if (!m->ids || !m->live) {
		free(m->ids);
		free(m->live);
		return -ENOMEM;
	}
	for (uint32_t i = 0; i < n; i++) {
		m->ids[i] = (uint32_t)cookies[i];
		m->live[i] = true;
	}
	p->n_multi++;
	return 0;
}

enum backend multi_revive(struct probes *p, uint32_t id)
{
	for (uint32_t b = 0; b < p->n_multi; b++) {
		struct multi *m = &p->multi[b];

		for (uint32_t i = 0; m->n_live && i < m->n_ids; i++)
			if (m->ids[i] == id && !m->live[i]) {
				m->live[i] = true;
				m->n_live++;
				return m->backend;
			}
	}
	return BACKEND_NONE;
}

void set_failed(struct func *f, const char *what, int err)
{
	func_set_state(f, FUNC_FAILED, "%s: %s", what, strerror(err < 0 ? -err : err));
}

void multi_detach(struct multi *m, uint32_t id)
{
	for (uint32_t i = 0; i < m->n_ids; i++)
		if (m->ids[i] == id && m->live[i]) {
			m->live[i] = false;
			m->n_live--;
		}
	if (m->n_live == 0)
		attachment_release(&m->att);
}

int place_set(struct probes *p, uint64_t addr, uint64_t offset, uint32_t id)
{
	struct probe_place pl = { .addr = addr, .offset = offset };

	if (bpf_map__update_elem(p->skel->maps.probe_ids, &pl, sizeof(pl), &id, sizeof(id), BPF_ANY) < 0)
		return -errno;
	return 0;
}
