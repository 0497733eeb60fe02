// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The BPF object: which of its programs load on this kernel, from what the
 * kernel offers (features.h), and what the programs do instead where a
 * feature is missing (per-thread state in a hash, ids by probed place).
 */
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <bpf/libbpf.h>

#include "probes/inflight.h"
#include "probes/probes-int.h"

/* Any long-lived vmlinux function with BTF: the template is never attached there. */
#define FENTRY_TEMPLATE_TARGET "vfs_read"

/* The program kinds this kernel takes, and what the programs do instead of the others. */
struct kinds {
	bool fentry, kmulti, tp_btf, umulti;
	uint32_t compat;            /* enum smblat_compat */
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

/* Programs load for the units the layers asked for, and only of the kinds the kernel takes. */
static void programs_setup(struct smblat_bpf *skel, const struct probes_opts *o,
			   const struct kinds *ft)
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

/* Per-thread frames in a plain hash by thread id (prealloc'd: no allocation in a probe). */
static int frames_hash_setup(struct smblat_bpf *skel, uint32_t max_threads)
{
	int r = bpf_map__set_type(skel->maps.frames, BPF_MAP_TYPE_HASH);

	if (r == 0)
		r = bpf_map__set_map_flags(skel->maps.frames, 0);
	if (r == 0)
		r = bpf_map__set_max_entries(skel->maps.frames, max_threads);
	return r;
}

static int skel_load(const struct probes_opts *o, const struct kinds *ft,
		     struct smblat_bpf **ret)
{
	struct smblat_bpf *skel = smblat_bpf__open();
	int r;

	if (!skel)
		return -errno;
	skel->rodata->cfg.tgid = o->tgid;
	skel->rodata->cfg.self_tgid = o->self_tgid;
	skel->rodata->cfg.cgroup_id = o->cgroup_id;
	skel->rodata->cfg.compat = ft->compat;
	if (o->comm && *o->comm) {
		skel->rodata->cfg.filter_comm = 1;
		strncpy(skel->rodata->cfg.comm, o->comm, SMBLAT_COMM_LEN - 1);
	}
	bpf_map__set_max_entries(skel->maps.events, o->ringbuf_bytes);
	bpf_map__set_max_entries(skel->maps.hist, o->func_capacity * SMBLAT_NBUCKETS);
	r = ft->compat & COMPAT_FRAMES_HASH ? frames_hash_setup(skel, o->max_threads) : 0;
	if (r == 0) {
		programs_setup(skel, o, ft);
		r = smblat_bpf__load(skel);
	}
	if (r < 0) {
		smblat_bpf__destroy(skel);
		return r;
	}
	*ret = skel;
	return 0;
}

/* "kprobe.multi: Operation not supported (CONFIG_FPROBE, Linux 5.18)", malloc'd. */
static char *missing_dup(const struct features *f, enum kfeature k)
{
	const char *why = features_why(f, k);
	char *s;

	if (asprintf(&s, "%s: %s (%s)", features_name(k), why ? why : "missing",
		     features_since(k)) < 0)
		return NULL;
	return s;
}

/* The first of ks the kernel lacks, or _KF_MAX. */
static enum kfeature first_missing(const struct features *f, const enum kfeature *ks, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!features_has(f, ks[i]))
			return ks[i];
	return _KF_MAX;
}

/* What the kernel's features allow of the backends the configuration chose. */
static void backends_choose(struct probes *p, const struct probes_opts *o, struct kinds *ft)
{
	static const enum kfeature fentry_needs[] = { KF_FENTRY, KF_FENTRY_ARGS, KF_FENTRY_COOKIE };
	enum kfeature k = first_missing(o->features, fentry_needs, 3);

	ft->fentry = (o->choice == CHOICE_AUTO || o->choice == CHOICE_FENTRY) && k == _KF_MAX;
	if (k != _KF_MAX)
		p->fentry_why = missing_dup(o->features, k);
	ft->kmulti = (o->choice == CHOICE_AUTO || o->choice == CHOICE_KPROBE_MULTI) &&
		     features_has(o->features, KF_KPROBE_MULTI);
	if (!features_has(o->features, KF_KPROBE_MULTI))
		p->kmulti_why = missing_dup(o->features, KF_KPROBE_MULTI);
	p->kprobe = features_has(o->features, KF_KPROBE);
	if (!p->kprobe)
		p->kprobe_why = missing_dup(o->features, KF_KPROBE);
	ft->tp_btf = (o->units & (UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL))) &&
		     features_has(o->features, KF_TP_BTF);
	if (!features_has(o->features, KF_TP_BTF))
		p->tp_btf_why = missing_dup(o->features, KF_TP_BTF);
	ft->umulti = features_has(o->features, KF_UPROBE_MULTI);
}

/* Task storage, or the hash; -EOPNOTSUPP (said) when task storage is demanded and missing. */
static int thread_state_choose(struct probes *p, const struct probes_opts *o, struct kinds *ft)
{
	char buf[96];

	if (o->thread_state == TSTATE_TASK_STORAGE && !features_has(o->features, KF_TASK_STORAGE)) {
		fprintf(stderr, "smblat: thread_state = task-storage, but the kernel lacks %s\n",
			features_missing(KF_TASK_STORAGE, buf, sizeof(buf)));
		return -EOPNOTSUPP;
	}
	p->frames_hash = o->thread_state == TSTATE_HASH ||
			 !features_has(o->features, KF_TASK_STORAGE);
	p->max_threads = o->max_threads;
	if (p->frames_hash)
		ft->compat |= COMPAT_FRAMES_HASH;
	p->place_ids = !features_has(o->features, KF_COOKIE);
	if (p->place_ids)
		ft->compat |= COMPAT_PLACE_IDS;
	return 0;
}

/* What no program runs without: said, and -EOPNOTSUPP. */
static int essentials_check(const struct features *f)
{
	static const enum kfeature needed[] = { KF_BTF, KF_RINGBUF };
	enum kfeature k = first_missing(f, needed, 2);
	char buf[96];

	if (k == _KF_MAX)
		return 0;
	fprintf(stderr, "smblat: cannot load BPF programs: the kernel lacks %s\n",
		features_missing(k, buf, sizeof(buf)));
	return -EOPNOTSUPP;
}

/* The last thing libbpf said at warning level, for the one line of a failed load. */
static char libbpf_said[256];
static libbpf_print_fn_t libbpf_print_next;

static int libbpf_keep_last(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	va_list aq;

	if (level == LIBBPF_WARN) {
		va_copy(aq, ap);
		vsnprintf(libbpf_said, sizeof(libbpf_said), fmt, aq);
		va_end(aq);
		libbpf_said[strcspn(libbpf_said, "\n")] = '\0';
	}
	return libbpf_print_next ? libbpf_print_next(level, fmt, ap) : 0;
}

/* Loads; should the tracepoint programs be refused, the others go on without them. */
static int load(struct probes *p, const struct probes_opts *o, struct kinds *ft)
{
	const uint32_t tp_units = UNIT_BIT(UNIT_BLOCK) | UNIT_BIT(UNIT_SYSCALL);
	int r;

	libbpf_said[0] = '\0';
	libbpf_print_next = libbpf_set_print(libbpf_keep_last);
	r = skel_load(o, ft, &p->skel);
	if (r < 0 && (o->units & tp_units)) {
		struct probes_opts bare = *o;

		bare.units &= ~tp_units;
		free(p->tp_btf_why);
		p->tp_btf_why = NULL;
		if (asprintf(&p->tp_btf_why, "block and syscall programs refused: %s%s%s",
			     strerror(-r), libbpf_said[0] ? ": " : "", libbpf_said) < 0)
			p->tp_btf_why = NULL;
		r = skel_load(&bare, ft, &p->skel);
	}
	libbpf_set_print(libbpf_print_next);
	if (r < 0)
		fprintf(stderr, "smblat: cannot load BPF programs: %s%s%s\n", strerror(-r),
			libbpf_said[0] ? ": " : "", libbpf_said);
	return r;
}

int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs,
		struct probes **ret)
{
	struct probes *p = calloc(1, sizeof(*p));
	struct kinds ft = { .vmlinux = btfs_get(btfs, NULL) };
	int r;

	if (!p)
		return -ENOMEM;
	p->ks = ks;
	p->btfs = btfs;
	p->features = o->features;
	p->choice = o->choice;
	backends_choose(p, o, &ft);
	r = essentials_check(o->features);
	if (r == 0)
		r = thread_state_choose(p, o, &ft);
	if (r == 0)
		r = load(p, o, &ft);
	if (r < 0) {
		probes_close(p);
		return r;
	}
	p->fentry = ft.fentry;
	p->kmulti = ft.kmulti;
	p->tp_btf = ft.tp_btf;
	p->umulti = ft.umulti;
	*ret = p;
	return 0;
}

const char *probes_thread_state(const struct probes *p, char *buf, size_t size)
{
	if (!p->frames_hash)
		return "task storage";
	snprintf(buf, size, "a hash of %u threads", p->max_threads);
	return buf;
}

/* A thread of the frames hash that no longer exists (its last return never seen). */
static bool thread_gone(const void *key, const void *value, void *userdata)
{
	uint32_t tid;

	memcpy(&tid, key, sizeof(tid));
	return kill((pid_t)tid, 0) < 0 && errno == ESRCH;
}

int probes_frames_sweep(struct probes *p)
{
	struct inflight_sweep s = { .now_ns = inflight_now(), .max_age_ns = UINT64_MAX,
				    .stale = thread_gone };
	struct bpf_map *m = p->skel->maps.frames;

	if (!p->frames_hash)
		return 0;
	return inflight_sweep(bpf_map__fd(m), bpf_map__key_size(m), bpf_map__value_size(m), &s);
}

int place_set(struct probes *p, uint64_t addr, uint64_t offset, uint32_t id)
{
	struct probe_place pl = { .addr = addr, .offset = offset };

	if (bpf_map__update_elem(p->skel->maps.probe_ids, &pl, sizeof(pl), &id, sizeof(id),
				 BPF_ANY) < 0)
		return -errno;
	return 0;
}

