// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel functions attached and detached: fentry/fexit clones of the
 * template programs, kprobes, and kprobe.multi batches, whichever the
 * kernel allows, with module BTF held while a module's functions are.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

static int module_btf_fd(struct probes *p, const char *module)
{
	int fd;

	for (uint32_t i = 0; i < p->n_btf_fds; i++)
		if (strcmp(p->btf_fds[i].module, module) == 0)
			return p->btf_fds[i].fd;
	if (p->n_btf_fds == sizeof(p->btf_fds) / sizeof(p->btf_fds[0]))
		return -ENOSPC;
	fd = btfs_module_fd(p->btfs, module);
	if (fd < 0)
		return fd;
	p->btf_fds[p->n_btf_fds].module = strdup(module);
	p->btf_fds[p->n_btf_fds++].fd = fd;
	return fd;
}

/* Loads a copy of the fentry/fexit template for one target and links it. */
static int fentry_clone(struct probes *p, const struct bpf_program *tmpl,
			enum bpf_attach_type type, int btf_id, int obj_fd, uint32_t cookie,
			int *prog_fd, int *link_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo,
		    .expected_attach_type = type,
		    .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = obj_fd > 0 ? obj_fd : 0);
	LIBBPF_OPTS(bpf_link_create_opts, co, .tracing.cookie = cookie);
	int fd, lfd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING,
			   type == BPF_TRACE_FENTRY ? "smblat_entry" : "smblat_exit", "GPL",
			   bpf_program__insns(tmpl), bpf_program__insn_cnt(tmpl), &lo);
	if (fd < 0)
		return -errno;
	lfd = bpf_link_create(fd, 0, type, &co);
	if (lfd < 0) {
		int r = -errno;

		close(fd);
		return r;
	}
	*prog_fd = fd;
	*link_fd = lfd;
	return 0;
}

/* A family's programs by backend; NULL where it has none (an entry-only hook has no exit). */
struct kprogs {
	struct bpf_program *fentry, *fexit, *kprobe, *kretprobe, *kmulti, *kretmulti;
};

static struct kprogs kprogs_of(struct probes *p, enum kprog_family fam)
{
	switch (fam) {
	case KPROGS_VFS:
		return (struct kprogs) {
			p->skel->progs.vfs_fentry, p->skel->progs.vfs_fexit,
			p->skel->progs.vfs_kprobe, p->skel->progs.vfs_kretprobe,
			p->skel->progs.vfs_kmulti, p->skel->progs.vfs_kretmulti,
		};
	case KPROGS_SMB2_ALLOC:
		return (struct kprogs) {
			NULL, p->skel->progs.smb2_alloc_fexit,
			p->skel->progs.smb2_alloc_kprobe, p->skel->progs.smb2_alloc_kretprobe,
			p->skel->progs.smb2_alloc_kmulti, p->skel->progs.smb2_alloc_kretmulti,
		};
	case KPROGS_SMB2_MID:
		return (struct kprogs) {
			p->skel->progs.smb2_mid_fentry, NULL, p->skel->progs.smb2_mid_kprobe, NULL,
			p->skel->progs.smb2_mid_kmulti, NULL,
		};
	case KPROGS_SMB2_SENT:
		return (struct kprogs) {
			NULL, p->skel->progs.smb2_sent_fexit, NULL, p->skel->progs.smb2_sent_kretprobe,
			NULL, p->skel->progs.smb2_sent_kretmulti,
		};
	default:
		return (struct kprogs) {
			p->skel->progs.call_fentry, p->skel->progs.call_fexit,
			p->skel->progs.call_kprobe, p->skel->progs.call_kretprobe,
			p->skel->progs.call_kmulti, p->skel->progs.call_kretmulti,
		};
	}
}

static int attach_fentry(struct probes *p, struct func *f, const struct kprogs *kp)
{
	struct btf *btf = btfs_get(p->btfs, f->module);
	struct attachment *a;
	int btf_id, obj_fd = 0, r;

	if (!btf)
		return -ENOENT;
	btf_id = btf__find_by_name_kind(btf, f->symbol, BTF_KIND_FUNC);
	if (btf_id < 0)
		return -ENOENT;
	if (f->module) {
		obj_fd = module_btf_fd(p, f->module);
		if (obj_fd < 0)
			return obj_fd;
	}
	a = attachment_new(p, f->id);
	if (!a)
		return -ENOMEM;
	r = 0;
	if (kp->fentry)
		r = fentry_clone(p, kp->fentry, BPF_TRACE_FENTRY, btf_id, obj_fd, f->id,
				 &a->prog_fd[0], &a->link_fd[0]);
	if (r == 0 && kp->fexit)
		r = fentry_clone(p, kp->fexit, BPF_TRACE_FEXIT, btf_id, obj_fd, f->id,
				 &a->prog_fd[1], &a->link_fd[1]);
	if (r < 0) {
		attachment_release(a);
		p->n_att--;
	}
	return r;
}

static int attach_kprobe(struct probes *p, struct func *f, const struct kprogs *kp)
{
	LIBBPF_OPTS(bpf_kprobe_opts, eo, .bpf_cookie = f->id);
	LIBBPF_OPTS(bpf_kprobe_opts, xo, .bpf_cookie = f->id, .retprobe = true);
	struct attachment *a = attachment_new(p, f->id);
	int r;

	if (!a)
		return -ENOMEM;
	/* Exit first: an entry without its exit would leave frames behind. */
	if (kp->kretprobe) {
		a->link[1] = bpf_program__attach_kprobe_opts(kp->kretprobe, f->symbol, &xo);
		if (!a->link[1])
			goto fail;
	}
	if (kp->kprobe) {
		a->link[0] = bpf_program__attach_kprobe_opts(kp->kprobe, f->symbol, &eo);
		if (!a->link[0])
			goto fail;
	}
	return 0;
fail:
	r = -errno;
	attachment_release(a);
	p->n_att--;
	return r;
}

int multi_keep(struct probes *p, const struct attachment *att, const uint64_t *cookies, uint32_t n)
{
	struct multi *v = realloc(p->multi, (p->n_multi + 1) * sizeof(*v));
	struct multi *m;

	if (!v)
		return -ENOMEM;
	p->multi = v;
	m = &v[p->n_multi];
	*m = (struct multi) { .att = *att, .ids = calloc(n, sizeof(uint32_t)),
			      .live = calloc(n, sizeof(bool)), .n_ids = n, .n_live = n };
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

static int attach_kmulti(struct probes *p, struct func **fv, uint32_t n, bool *done,
			 const struct kprogs *kp)
{
	unsigned long *addrs = calloc(n, sizeof(*addrs));
	__u64 *cookies = calloc(n, sizeof(*cookies));
	struct bpf_link *l[2] = {};
	uint32_t cnt = 0;
	int r = 0;

	if (!addrs || !cookies) {
		r = -ENOMEM;
		goto out;
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct ksym *k = ksyms_lookup(p->ks, fv[i]->symbol, fv[i]->module);

		if (done[i] || !k)
			continue;
		addrs[cnt] = k->addr;
		cookies[cnt++] = fv[i]->id;
	}
	if (!cnt)
		goto out;
	LIBBPF_OPTS(bpf_kprobe_multi_opts, xo, .addrs = addrs, .cookies = cookies, .cnt = cnt,
		    .retprobe = true);
	LIBBPF_OPTS(bpf_kprobe_multi_opts, eo, .addrs = addrs, .cookies = cookies, .cnt = cnt);
	if (kp->kretmulti) {
		l[1] = bpf_program__attach_kprobe_multi_opts(kp->kretmulti, NULL, &xo);
		if (!l[1]) {
			r = -errno;
			goto out;
		}
	}
	if (kp->kmulti) {
		l[0] = bpf_program__attach_kprobe_multi_opts(kp->kmulti, NULL, &eo);
		if (!l[0]) {
			r = -errno;
			bpf_link__destroy(l[1]);
			goto out;
		}
	}
	r = multi_keep(p, &(struct attachment) { .id = UINT32_MAX, .prog_fd = { -1, -1 },
						 .link_fd = { -1, -1 }, .link = { l[0], l[1] } },
		       (const uint64_t *)cookies, cnt);
	if (r < 0) {
		bpf_link__destroy(l[0]);
		bpf_link__destroy(l[1]);
		goto out;
	}
	for (uint32_t i = 0; i < n; i++)
		if (!done[i] && ksyms_lookup(p->ks, fv[i]->symbol, fv[i]->module)) {
			done[i] = true;
			func_set_attached(fv[i], BACKEND_KPROBE_MULTI);
		}
out:
	free(addrs);
	free(cookies);
	return r;
}

bool multi_revive(struct probes *p, uint32_t id)
{
	for (uint32_t b = 0; b < p->n_multi; b++) {
		struct multi *m = &p->multi[b];

		for (uint32_t i = 0; m->n_live && i < m->n_ids; i++)
			if (m->ids[i] == id && !m->live[i]) {
				m->live[i] = true;
				m->n_live++;
				return true;
			}
	}
	return false;
}

void set_failed(struct func *f, const char *what, int err)
{
	func_set_state(f, FUNC_FAILED, "%s: %s", what, strerror(err < 0 ? -err : err));
}

int probes_attach_kernel(struct probes *p, struct func **fv, uint32_t n, enum kprog_family fam)
{
	struct kprogs kp = kprogs_of(p, fam);
	bool *done = calloc(n ? n : 1, sizeof(*done));
	const char *why = NULL;
	uint32_t attached = 0;
	int r;

	if (!done)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (multi_revive(p, fv[i]->id)) {
			done[i] = true;
			func_set_attached(fv[i], BACKEND_KPROBE_MULTI);
		}
	for (uint32_t i = 0; p->fentry && i < n; i++) {
		if (done[i])
			continue;
		r = attach_fentry(p, fv[i], &kp);
		if (r == 0) {
			done[i] = true;
			func_set_attached(fv[i], BACKEND_FENTRY);
		} else if (r == -EPERM || r == -EOPNOTSUPP || r == -524 /* ENOTSUPP */) {
			/* The kernel refuses trampolines altogether, not this target. */
			free(p->fentry_why);
			p->fentry_why = errdup("fentry attach refused", r);
			p->fentry = false;
		} else if (p->choice == CHOICE_FENTRY) {
			set_failed(fv[i], "fentry", r);
		}
	}
	if (p->kmulti && p->kprobe && p->choice != CHOICE_FENTRY) {
		r = attach_kmulti(p, fv, n, done, &kp);
		if (r < 0) {
			free(p->kmulti_why);
			p->kmulti_why = errdup("kprobe.multi attach refused", r);
			p->kmulti = false;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		if (p->kprobe && (p->choice == CHOICE_AUTO || p->choice == CHOICE_KPROBE)) {
			r = attach_kprobe(p, fv[i], &kp);
			if (r == 0) {
				done[i] = true;
				func_set_attached(fv[i], BACKEND_KPROBE);
				continue;
			}
			set_failed(fv[i], "kprobe", r);
		} else if (fv[i]->state != FUNC_FAILED) {
			probes_kernel_backend(p, &why);
			func_set_state(fv[i], FUNC_NO_BACKEND, "%s", why ? why : "no backend for kernel functions");
		}
	}
	for (uint32_t i = 0; i < n; i++)
		attached += done[i];
	free(done);
	return attached;
}

static void multi_detach(struct multi *m, uint32_t id)
{
	for (uint32_t i = 0; i < m->n_ids; i++)
		if (m->ids[i] == id && m->live[i]) {
			m->live[i] = false;
			m->n_live--;
		}
	if (m->n_live == 0)
		attachment_release(&m->att);
}

void probes_detach(struct probes *p, struct func *f, enum func_state why, const char *detail)
{
	f->cfg.flags &= ~FF_ENABLED;
	(void)probes_update(p, f);
	for (uint32_t i = 0; i < p->n_att; i++)
		if (p->att[i].id == f->id)
			attachment_release(&p->att[i]);
	for (uint32_t i = 0; i < p->n_multi; i++)
		multi_detach(&p->multi[i], f->id);
	func_set_state(f, why, detail ? "%s" : NULL, detail);
}

void probes_forget_module(struct probes *p, const char *module)
{
	for (uint32_t i = 0; i < p->n_btf_fds; i++)
		if (strcmp(p->btf_fds[i].module, module) == 0) {
			close(p->btf_fds[i].fd);
			free(p->btf_fds[i].module);
			p->btf_fds[i] = p->btf_fds[--p->n_btf_fds];
			break;
		}
	btfs_forget(p->btfs, module);
}
