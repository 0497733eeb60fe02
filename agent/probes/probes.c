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
#include "probes/inflight.h"
#include "probes/probes-int.h"

/* Any long-lived vmlinux function with BTF: the template is never attached there. */
#define FENTRY_TEMPLATE_TARGET "vfs_read"

char *errdup(const char *what, int err)
{
	char *s;

	if (asprintf(&s, "%s: %s", what, strerror(err < 0 ? -err : err)) < 0)
		return NULL;
	return s;
}

/* "tp_btf/block_rq_issue" -> "block_rq_issue", or NULL for other programs. */
static const char *prog_tracepoint(const struct bpf_program *prog, bool *btf)
{
	const char *sec = bpf_program__section_name(prog);

	*btf = strncmp(sec, "tp_btf/", 7) == 0;
	if (*btf)
		return sec + 7;
	return strncmp(sec, "raw_tp/", 7) == 0 ? sec + 7 : NULL;
}

/* Which unit of bpf/ a program is of, by the names its unit gives them. */
static enum prog_unit prog_unit(const struct bpf_program *prog)
{
	static const struct {
		const char *prefix;
		enum prog_unit unit;
	} units[] = {
		{ "vfs_", UNIT_VFS }, { "smb2_", UNIT_SMB2 }, { "blk_", UNIT_BLOCK },
		{ "sys_", UNIT_SYSCALL }, { "smbd_", UNIT_SMBD }, { "umulti_smbd_", UNIT_SMBD },
	};
	const char *name = bpf_program__name(prog);

	for (size_t i = 0; i < sizeof(units) / sizeof(*units); i++)
		if (strncmp(name, units[i].prefix, strlen(units[i].prefix)) == 0)
			return units[i].unit;
	return UNIT_FUNC;
}

/* The optional kinds of program: each one the kernel may refuse. */
enum feature {
	FEAT_NONE,                  /* every kernel with BPF takes it */
	FEAT_FENTRY,
	FEAT_KMULTI,
	FEAT_UMULTI,
	FEAT_USESSION,
	FEAT_TP_BTF,
	_FEAT_MAX,
};

struct features {
	bool on[_FEAT_MAX];
	const struct btf *vmlinux;  /* NULL: not known, every tracepoint assumed there */
};

static enum feature prog_feature(const struct bpf_program *prog)
{
	const char *sec = bpf_program__section_name(prog), *name = bpf_program__name(prog);
	bool btf;

	if (strncmp(sec, "fentry", 6) == 0 || strncmp(sec, "fexit", 5) == 0)
		return FEAT_FENTRY;
	if (strncmp(name, "umulti_", 7) == 0)
		return FEAT_UMULTI;
	if (strcmp(name, "usession") == 0)
		return FEAT_USESSION;
	if (strstr(sec, "probe.multi"))
		return FEAT_KMULTI;
	if (prog_tracepoint(prog, &btf) && btf)
		return FEAT_TP_BTF;
	return FEAT_NONE;
}

/*
 * A tp_btf program of a tracepoint this kernel lacks (block_io_start before
 * 6.5) would fail the whole load: it is left out, and its raw_tp twin then
 * fails only its own attach.
 */
static bool tracepoint_known(const struct btf *vmlinux, const char *tp)
{
	char name[128];

	if (!vmlinux)
		return true;
	snprintf(name, sizeof(name), "btf_trace_%s", tp);
	return btf__find_by_name_kind(vmlinux, name, BTF_KIND_TYPEDEF) >= 0;
}

/*
 * Programs load for the units the layers asked for, and only of the kinds
 * the kernel is still believed to take: each refused kind is dropped in
 * turn by probes_open().
 */
static void programs_setup(struct smblat_bpf *skel, const struct probes_opts *o,
			   const struct features *ft, bool fentry_only)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		enum feature f = prog_feature(prog);
		bool want = (o->units & UNIT_BIT(prog_unit(prog))) && (f == FEAT_NONE || ft->on[f]);

		/* the fentry object: the templates of the units, and the one fentry_usable() tries */
		if (fentry_only)
			want = f == FEAT_FENTRY && ((o->units & UNIT_BIT(prog_unit(prog))) ||
						    strcmp(bpf_program__name(prog), "call_fentry") == 0);

		if (want && f == FEAT_TP_BTF) {
			bool btf;

			want = tracepoint_known(ft->vmlinux, prog_tracepoint(prog, &btf));
		}
		if (want && f == FEAT_FENTRY)
			bpf_program__set_attach_target(prog, 0, FENTRY_TEMPLATE_TARGET);
		else if (want && f == FEAT_UMULTI)
			bpf_program__set_expected_attach_type(prog, UMULTI_ATTACH_TYPE);
		else if (want && f == FEAT_USESSION)
			bpf_program__set_expected_attach_type(prog, USESSION_ATTACH_TYPE);
		bpf_program__set_autoload(prog, want);
	}
	if (o->units & UNIT_BIT(UNIT_BLOCK))
		skel->rodata->block_cfg = o->block_cfg;
}

/*
 * Opens and loads the object; with share, only its fentry templates, on the
 * maps of share (the same counters, frames and ring buffer).
 */
static int skel_load(const struct probes_opts *o, const struct features *ft,
		     const struct smblat_bpf *share, struct smblat_bpf **ret)
{
	uint64_t t0 = prof_now_ns();
	struct smblat_bpf *skel = smblat_bpf__open();
	struct bpf_map *m;
	int r;

	if (!skel)
		return -errno;
	bpf_object__for_each_map(m, skel->obj) {
		const struct bpf_map *theirs = share ?
			bpf_object__find_map_by_name(share->obj, bpf_map__name(m)) : NULL;

		if (theirs && bpf_map__reuse_fd(m, bpf_map__fd(theirs)) < 0) {
			r = -errno;
			smblat_bpf__destroy(skel);
			return r;
		}
	}
	skel->rodata->cfg.tgid = o->tgid;
	skel->rodata->cfg.self_tgid = o->self_tgid;
	skel->rodata->cfg.cgroup_id = o->cgroup_id;
	if (o->comm && *o->comm) {
		skel->rodata->cfg.filter_comm = 1;
		strncpy(skel->rodata->cfg.comm, o->comm, SMBLAT_COMM_LEN - 1);
	}
	bpf_map__set_max_entries(skel->maps.events, o->ringbuf_bytes);
	bpf_map__set_max_entries(skel->maps.stats, o->func_capacity);
	programs_setup(skel, o, ft, share != NULL);
	r = smblat_bpf__load(skel);
	prof_add(PROF_LOAD, t0);
	if (r < 0) {
		smblat_bpf__destroy(skel);
		return r;
	}
	*ret = skel;
	return 0;
}

bool probes_unit_loaded(const struct probes *p, enum prog_unit u)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, p->skel->obj)
		if (prog_unit(prog) == u && bpf_program__autoload(prog))
			return true;
	return false;
}

/*
 * Some kernels load trampolines but refuse to attach them: try once for
 * real, when fentry is first wanted (a trampoline costs a grace period to
 * take down, which a start that uses kprobe.multi need not pay).
 */
static bool fentry_usable(struct probes *p)
{
	struct features ft = { .on = { [FEAT_FENTRY] = true } };
	struct bpf_link *l;
	int r;

	if (!p->fentry || p->fentry_tried)
		return p->fentry;
	p->fentry_tried = true;
	/*
	 * The templates load only now, into an object of their own on the same
	 * maps: a start that attaches with kprobe.multi does not verify them.
	 */
	r = skel_load(&p->opts, &ft, p->skel, &p->fskel);
	if (r < 0) {
		p->fentry_why = errdup("fentry programs refused", r);
		p->fentry = false;
		return false;
	}
	l = bpf_program__attach_trace(p->fskel->progs.call_fentry);
	if (!l) {
		p->fentry_why = errdup("fentry attach refused", -errno);
		p->fentry = false;
		return false;
	}
	bpf_link__destroy(l);
	return true;
}

/* Whether vmlinux's enum bpf_attach_type has the value called name. */
static bool attach_type_known(const struct btf *btf, const char *name)
{
	uint32_t n = btf__type_cnt(btf);

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const struct btf_enum *e;

		if (!btf_is_enum(t) || strcmp(btf__name_by_offset(btf, t->name_off), "bpf_attach_type"))
			continue;
		e = btf_enum(t);
		for (uint16_t i = 0; i < btf_vlen(t); i++)
			if (strcmp(btf__name_by_offset(btf, e[i].name_off), name) == 0)
				return true;
		return false;
	}
	return false;
}

/*
 * uprobe.session (Linux 6.13), told by the kernel's BTF: the attach type
 * and the kfunc the program calls. Loading a program the kernel cannot take
 * would cost a second load of the whole object.
 */
static bool usession_known(struct btfs *btfs)
{
	const struct btf *btf;

	return btfs_func(btfs, NULL, "bpf_session_cookie", &btf) >= 0 &&
	       attach_type_known(btf, "BPF_TRACE_UPROBE_SESSION");
}

/*
 * The program libbpf last failed to load, caught from its warning while the
 * object loads, so that a refusal drops the kind of program refused and no
 * other: on Debian's 6.1 the kprobe.multi programs fail to load, and
 * dropping kinds in a fixed order dropped fentry first.
 */
static char failed_prog[64];
static libbpf_print_fn_t print_next;

static int print_catch(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	static const char refused[] = "prog '%s': failed to load";
	va_list copy;

	if (level == LIBBPF_WARN && strncmp(fmt, refused, sizeof(refused) - 1) == 0) {
		va_copy(copy, ap);
		snprintf(failed_prog, sizeof(failed_prog), "%s", va_arg(copy, const char *));
		va_end(copy);
	}
	return print_next ? print_next(level, fmt, ap) : 0;
}

/* The kind of the program called name, FEAT_NONE when there is none such. */
static enum feature feature_of(const char *name)
{
	struct smblat_bpf *skel = smblat_bpf__open();
	struct bpf_program *prog;
	enum feature f = FEAT_NONE;

	if (!skel)
		return FEAT_NONE;
	prog = bpf_object__find_program_by_name(skel->obj, name);
	if (prog)
		f = prog_feature(prog);
	smblat_bpf__destroy(skel);
	return f;
}

static const char *const feature_refused[_FEAT_MAX] = {
	[FEAT_FENTRY] = "fentry programs refused",
	[FEAT_KMULTI] = "kprobe.multi programs refused",
	[FEAT_UMULTI] = "uprobe.multi programs refused",
	[FEAT_USESSION] = "uprobe.session programs refused",
	[FEAT_TP_BTF] = "tp_btf programs refused",
};

/* What a failed load says to drop: the refused program's kind, else the first kind on. */
static enum feature feature_to_drop(const struct features *ft)
{
	enum feature f = failed_prog[0] ? feature_of(failed_prog) : FEAT_NONE;

	if (f != FEAT_NONE && ft->on[f])
		return f;
	/* unknown: tp_btf first, as raw_tp does the same; fentry would fall back to kprobes */
	static const enum feature order[] = { FEAT_TP_BTF, FEAT_FENTRY, FEAT_USESSION, FEAT_UMULTI,
					      FEAT_KMULTI };
	for (size_t i = 0; i < sizeof(order) / sizeof(*order); i++)
		if (ft->on[order[i]])
			return order[i];
	return FEAT_NONE;
}

/* Loads the object with every kind of program the kernel takes; the kinds it refused say why. */
static int load_what_loads(struct probes *p, const struct probes_opts *o, struct features *ft)
{
	char *why[_FEAT_MAX] = {};
	enum feature f;
	int r;

	print_next = libbpf_set_print(print_catch);
	for (;;) {
		failed_prog[0] = '\0';
		r = skel_load(o, ft, NULL, &p->skel);
		f = r < 0 ? feature_to_drop(ft) : FEAT_NONE;
		if (f == FEAT_NONE)
			break;
		ft->on[f] = false;
		free(why[f]);
		why[f] = errdup(feature_refused[f], r);
	}
	libbpf_set_print(print_next);
	p->fentry_why = why[FEAT_FENTRY];
	p->kmulti_why = why[FEAT_KMULTI];
	p->tp_btf_why = why[FEAT_TP_BTF];
	free(why[FEAT_UMULTI]);
	free(why[FEAT_USESSION]);
	return r;
}

int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs,
		struct probes **ret)
{
	struct probes *p = calloc(1, sizeof(*p));
	struct features ft = {
		.on = {
			/* the fentry templates load later, on their own (fentry_usable()) */
			[FEAT_KMULTI] = o->choice == CHOICE_AUTO || o->choice == CHOICE_KPROBE_MULTI,
			[FEAT_TP_BTF] = o->units & (UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL)),
			[FEAT_UMULTI] = true,
			[FEAT_USESSION] = (o->units & UNIT_BIT(UNIT_FUNC)) && usession_known(btfs),
		},
		.vmlinux = btfs_get(btfs, NULL),
	};
	int r;

	if (!p)
		return -ENOMEM;
	p->ks = ks;
	p->btfs = btfs;
	p->choice = o->choice;
	p->opts = *o;
	r = load_what_loads(p, o, &ft);
	if (r < 0 && (o->units & (UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL)))) {
		/* The other layers need not go down with the tracepoint ones. */
		struct probes_opts bare = *o;

		bare.units &= ~(UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL));
		free(p->tp_btf_why);
		p->tp_btf_why = errdup("block and syscall programs refused", r);
		r = skel_load(&bare, &ft, NULL, &p->skel);
	}
	if (r < 0) {
		fprintf(stderr, "smblat: cannot load BPF programs: %s\n", strerror(-r));
		probes_close(p);
		return r;
	}
	p->fentry = o->choice == CHOICE_AUTO || o->choice == CHOICE_FENTRY;
	p->kmulti = ft.on[FEAT_KMULTI];
	p->tp_btf = ft.on[FEAT_TP_BTF];
	p->umulti = ft.on[FEAT_UMULTI];
	p->usession = ft.on[FEAT_USESSION];
	p->kprobe = access("/sys/bus/event_source/devices/kprobe/type", F_OK) == 0;
	if (!p->kprobe)
		p->kprobe_why = strdup("kernel has no kprobes (no kprobe event source)");
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

void probes_close(struct probes *p)
{
	if (!p)
		return;
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
	if (fentry_usable(p))
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
	if (bpf_map__update_elem(p->skel->maps.funcs, &f->id, sizeof(f->id), &c,
				 sizeof(c), BPF_ANY) < 0)
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
	uint64_t t0 = prof_now_ns();
	int fd, lfd;

	fd = bpf_prog_load(BPF_PROG_TYPE_TRACING,
			   type == BPF_TRACE_FENTRY ? "smblat_entry" : "smblat_exit", "GPL",
			   bpf_program__insns(tmpl), bpf_program__insn_cnt(tmpl), &lo);
	prof_add(PROF_CLONE, t0);
	if (fd < 0)
		return -errno;
	t0 = prof_now_ns();
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
			f ? f->progs.vfs_fentry : NULL, f ? f->progs.vfs_fexit : NULL,
			k->progs.vfs_kprobe, k->progs.vfs_kretprobe,
			k->progs.vfs_kmulti, k->progs.vfs_kretmulti,
		};
	case KPROGS_SMB2_ALLOC:
		return (struct kprogs) {
			NULL, f ? f->progs.smb2_alloc_fexit : NULL,
			k->progs.smb2_alloc_kprobe, k->progs.smb2_alloc_kretprobe,
			k->progs.smb2_alloc_kmulti, k->progs.smb2_alloc_kretmulti,
		};
	case KPROGS_SMB2_MID:
		return (struct kprogs) {
			f ? f->progs.smb2_mid_fentry : NULL, NULL, k->progs.smb2_mid_kprobe, NULL,
			k->progs.smb2_mid_kmulti, NULL,
		};
	default:
		return (struct kprogs) {
			f ? f->progs.call_fentry : NULL, f ? f->progs.call_fexit : NULL,
			k->progs.call_kprobe, k->progs.call_kretprobe,
			k->progs.call_kmulti, k->progs.call_kretmulti,
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
	uint64_t t0 = prof_now_ns();
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
	*m = (struct multi) { .att = *att, .ids = calloc(n, sizeof(uint32_t)),
			      .live = calloc(n, sizeof(bool)), .n_ids = n, .n_live = n, .backend = be };
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
	t0 = prof_now_ns();
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
	r = multi_keep(p, &(struct attachment) { .id = UINT32_MAX, .prog_fd = { -1, -1 },
						 .link_fd = { -1, -1 }, .link = { l[0], l[1] } },
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
	for (uint32_t i = 0; i < n && fentry_usable(p); i++) {
		if (done[i])
			continue;
		kp = kprogs_of(p, fam);         /* the fentry templates loaded just now */
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

static struct bpf_program *tracepoint_prog(struct probes *p, const char *tp, bool btf)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, p->skel->obj) {
		const char *name;
		bool b;

		name = prog_tracepoint(prog, &b);
		if (name && b == btf && strcmp(name, tp) == 0 && bpf_program__autoload(prog))
			return prog;
	}
	return NULL;
}

static int tracepoint_link_keep(struct probes *p, const char *tp, struct bpf_link *l)
{
	typeof(p->tp) v = realloc(p->tp, (p->n_tp + 1) * sizeof(*v));

	if (!v) {
		bpf_link__destroy(l);
		return -ENOMEM;
	}
	p->tp = v;
	v[p->n_tp].name = strdup(tp);
	v[p->n_tp++].link = l;
	return 0;
}

void probes_detach_tracepoint(struct probes *p, const char *tp)
{
	for (uint32_t i = 0; i < p->n_tp; i++)
		if (p->tp[i].link && p->tp[i].name && strcmp(p->tp[i].name, tp) == 0) {
			bpf_link__destroy(p->tp[i].link);
			p->tp[i].link = NULL;
		}
}

int probes_attach_tracepoint(struct probes *p, const char *tp)
{
	struct bpf_program *prog = p->tp_btf ? tracepoint_prog(p, tp, true) : NULL;
	struct bpf_link *l;
	int r;

	/* Loading is not enough: some kernels refuse tracing links at attach time. */
	if (prog) {
		l = bpf_program__attach_trace(prog);
		if (l) {
			r = tracepoint_link_keep(p, tp, l);
			return r < 0 ? r : BACKEND_TP_BTF;
		}
		free(p->tp_btf_why);
		p->tp_btf_why = errdup("tp_btf attach refused", -errno);
		p->tp_btf = false;
	}
	prog = tracepoint_prog(p, tp, false);
	if (!prog)
		return -ENOENT;
	l = bpf_program__attach_raw_tracepoint(prog, tp);
	if (!l)
		return -errno;
	r = tracepoint_link_keep(p, tp, l);
	return r < 0 ? r : BACKEND_RAW_TP;
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

static int id_set(struct bpf_map *m, uint32_t key, int id)
{
	uint32_t v = id < 0 ? 0 : (uint32_t)id + 1;

	if (bpf_map__update_elem(m, &key, sizeof(key), &v, sizeof(v), BPF_ANY) < 0)
		return -errno;
	return 0;
}

int probes_set_block_id(struct probes *p, uint32_t op, int id)
{
	return id_set(p->skel->maps.blk_ids, op, id);
}

int probes_set_syscall_id(struct probes *p, uint32_t nr, int id)
{
	return id_set(p->skel->maps.sys_ids, nr, id);
}

int probes_ringbuf_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.events);
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

void probes_smb2_set(struct probes *p, const struct smb2_ctl *ctl)
{
	/* Off first, so no probe sees ids of one setting and arguments of another. */
	__atomic_store_n(&p->skel->data->smb2.on, 0, __ATOMIC_SEQ_CST);
	memcpy(&p->skel->data->smb2, ctl, sizeof(*ctl));
	__atomic_store_n(&p->skel->data->smb2.on, ctl->on, __ATOMIC_SEQ_CST);
}

uint32_t probes_attached(const struct probes *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_att; i++)
		if (p->att[i].link_fd[0] >= 0 || p->att[i].link[0])
			n++;
	return n;
}

/* reliability: ids the stats map was sized for; a reload cannot add more. */
uint32_t probes_func_capacity(const struct probes *p)
{
	return bpf_map__max_entries(p->skel->maps.stats);
}

int probes_sweep(struct probes *p, enum inflight_table t, const struct inflight_sweep *s)
{
	struct bpf_map *m = t == INFLIGHT_BLOCK ? p->skel->maps.blk_inflight :
			    t == INFLIGHT_SMB2 ? p->skel->maps.smb2_reqs : p->skel->maps.smbd_reqs;
	int fd = bpf_map__fd(m);

	if (fd < 0)
		return -EBADF;
	return inflight_sweep(fd, bpf_map__key_size(m), bpf_map__value_size(m), s);
}
