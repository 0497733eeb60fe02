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

char *errdup(const char *what, int err)
{
	char *s;

	if (asprintf(&s, "%s: %s", what, strerror(err < 0 ? -err : err)) < 0)
		return NULL;
	return s;
}

bool probes_unit_loaded(const struct probes *p, enum prog_unit u)
{
	struct bpf_program *prog;

	bpf_object__for_each_program (prog, p->skel->obj)
		if (prog_unit(prog) == u && bpf_program__autoload(prog))
			return true;
	return false;
}

int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs, struct probes **ret)
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
	r = object_load(p, o); /* says why it fails */
	if (r < 0) {
		probes_close(p);
		return r;
	}
	*ret = p;
	return 0;
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
static struct kprogs kprogs_of(struct probes *p, enum kprog_family fam)
{
	struct smblat_bpf *k = p->skel, *f = p->fskel;

	switch (fam) {
	case KPROGS_VFS:
		return (struct kprogs) {
			f ? f->progs.vfs_fentry : NULL, f ? f->progs.vfs_fexit : NULL, k->progs.vfs_kprobe,
			k->progs.vfs_kretprobe,         k->progs.vfs_kmulti,           k->progs.vfs_kretmulti,
		};
	case KPROGS_SMB2_ALLOC:
		return (struct kprogs) {
			NULL,
			f ? f->progs.smb2_alloc_fexit : NULL,
			k->progs.smb2_alloc_kprobe,
			k->progs.smb2_alloc_kretprobe,
			k->progs.smb2_alloc_kmulti,
			k->progs.smb2_alloc_kretmulti,
		};
	case KPROGS_SMB2_MID:
		return (struct kprogs) {
			f ? f->progs.smb2_mid_fentry : NULL,
			NULL,
			k->progs.smb2_mid_kprobe,
			NULL,
			k->progs.smb2_mid_kmulti,
			NULL,
		};
	case KPROGS_SMB2_SENT:
		return (struct kprogs) {
			NULL, f ? f->progs.smb2_sent_fexit : NULL, NULL, k->progs.smb2_sent_kretprobe,
			NULL, k->progs.smb2_sent_kretmulti,
		};
	default:
		return (struct kprogs) {
			f ? f->progs.call_fentry : NULL,
			f ? f->progs.call_fexit : NULL,
			k->progs.call_kprobe,
			k->progs.call_kretprobe,
			k->progs.call_kmulti,
			k->progs.call_kretmulti,
		};
	}
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

static struct bpf_program *tracepoint_prog(struct probes *p, enum prog_unit u, const char *tp, bool btf)
{
	struct bpf_program *prog;

	bpf_object__for_each_program (prog, p->skel->obj) {
		const char *name;
		bool b;

		name = prog_tracepoint(prog, &b);
		if (name && b == btf && strcmp(name, tp) == 0 && prog_unit(prog) == u &&
		    bpf_program__autoload(prog))
			return prog;
	}
	return NULL;
}

static int tracepoint_link_keep(struct probes *p, enum prog_unit u, const char *tp, struct bpf_link *l,
				enum backend be)
{
	typeof(p->tp) v = realloc(p->tp, (p->n_tp + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	p->tp = v;
	v[p->n_tp].name = strdup(tp);
	v[p->n_tp].unit = u;
	v[p->n_tp].backend = be;
	v[p->n_tp++].link = l;
	return be;
}

static bool tracepoint_is(const struct probes *p, uint32_t i, enum prog_unit u, const char *tp)
{
	return p->tp[i].link && p->tp[i].unit == u && p->tp[i].name && strcmp(p->tp[i].name, tp) == 0;
}

void probes_detach_tracepoint(struct probes *p, enum prog_unit u, const char *tp)
{
	for (uint32_t i = 0; i < p->n_tp; i++)
		if (tracepoint_is(p, i, u, tp)) {
			bpf_link__destroy(p->tp[i].link);
			p->tp[i].link = NULL;
		}
}

enum backend probes_tracepoint_backend(const struct probes *p, enum prog_unit u, const char *tp)
{
	for (uint32_t i = 0; i < p->n_tp; i++)
		if (tracepoint_is(p, i, u, tp))
			return p->tp[i].backend;
	return BACKEND_NONE;
}

int probes_attach_tracepoint(struct probes *p, enum prog_unit u, const char *tp)
{
	struct bpf_program *prog = p->tp_btf ? tracepoint_prog(p, u, tp, true) : NULL;
	struct bpf_link *l;

	/* Loading is not enough: some kernels refuse tracing links at attach time. */
	if (prog) {
		l = bpf_program__attach_trace(prog);
		if (l)
			return tracepoint_link_keep(p, u, tp, l, BACKEND_TP_BTF);
		free(p->tp_btf_why);
		p->tp_btf_why = errdup("tp_btf attach refused", -errno);
		p->tp_btf = false;
	}
	prog = tracepoint_prog(p, u, tp, false);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_raw_tracepoint(prog, tp);
	if (!l)
		return -errno;
	return tracepoint_link_keep(p, u, tp, l, BACKEND_RAW_TP);
}

uint32_t probes_attached_tracepoints(const struct probes *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_tp; i++)
		n += p->tp[i].link != NULL;
	return n;
}

const char *probes_tp_btf_why(const struct probes *p)
{
	return p->tp_btf ? NULL : p->tp_btf_why;
}

uint32_t probes_attached(const struct probes *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_att; i++)
		if (p->att[i].link_fd[0] >= 0 || p->att[i].link[0])
			n++;
	return n;
}
