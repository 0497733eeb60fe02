// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/profile.h"
#include "probes/detach.h"
#include "probes/probes-int.h"
#include "base/macro.h"
#include "base/clock.h"

bool probes_unit_loaded(const struct probes *p, const struct prog_unit *u)
{
	for (size_t i = 0; i < u->n; i++)
		if (bpf_program__autoload(prog_at(p->skel, u->progs[i].at)))
			return true;
	return false;
}

int probes_opts_want(struct probes_opts *o, const struct prog_unit *u, void *arg)
{
	for (unsigned int i = 0; i < o->n_units; i++)
		if (o->units[i].unit == u)
			return 0;
	if (o->n_units == PROBES_UNITS_MAX)
		return -E2BIG;
	o->units[o->n_units++] = (struct probes_unit_req) { .unit = u, .arg = arg };
	return 0;
}

struct smblat_bpf *probes_skel(const struct probes *p)
{
	return p->skel;
}

int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs, struct probes **ret,
		char *why, size_t n)
{
	struct probes *p = calloc(1, sizeof(*p));
	int r;

	if (!p)
		return -ENOMEM;
	p->ks = ks;
	p->btfs = btfs;
	p->features = o->features;
	p->choice = o->choice;
	p->opts = *o;
	r = object_load(p, o, why, n);
	if (r < 0) {
		probes_close(p);
		return r;
	}
	*ret = p;
	return 0;
}

static void attachment_add_links(struct detach_set *d, struct attachment *a)
{
	for (int i = 1; i >= 0; i--) {
		(void)detach_add_link(d, &a->link[i]);
		(void)detach_add_fd(d, &a->link_fd[i]);
	}
}

/* Every link at once (probes/detach.h); what could not join is taken down below. */
static void probes_detach_all(struct probes *p)
{
	struct detach_set d = {};

	for (uint32_t i = p->n_tp; i > 0; i--)
		(void)detach_add_link(&d, &p->tp[i - 1].link);
	for (uint32_t i = p->n_multi; i > 0; i--)
		attachment_add_links(&d, &p->multi[i - 1].att);
	for (uint32_t i = p->n_att; i > 0; i--)
		attachment_add_links(&d, &p->att[i - 1]);
	detach_run(&d);
}

void probes_close(struct probes *p)
{
	if (!p)
		return;
	probes_detach_all(p);
	for (uint32_t i = p->n_tp; i > 0; i--) {
		bpf_link__destroy(p->tp[i - 1].link);
		free(p->tp[i - 1].name);
	}
	free(p->tp);
	for (uint32_t i = p->n_multi; i > 0; i--) {
		attachment_release(&p->multi[i - 1].att);
		free(p->multi[i - 1].ids);
		free(p->multi[i - 1].live);
	}
	free(p->multi);
	for (uint32_t i = p->n_att; i > 0; i--)
		attachment_release(&p->att[i - 1]);
	free(p->att);
	for (uint32_t i = 0; i < p->n_btf_fds; i++) {
		close(p->btf_fds[i].fd);
		free(p->btf_fds[i].module);
	}
	smblat_bpf__destroy(p->fskel);
	smblat_bpf__destroy(p->skel);
	free(p->fentry_why);
	free(p->kmulti_why);
	free(p->kprobe_why);
	free(p->tp_btf_why);
	free(p->why);
	free(p);
}

int probes_update(struct probes *p, const struct func *f)
{
	struct func_cfg c = f->cfg;

	c.frame_args = c.nargs;
	if (c.sb_kind != AK_NONE && c.sb_arg + 1 > c.frame_args)
		c.frame_args = c.sb_arg + 1;
	if (c.name_kind != AK_NONE && c.name_arg + 1 > c.frame_args)
		c.frame_args = c.name_arg + 1;
	if (bpf_map__update_elem(p->skel->maps.funcs, &f->id, sizeof(f->id), &c, sizeof(c), BPF_ANY) < 0)
		return -errno;
	return 0;
}

void probes_detach(struct probes *p, struct func *f, enum func_state why, const char *detail)
{
	f->cfg.flags &= ~FF_ENABLED;
	(void)probes_update(p, f);
	for (uint32_t i = 0; i < p->n_att; i++)
		if (p->att[i].id == f->id)
			attachment_release_counted(p, &p->att[i]);
	for (uint32_t i = 0; i < p->n_multi; i++)
		multi_detach(&p->multi[i], f->id);
	func_set_state(f, why, detail ? "%s" : NULL, detail);
}

uint32_t probes_attached(const struct probes *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_att; i++)
		if (p->att[i].link_fd[0] >= 0 || p->att[i].link[0])
			n++;
	return n;
}
