// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

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

struct features {
	bool fentry, kmulti, tp_btf, umulti;
	const struct btf *vmlinux;  /* NULL: not known, every tracepoint assumed there */
};

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
			   const struct features *ft)
{
	struct bpf_program *prog;

	bpf_object__for_each_program(prog, skel->obj) {
		const char *sec = bpf_program__section_name(prog);
		bool want = o->units & UNIT_BIT(prog_unit(prog)), btf;
		const char *tp;

		if (strncmp(sec, "fentry", 6) == 0 || strncmp(sec, "fexit", 5) == 0) {
			want &= ft->fentry;
			if (want)
				bpf_program__set_attach_target(prog, 0, FENTRY_TEMPLATE_TARGET);
		} else if (strncmp(bpf_program__name(prog), "umulti_", 7) == 0) {
			want &= ft->umulti;
			if (want)
				bpf_program__set_expected_attach_type(prog, UMULTI_ATTACH_TYPE);
		} else if (strstr(sec, "probe.multi")) {
			want &= ft->kmulti;
		} else if ((tp = prog_tracepoint(prog, &btf))) {
			want &= !btf || (ft->tp_btf && tracepoint_known(ft->vmlinux, tp));
		}
		bpf_program__set_autoload(prog, want);
	}
	if (o->units & UNIT_BIT(UNIT_BLOCK))
		skel->rodata->block_cfg = o->block_cfg;
}

static int skel_load(const struct probes_opts *o, const struct features *ft,
		     struct smblat_bpf **ret)
{
	struct smblat_bpf *skel = smblat_bpf__open();
	int r;

	if (!skel)
		return -errno;
	skel->rodata->cfg.tgid = o->tgid;
	skel->rodata->cfg.self_tgid = o->self_tgid;
	skel->rodata->cfg.cgroup_id = o->cgroup_id;
	if (o->comm && *o->comm) {
		skel->rodata->cfg.filter_comm = 1;
		strncpy(skel->rodata->cfg.comm, o->comm, SMBLAT_COMM_LEN - 1);
	}
	bpf_map__set_max_entries(skel->maps.events, o->ringbuf_bytes);
	bpf_map__set_max_entries(skel->maps.hist, o->func_capacity * SMBLAT_NBUCKETS);
	if (o->share_view_max)
		bpf_map__set_max_entries(skel->maps.share_view, o->share_view_max);
	programs_setup(skel, o, ft);
	r = smblat_bpf__load(skel);
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

/* Some kernels load trampolines but refuse to attach them: try once for real. */
static bool fentry_works(struct probes *p)
{
	struct bpf_link *l = bpf_program__attach_trace(p->skel->progs.call_fentry);

	if (!l) {
		p->fentry_why = errdup("fentry attach refused", -errno);
		return false;
	}
	bpf_link__destroy(l);
	return true;
}

int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs,
		struct probes **ret)
{
	struct probes *p = calloc(1, sizeof(*p));
	struct features ft = {
		.fentry = o->choice == CHOICE_AUTO || o->choice == CHOICE_FENTRY,
		.kmulti = o->choice == CHOICE_AUTO || o->choice == CHOICE_KPROBE_MULTI,
		.tp_btf = o->units & (UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL)),
		.umulti = true,
		.vmlinux = btfs_get(btfs, NULL),
	};
	int r;

	if (!p)
		return -ENOMEM;
	p->ks = ks;
	p->btfs = btfs;
	p->choice = o->choice;
	/* Each optional program type is a feature probe: drop what the kernel refuses. */
	r = skel_load(o, &ft, &p->skel);
	/*
	 * tp_btf first: a refusal it did not cause costs only the raw_tp
	 * fallback, which does the same, while fentry would fall back to kprobes.
	 */
	if (r < 0 && ft.tp_btf) {
		p->tp_btf_why = errdup("tp_btf programs refused", r);
		ft.tp_btf = false;
		r = skel_load(o, &ft, &p->skel);
	}
	if (r < 0 && ft.fentry) {
		p->fentry_why = errdup("fentry programs refused", r);
		ft.fentry = false;
		r = skel_load(o, &ft, &p->skel);
	}
	if (r < 0 && (ft.kmulti || ft.umulti)) {
		if (ft.kmulti)
			p->kmulti_why = errdup("kprobe.multi programs refused", r);
		ft.kmulti = ft.umulti = false;
		r = skel_load(o, &ft, &p->skel);
	}
	if (r < 0 && (o->units & (UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL)))) {
		/* The other layers need not go down with the tracepoint ones. */
		struct probes_opts bare = *o;

		bare.units &= ~(UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL));
		free(p->tp_btf_why);
		p->tp_btf_why = errdup("block and syscall programs refused", r);
		r = skel_load(&bare, &ft, &p->skel);
	}
	if (r < 0) {
		fprintf(stderr, "smblat: cannot load BPF programs: %s\n", strerror(-r));
		probes_close(p);
		return r;
	}
	p->fentry = ft.fentry && fentry_works(p);
	p->kmulti = ft.kmulti;
	p->tp_btf = ft.tp_btf;
	p->umulti = ft.umulti;
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
	if (p->fentry)
		return BACKEND_FENTRY;
	if (p->kmulti && p->kprobe)
		return BACKEND_KPROBE_MULTI;
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
	if (bpf_map__update_elem(p->skel->maps.funcs, &f->id, sizeof(f->id), &f->cfg,
				 sizeof(f->cfg), BPF_ANY) < 0)
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

int probes_hist_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.hist);
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

uint64_t probes_epoch(const struct probes *p)
{
	return __atomic_load_n(&p->skel->data->epoch, __ATOMIC_SEQ_CST);
}

void probes_smb2_set(struct probes *p, const struct smb2_ctl *ctl)
{
	/* Off first, so no probe sees ids of one setting and arguments of another. */
	__atomic_store_n(&p->skel->data->smb2.on, 0, __ATOMIC_SEQ_CST);
	memcpy(&p->skel->data->smb2, ctl, sizeof(*ctl));
	__atomic_store_n(&p->skel->data->smb2.on, ctl->on, __ATOMIC_SEQ_CST);
}

void probes_smbd_layout_set(struct probes *p, const struct smbd_hdr_layout *l)
{
	__atomic_store_n(&p->skel->bss->smbd_hdr.on, 0, __ATOMIC_SEQ_CST);
	p->skel->bss->smbd_hdr.current_idx = l->current_idx;
	p->skel->bss->smbd_hdr.in_vector = l->in_vector;
	__atomic_store_n(&p->skel->bss->smbd_hdr.on, l->on, __ATOMIC_SEQ_CST);
}

void probes_share_view_set(struct probes *p, bool on)
{
	__atomic_store_n(&p->skel->bss->views.share_on, on, __ATOMIC_SEQ_CST);
}

int probes_share_view_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.share_view);
}

int probes_share_overflow_fd(const struct probes *p)
{
	return bpf_map__fd(p->skel->maps.share_overflow);
}

uint32_t probes_attached(const struct probes *p)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < p->n_att; i++)
		if (p->att[i].link_fd[0] >= 0 || p->att[i].link[0])
			n++;
	return n;
}

/* reliability: ids the histogram map was sized for; a reload cannot add more. */
uint32_t probes_func_capacity(const struct probes *p)
{
	return bpf_map__max_entries(p->skel->maps.hist) / SMBLAT_NBUCKETS;
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
