// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Kernel functions: fentry/fexit clones of a family's templates, one
 * kprobe.multi batch, or a kprobe pair, as the backend choice and the
 * kernel allow; and the module BTF the clones are made against.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/profile.h"
#include "base/clock.h"
#include "probes/probes-int.h"

enum backend probes_kernel_backend(struct probes *p, const char **why)
{
	if (p->kmulti && p->kprobe && p->choice != CHOICE_FENTRY)
		return BACKEND_KPROBE_MULTI;
	if (object_fentry_usable(p))
		return BACKEND_FENTRY;
	if (p->kprobe && (p->choice == CHOICE_AUTO || p->choice == CHOICE_KPROBE))
		return BACKEND_KPROBE;
	switch (p->choice) {
	case CHOICE_FENTRY:
		*why = p->fentry_why;
		break;
	case CHOICE_KPROBE_MULTI:
		*why = p->kprobe_why ? p->kprobe_why : p->kmulti_why;
		break;
	default:
		free(p->why);
		if (asprintf(&p->why, "%s; %s", p->fentry_why ? p->fentry_why : "fentry not tried",
			     p->kprobe_why ? p->kprobe_why : "kprobes refused") < 0)
			p->why = NULL;
		*why = p->why;
	}
	return BACKEND_NONE;
}

static int module_btf_fd(struct probes *p, const char *module)
{
	int fd;

	for (uint32_t i = 0; i < p->n_btf_fds; i++)
		if (strcmp(p->btf_fds[i].module, module) == 0)
			return p->btf_fds[i].fd;
	if (p->n_btf_fds == ELEMENTSOF(p->btf_fds))
		return -ENOSPC;
	fd = btfs_module_fd(p->btfs, module);
	if (fd < 0)
		return fd;
	p->btf_fds[p->n_btf_fds].module = strdup(module);
	p->btf_fds[p->n_btf_fds++].fd = fd;
	return fd;
}

/* Loads a copy of the fentry/fexit template for one target and links it. */
static int fentry_clone(struct probes *p, const struct bpf_program *tmpl, enum bpf_attach_type type,
			int btf_id, int obj_fd, uint32_t cookie, int *prog_fd, int *link_fd)
{
	LIBBPF_OPTS(bpf_prog_load_opts, lo, .expected_attach_type = type, .attach_btf_id = btf_id,
		    .attach_btf_obj_fd = obj_fd > 0 ? obj_fd : 0);
	LIBBPF_OPTS(bpf_link_create_opts, co, .tracing.cookie = cookie);
	uint64_t t0 = now_ns();
	int fd, lfd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING, type == BPF_TRACE_FENTRY ? "smblat_entry" : "smblat_exit",
			   "GPL", bpf_program__insns(tmpl), bpf_program__insn_cnt(tmpl), &lo);
	prof_add(PROF_CLONE, t0);
	if (fd < 0)
		return -errno;
	t0 = now_ns();
	lfd = bpf_link_create(fd, 0, type, &co);
	prof_add(PROF_LINK, t0);
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

/* The fentry programs live in fskel, the others in skel. */
static struct kprogs kprogs_of(struct probes *p, const struct kprog_family *fam)
{
	return (struct kprogs) {
		.fentry = prog_at(p->fskel, fam->fentry),
		.fexit = prog_at(p->fskel, fam->fexit),
		.kprobe = prog_at(p->skel, fam->kprobe),
		.kretprobe = prog_at(p->skel, fam->kretprobe),
		.kmulti = prog_at(p->skel, fam->kmulti),
		.kretmulti = prog_at(p->skel, fam->kretmulti),
	};
}

static int attach_fentry(struct probes *p, struct func *f, const struct kprogs *kp)
{
	const struct btf *btf;
	struct attachment *a;
	int btf_id, obj_fd = 0, r;

	btf_id = btfs_func(p->btfs, f->module, f->symbol, &btf);
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
		r = fentry_clone(p, kp->fentry, BPF_TRACE_FENTRY, btf_id, obj_fd, f->id, &a->prog_fd[0],
				 &a->link_fd[0]);
	if (r == 0 && kp->fexit)
		r = fentry_clone(p, kp->fexit, BPF_TRACE_FEXIT, btf_id, obj_fd, f->id, &a->prog_fd[1],
				 &a->link_fd[1]);
	if (r < 0) {
		attachment_release(a);
		p->n_att--;
	}
	return r;
}

/* Without cookies, the kprobe tells its function by address: the one kallsyms gives. */
static int kprobe_place(struct probes *p, const struct func *f)
{
	const struct ksym *k;

	if (!p->place_ids)
		return 0;
	k = ksyms_lookup(p->ks, f->symbol, f->module);
	return k ? place_set(p, k->addr, 0, f->id) : -ENOENT;
}

static int attach_kprobe(struct probes *p, struct func *f, const struct kprogs *kp)
{
	uint64_t cookie = p->place_ids ? 0 : f->id;
	LIBBPF_OPTS(bpf_kprobe_opts, eo, .bpf_cookie = cookie);
	LIBBPF_OPTS(bpf_kprobe_opts, xo, .bpf_cookie = cookie, .retprobe = true);
	uint64_t t0 = now_ns();
	struct attachment *a;
	int r = kprobe_place(p, f);

	if (r < 0)
		return r;
	a = attachment_new(p, f->id);
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
	prof_add(PROF_LINK, t0);
	return 0;
fail:
	r = -errno;
	prof_add(PROF_LINK, t0);
	attachment_release(a);
	p->n_att--;
	return r;
}

static int attach_kmulti(struct probes *p, struct func **fv, uint32_t n, bool *done, const struct kprogs *kp)
{
	unsigned long *addrs = calloc(n, sizeof(*addrs));
	__u64 *cookies = calloc(n, sizeof(*cookies));
	struct bpf_link *l[2] = {};
	uint32_t cnt = 0;
	uint64_t t0;
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
	t0 = now_ns();
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
	prof_add(PROF_LINK, t0);
	r = multi_keep(p,
		       &(struct attachment) { .id = UINT32_MAX,
					      .prog_fd = { -1, -1 },
					      .link_fd = { -1, -1 },
					      .link = { l[0], l[1] } },
		       (const uint64_t *)cookies, cnt, BACKEND_KPROBE_MULTI);
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

int probes_attach_kernel(struct probes *p, struct func **fv, uint32_t n, const struct kprog_family *fam)
{
	struct kprogs kp = kprogs_of(p, fam);
	bool *done = calloc(n ? n : 1, sizeof(*done));
	const char *why = NULL;
	uint32_t attached = 0;
	int r;

	if (!done)
		return -ENOMEM;
	for (uint32_t i = 0; i < n; i++)
		if (multi_revive(p, fv[i]->id) != BACKEND_NONE) {
			done[i] = true;
			func_set_attached(fv[i], BACKEND_KPROBE_MULTI);
		}
	/*
	 * One kprobe.multi link first: one program verified once for all the
	 * functions, and one unregistration at stop, where fentry verifies a
	 * clone per function and waits for a grace period per trampoline.
	 * Kernels whose kprobe.multi cannot take module functions (6.1) refuse
	 * the link; fentry then.
	 */
	if (p->kmulti && p->kprobe && p->choice != CHOICE_FENTRY) {
		r = attach_kmulti(p, fv, n, done, &kp);
		if (r < 0) {
			free(p->kmulti_why);
			p->kmulti_why = errdup("kprobe.multi attach refused", r);
			p->kmulti = false;
		}
	}
	for (uint32_t i = 0; i < n && object_fentry_usable(p); i++) {
		if (done[i])
			continue;
		kp = kprogs_of(p, fam); /* the fentry templates loaded just now */
		r = attach_fentry(p, fv[i], &kp);
		if (r == 0) {
			done[i] = true;
			func_set_attached(fv[i], BACKEND_FENTRY);
		} else if (r == -EPERM) {
			/* The kernel refuses trampolines altogether, not this target. */
			free(p->fentry_why);
			p->fentry_why = errdup("fentry attach refused", r);
			p->fentry = false;
		} else if (p->choice == CHOICE_FENTRY) {
			/*
			 * This target only (object_fentry_usable() attached the
			 * template): 6.1 refuses smb2_mid_entry_alloc's trampoline with
			 * ENOTSUPP and takes the cifs operations'.
			 */
			set_failed(fv[i], "fentry", r);
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
			func_set_state(fv[i], FUNC_NO_BACKEND, "%s",
				       why ? why : "no backend for kernel functions");
		}
	}
	for (uint32_t i = 0; i < n; i++)
		attached += done[i];
	free(done);
	return attached;
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
