// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The BPF object: which of its programs load on this kernel, and loading it
 * with every kind of program the kernel takes; the fentry templates in an
 * object of their own, loaded when fentry is first wanted; the maps and
 * globals of the object the layers and the core read and set.
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

#include "base/profile.h"
#include "probes/inflight.h"
#include "probes/probes-int.h"
#include "base/macro.h"
#include "base/clock.h"

/* Calls in progress whose entry's stack is kept where kretprobes cannot unwind (COMPAT_ENTRY_KSTACK): 272 KiB. */
#define ENTRY_KSTACKS 1024

/* Any long-lived vmlinux function with BTF: the template is never attached there. */
#define FENTRY_TEMPLATE_TARGET "vfs_read"

/* "tp_btf/block_rq_issue" -> "block_rq_issue", or NULL for other programs. */
const char *prog_tracepoint(const struct bpf_program *prog, bool *btf)
{
	const char *sec = bpf_program__section_name(prog);

	*btf = strncmp(sec, "tp_btf/", 7) == 0;
	if (*btf)
		return sec + 7;
	return strncmp(sec, "raw_tp/", 7) == 0 ? sec + 7 : NULL;
}

/* The program kinds the kernel is believed to take, and what the programs do instead of the others. */
struct kinds {
	bool on[_PROG_KIND_MAX];   /* [PROG_PLAIN]: always */
	uint32_t compat;           /* enum smblat_compat */
	bool session_ctx;          /* open smblat_ctx's bytes (session_takes_ctx()) */
	bool kernel_ustack;        /* open smblat_kustack's: the kernel walks user stacks */
	const struct btf *vmlinux; /* NULL: not known, every tracepoint assumed there */
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

/* Program spec of skel, as its unit wants it loaded or not. */
static void program_setup(struct smblat_bpf *skel, const struct prog_spec *spec, const struct kinds *ft,
			  bool fentry_only)
{
	struct bpf_program *prog = prog_at(skel, spec->at);
	bool want = ft->on[spec->kind] || spec->kind == PROG_PLAIN, btf;

	/* the fentry object: the templates of the units only */
	if (fentry_only)
		want = spec->kind == PROG_FENTRY;
	if (want && spec->kind == PROG_TP_BTF)
		want = tracepoint_known(ft->vmlinux, prog_tracepoint(prog, &btf));
	if (want && spec->kind == PROG_FENTRY)
		bpf_program__set_attach_target(prog, 0, FENTRY_TEMPLATE_TARGET);
	else if (want && (spec->kind == PROG_UMULTI || spec->kind == PROG_UMULTI_SLEEP))
		bpf_program__set_expected_attach_type(prog, UMULTI_ATTACH_TYPE);
	else if (want && spec->kind == PROG_USESSION)
		bpf_program__set_expected_attach_type(prog, USESSION_ATTACH_TYPE);
	if (want && (spec->kind == PROG_USLEEP || spec->kind == PROG_UMULTI_SLEEP))
		bpf_program__set_flags(prog, bpf_program__flags(prog) | BPF_F_SLEEPABLE);
	bpf_program__set_autoload(prog, want);
}

/*
 * Programs load for the units the layers asked for (and the call unit),
 * and only of the kinds the kernel is still believed to take: each refused
 * kind is dropped in turn by probes_open(). The units set up what they own.
 */
static void programs_setup(struct smblat_bpf *skel, const struct probes_opts *o, const struct kinds *ft,
			   bool fentry_only)
{
	struct bpf_program *prog;

	bpf_object__for_each_program (prog, skel->obj)
		bpf_program__set_autoload(prog, false);
	for (size_t i = 0; i < prog_unit_call.n; i++)
		program_setup(skel, &prog_unit_call.progs[i], ft, fentry_only);
	for (unsigned int u = 0; u < o->n_units; u++) {
		const struct prog_unit *unit = o->units[u].unit;

		for (size_t i = 0; i < unit->n; i++)
			program_setup(skel, &unit->progs[i], ft, fentry_only);
		if (unit->setup)
			unit->setup(skel, o->units[u].arg);
	}
}

/* Per-thread state in plain hashes by thread id (prealloc'd: no allocation in a probe). */
static int frames_hash_setup(struct smblat_bpf *skel, uint32_t max_threads)
{
	struct bpf_map *m[] = { skel->maps.frames, skel->maps.sys_calls };
	int r = 0;

	for (size_t i = 0; r == 0 && i < ELEMENTSOF(m); i++) {
		r = bpf_map__set_type(m[i], BPF_MAP_TYPE_HASH);
		if (r == 0)
			r = bpf_map__set_map_flags(m[i], 0);
		if (r == 0)
			r = bpf_map__set_max_entries(m[i], max_threads);
	}
	return r;
}

/*
 * Before Linux 6.1 (bpf_mem_alloc) a hash map that allocates its entries
 * as they come is unsafe in tracing programs: the verifier takes it with a
 * kernel warning (WARN_ONCE, the kernel is tainted). Those kernels get
 * every such map preallocated, and smaller (a per-CPU one smaller still:
 * each entry is one value per CPU).
 */
#define PREALLOC_MAX 1024
#define PREALLOC_PERCPU_MAX 256

static bool late_alloc_safe(const struct btf *vmlinux)
{
	return !vmlinux || btf__find_by_name_kind(vmlinux, "bpf_mem_alloc", BTF_KIND_STRUCT) >= 0;
}

static void maps_prealloc(struct smblat_bpf *skel)
{
	struct bpf_map *m;

	bpf_object__for_each_map (m, skel->obj) {
		enum bpf_map_type t = bpf_map__type(m);
		uint32_t max = t == BPF_MAP_TYPE_PERCPU_HASH ? PREALLOC_PERCPU_MAX : PREALLOC_MAX;

		if ((t != BPF_MAP_TYPE_HASH && t != BPF_MAP_TYPE_PERCPU_HASH) ||
		    !(bpf_map__map_flags(m) & BPF_F_NO_PREALLOC))
			continue;
		bpf_map__set_map_flags(m, bpf_map__map_flags(m) & ~BPF_F_NO_PREALLOC);
		if (bpf_map__max_entries(m) > max)
			bpf_map__set_max_entries(m, max);
	}
}

/* Maps nothing asked for keep one entry: stack maps are preallocated. */
static void maps_size(struct smblat_bpf *skel, const struct probes_opts *o)
{
	struct bpf_map *m[] = { skel->maps.stack_ids0, skel->maps.stack_ids1, skel->maps.stack_counts0,
				skel->maps.stack_counts1 };

	for (size_t i = 0; !o->stacks && i < ELEMENTSOF(m); i++)
		bpf_map__set_max_entries(m[i], 1);
	if (!o->offcpu)
		return;
	/* off-CPU time: a thread entry per thread inside a traced call, as the frames hash */
	bpf_map__set_max_entries(skel->maps.offcpu_threads, o->max_threads);
	bpf_map__set_max_entries(skel->maps.offcpu_stacks0, SMBLAT_OFFCPU_STACKS);
	bpf_map__set_max_entries(skel->maps.offcpu_stacks1, SMBLAT_OFFCPU_STACKS);
	bpf_map__set_max_entries(skel->maps.offcpu_sums0, SMBLAT_OFFCPU_KEYS);
	bpf_map__set_max_entries(skel->maps.offcpu_sums1, SMBLAT_OFFCPU_KEYS);
}

/* The fentry object's maps are the main object's (the same counters, frames and ring buffer). */
static int maps_share(struct smblat_bpf *skel, const struct smblat_bpf *share)
{
	struct bpf_map *m;

	bpf_object__for_each_map (m, skel->obj) {
		const struct bpf_map *theirs = bpf_object__find_map_by_name(share->obj, bpf_map__name(m));

		if (theirs && bpf_map__fd(theirs) < 0) {
			/* not made there: nothing of the templates uses it */
			bpf_map__set_autocreate(m, false);
			continue;
		}
		if (theirs && bpf_map__reuse_fd(m, bpf_map__fd(theirs)) < 0)
			return -errno;
	}
	return 0;
}

/* The read-only configuration every unit reads (struct smblat_cfg). */
static void cfg_set(struct smblat_bpf *skel, const struct probes_opts *o, const struct kinds *ft)
{
	skel->rodata->cfg.tgid = o->tgid;
	skel->rodata->cfg.self_tgid = o->self_tgid;
	skel->rodata->cfg.cgroup_id = o->cgroup_id;
	skel->rodata->cfg.compat = ft->compat;
	skel->rodata->offcpu_on = o->offcpu;
	if (o->comm && *o->comm) {
		skel->rodata->cfg.filter_comm = 1;
		strncpy(skel->rodata->cfg.comm, o->comm, SMBLAT_COMM_LEN - 1);
	}
}

/*
 * Opens and loads the object; with share, only its fentry templates, on the
 * maps of share.
 */
static int skel_load(const struct probes_opts *o, const struct kinds *ft, const struct smblat_bpf *share,
		     struct smblat_bpf **ret)
{
	uint64_t t0 = now_ns();
	struct smblat_bpf *skel = object_open(ft->session_ctx, ft->kernel_ustack);
	int r;

	if (!skel)
		return -errno;
	r = share ? maps_share(skel, share) : 0;
	if (r < 0) {
		smblat_bpf__destroy(skel);
		return r;
	}
	cfg_set(skel, o, ft);
	programs_setup(skel, o, ft, share != NULL);
	bpf_map__set_max_entries(skel->maps.events, o->ringbuf_bytes);
	bpf_map__set_max_entries(skel->maps.stats, o->func_capacity);
	if (!share)
		maps_size(skel, o);
	if (ft->compat & COMPAT_ENTRY_KSTACK)
		bpf_map__set_max_entries(skel->maps.entry_kstacks, ENTRY_KSTACKS);
	if (!share && !late_alloc_safe(ft->vmlinux))
		maps_prealloc(skel);
	/* a shared frames map comes as it is */
	r = (ft->compat & COMPAT_FRAMES_HASH) && !share ? frames_hash_setup(skel, o->max_threads) : 0;
	if (r == 0)
		r = smblat_bpf__load(skel);
	prof_add(PROF_LOAD, t0);
	if (r < 0) {
		smblat_bpf__destroy(skel);
		return r;
	}
	*ret = skel;
	return 0;
}

/*
 * Some kernels load trampolines but refuse to attach them: try once for
 * real, when fentry is first wanted (a trampoline costs a grace period to
 * take down, which a start that uses kprobe.multi need not pay).
 */
bool object_fentry_usable(struct probes *p)
{
	/*
	 * The templates are cloned per function without their BTF, and the
	 * kernel takes no global function nor bpf_loop() callback without it
	 * (EINVAL): a kernel-walk build.
	 */
	struct kinds ft = { .on = { [PROG_FENTRY] = true },
			    .compat = p->compat,
			    .session_ctx = p->session_ctx,
			    .kernel_ustack = true };
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
/* The last thing libbpf said at warning level, for the one line of a failed load. */
static char libbpf_said[256];
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
	if (level == LIBBPF_WARN) {
		va_copy(copy, ap);
		vsnprintf(libbpf_said, sizeof(libbpf_said), fmt, copy);
		va_end(copy);
		libbpf_said[strcspn(libbpf_said, "\n")] = '\0';
	}
	return print_next ? print_next(level, fmt, ap) : 0;
}

/* The kind of the program of unit u called name in skel, PROG_PLAIN when u has none such. */
static enum prog_kind unit_kind_of(const struct smblat_bpf *skel, const struct prog_unit *u, const char *name)
{
	for (size_t i = 0; i < u->n; i++)
		if (strcmp(bpf_program__name(prog_at(skel, u->progs[i].at)), name) == 0)
			return u->progs[i].kind;
	return PROG_PLAIN;
}

/* The kind of the program called name in the programs tables of o, PROG_PLAIN when none is such. */
static enum prog_kind kind_of(const struct probes_opts *o, const char *name)
{
	struct smblat_bpf *skel = smblat_bpf__open();
	enum prog_kind k;

	if (!skel)
		return PROG_PLAIN;
	k = unit_kind_of(skel, &prog_unit_call, name);
	for (unsigned int u = 0; k == PROG_PLAIN && u < o->n_units; u++)
		k = unit_kind_of(skel, o->units[u].unit, name);
	smblat_bpf__destroy(skel);
	return k;
}

static const char *const kind_refused[_PROG_KIND_MAX] = {
	[PROG_FENTRY] = "fentry programs refused",
	[PROG_KMULTI] = "kprobe.multi programs refused",
	[PROG_UMULTI] = "uprobe.multi programs refused",
	[PROG_USESSION] = "uprobe.session programs refused",
	[PROG_TP_BTF] = "tp_btf programs refused",
	[PROG_USLEEP] = "sleepable uprobe programs refused",
	[PROG_UMULTI_SLEEP] = "sleepable uprobe.multi programs refused",
};

/* What a failed load says to drop: the refused program's kind, else the first kind on. */
static enum prog_kind kind_to_drop(const struct probes_opts *o, const struct kinds *ft)
{
	enum prog_kind f = failed_prog[0] ? kind_of(o, failed_prog) : PROG_PLAIN;

	if (f != PROG_PLAIN && ft->on[f])
		return f;
	/* unknown: tp_btf first, as raw_tp does the same; fentry would fall back to kprobes */
	static const enum prog_kind order[] = { PROG_TP_BTF, PROG_FENTRY, PROG_USESSION, PROG_UMULTI_SLEEP,
						PROG_USLEEP, PROG_UMULTI, PROG_KMULTI };
	for (size_t i = 0; i < ELEMENTSOF(order); i++)
		if (ft->on[order[i]])
			return order[i];
	return PROG_PLAIN;
}

/* Loads the object with every kind of program the kernel takes; the kinds it refused say why. */
static int load_what_loads(struct probes *p, const struct probes_opts *o, struct kinds *ft)
{
	char *why[_PROG_KIND_MAX] = {};
	enum prog_kind f;
	int r;

	libbpf_said[0] = '\0';
	print_next = libbpf_set_print(print_catch);
	for (;;) {
		failed_prog[0] = '\0';
		r = skel_load(o, ft, NULL, &p->skel);
		f = r < 0 ? kind_to_drop(o, ft) : PROG_PLAIN;
		if (f == PROG_PLAIN)
			break;
		ft->on[f] = false;
		/* a sleepable uprobe.multi is both kinds */
		ft->on[PROG_UMULTI_SLEEP] = ft->on[PROG_UMULTI_SLEEP] && ft->on[PROG_UMULTI] &&
					    ft->on[PROG_USLEEP];
		free(why[f]);
		why[f] = errdup(kind_refused[f], r);
	}
	libbpf_set_print(print_next);
	/* a refusal the feature probes did not foresee says why over what they said */
	if (why[PROG_FENTRY])
		free(p->fentry_why), p->fentry_why = why[PROG_FENTRY];
	if (why[PROG_KMULTI])
		free(p->kmulti_why), p->kmulti_why = why[PROG_KMULTI];
	if (why[PROG_TP_BTF])
		free(p->tp_btf_why), p->tp_btf_why = why[PROG_TP_BTF];
	free(why[PROG_UMULTI]);
	free(why[PROG_USESSION]);
	free(why[PROG_USLEEP]);
	free(why[PROG_UMULTI_SLEEP]);
	return r;
}

/* Whether a unit of tracepoint programs is to load. */
static bool units_tracepoints(const struct probes_opts *o)
{
	for (unsigned int u = 0; u < o->n_units; u++)
		if (o->units[u].unit->tracepoints)
			return true;
	return false;
}

/* o without its units of tracepoint programs. */
static struct probes_opts units_no_tracepoints(const struct probes_opts *o)
{
	struct probes_opts bare = *o;

	bare.n_units = 0;
	for (unsigned int u = 0; u < o->n_units; u++)
		if (!o->units[u].unit->tracepoints)
			bare.units[bare.n_units++] = o->units[u];
	return bare;
}

/* "kprobe.multi: Operation not supported (CONFIG_FPROBE, Linux 5.18)", malloc'd. */
static char *missing_dup(const struct features *f, enum kfeature k)
{
	const char *why = features_why(f, k);
	char *s;

	if (asprintf(&s, "%s: %s (%s)", features_name(k), why ? why : "missing", features_since(k)) < 0)
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

/* The programs walk user stacks themselves (x86-64) where the kernel lets them look mappings up. */
static bool ustack_walk_possible(const struct features *f)
{
	static const enum kfeature needs[] = { KF_FIND_VMA, KF_LOOP, KF_TASK_PT_REGS };

#ifdef __x86_64__
	return first_missing(f, needs, 3) == _KF_MAX;
#else
	return false;
#endif
}

/*
 * The kinds of program the kernel's features allow of those the
 * configuration chose; the fentry templates load later, on their own
 * (object_fentry_usable()), when fentry is first wanted.
 */
static void kinds_choose(struct probes *p, const struct probes_opts *o, struct btfs *btfs, struct kinds *ft)
{
	static const enum kfeature fentry_needs[] = { KF_FENTRY, KF_FENTRY_ARGS, KF_FENTRY_COOKIE };
	const struct features *f = o->features;
	enum kfeature k = first_missing(f, fentry_needs, 3);

	p->fentry = (o->choice == CHOICE_AUTO || o->choice == CHOICE_FENTRY) && k == _KF_MAX;
	if (k != _KF_MAX)
		p->fentry_why = missing_dup(f, k);
	ft->on[PROG_KMULTI] = (o->choice == CHOICE_AUTO || o->choice == CHOICE_KPROBE_MULTI) &&
			      features_has(f, KF_KPROBE_MULTI);
	if (!features_has(f, KF_KPROBE_MULTI))
		p->kmulti_why = missing_dup(f, KF_KPROBE_MULTI);
	ft->on[PROG_TP_BTF] = units_tracepoints(o) && features_has(f, KF_TP_BTF);
	if (!features_has(f, KF_TP_BTF))
		p->tp_btf_why = missing_dup(f, KF_TP_BTF);
	ft->on[PROG_UMULTI] = features_has(f, KF_UPROBE_MULTI);
	ft->on[PROG_USLEEP] = features_has(f, KF_UPROBE_SLEEP);
	ft->on[PROG_UMULTI_SLEEP] = ft->on[PROG_UMULTI] && ft->on[PROG_USLEEP];
	ft->on[PROG_USESSION] = usession_known(btfs);
	ft->session_ctx = p->session_ctx = object_session_ctx(btfs);
	p->walks_ustacks = ustack_walk_possible(f);
	ft->kernel_ustack = !p->walks_ustacks;
	p->kprobe = features_has(f, KF_KPROBE);
	if (!p->kprobe)
		p->kprobe_why = missing_dup(f, KF_KPROBE);
}

/* Task storage, or the hash; -EOPNOTSUPP (why in why) when task storage is demanded and missing. */
static int thread_state_choose(struct probes *p, const struct probes_opts *o, struct kinds *ft, char *why,
			       size_t n)
{
	char buf[96];

	if (o->thread_state == TSTATE_TASK_STORAGE && !features_has(o->features, KF_TASK_STORAGE)) {
		snprintf(why, n, "thread_state = task-storage, but the kernel lacks %s",
			 features_missing(KF_TASK_STORAGE, buf, sizeof(buf)));
		return -EOPNOTSUPP;
	}
	p->frames_hash = o->thread_state == TSTATE_HASH || !features_has(o->features, KF_TASK_STORAGE);
	p->max_threads = o->max_threads;
	if (p->frames_hash)
		ft->compat |= COMPAT_FRAMES_HASH;
	p->place_ids = !features_has(o->features, KF_COOKIE);
	if (p->place_ids)
		ft->compat |= COMPAT_PLACE_IDS;
	if (!features_has(o->features, KF_TASK_PT_REGS))
		ft->compat |= COMPAT_TP_REGS;
	if (features_has(o->features, KF_KPROBE) && !features_has(o->features, KF_KRETPROBE_STACK)) {
		/* only the kernel-walk build carries entry stacks (bpf/core.bpf.h) */
		ft->compat |= COMPAT_ENTRY_KSTACK;
		ft->kernel_ustack = true;
		p->walks_ustacks = false;
	}
	p->compat = ft->compat;
	return 0;
}

/* What no program runs without: -EOPNOTSUPP, why in why. */
static int essentials_check(const struct features *f, char *why, size_t n)
{
	static const enum kfeature needed[] = { KF_BTF, KF_RINGBUF };
	enum kfeature k = first_missing(f, needed, 2);
	char buf[96];

	if (k == _KF_MAX)
		return 0;
	snprintf(why, n, "cannot load BPF programs: the kernel lacks %s",
		 features_missing(k, buf, sizeof(buf)));
	return -EOPNOTSUPP;
}

int object_load(struct probes *p, const struct probes_opts *o, char *why, size_t n)
{
	struct kinds ft = { .vmlinux = btfs_get(p->btfs, NULL) };
	int r;

	kinds_choose(p, o, p->btfs, &ft);
	r = essentials_check(o->features, why, n);
	if (r == 0)
		r = thread_state_choose(p, o, &ft, why, n);
	if (r < 0)
		return r;
	r = load_what_loads(p, o, &ft);
	if (r < 0 && units_tracepoints(o)) {
		/* The other layers need not go down with the tracepoint ones. */
		struct probes_opts bare = units_no_tracepoints(o);

		free(p->tp_btf_why);
		if (asprintf(&p->tp_btf_why, "tracepoint programs refused: %s%s%s", strerror(-r),
			     libbpf_said[0] ? ": " : "", libbpf_said) < 0)
			p->tp_btf_why = NULL;
		r = skel_load(&bare, &ft, NULL, &p->skel);
	}
	if (r < 0) {
		snprintf(why, n, "cannot load BPF programs: %s%s%s", strerror(-r), libbpf_said[0] ? ": " : "",
			 libbpf_said);
		return r;
	}
	p->kmulti = ft.on[PROG_KMULTI];
	p->tp_btf = ft.on[PROG_TP_BTF];
	p->umulti = ft.on[PROG_UMULTI];
	p->usession = ft.on[PROG_USESSION];
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

/* An entry's kernel stack of a thread that no longer exists (the thread id: the key's upper half). */
static bool kstack_thread_gone(const void *key, const void *value, void *userdata)
{
	uint64_t k;

	memcpy(&k, key, sizeof(k));
	return kill((pid_t)(k >> 32), 0) < 0 && errno == ESRCH;
}

int probes_frames_sweep(struct probes *p)
{
	struct inflight_sweep s = { .now_ns = now_ns(), .max_age_ns = UINT64_MAX, .stale = thread_gone };
	struct bpf_map *m = p->skel->maps.frames;
	int r = 0;

	if (p->compat & COMPAT_ENTRY_KSTACK) {
		struct inflight_sweep k = { .now_ns = s.now_ns,
					    .max_age_ns = UINT64_MAX,
					    .stale = kstack_thread_gone };
		struct bpf_map *km = p->skel->maps.entry_kstacks;

		r = inflight_sweep(bpf_map__fd(km), bpf_map__key_size(km), bpf_map__value_size(km), &k);
	}
	if (!p->frames_hash)
		return r;
	return inflight_sweep(bpf_map__fd(m), bpf_map__key_size(m), bpf_map__value_size(m), &s);
}

/* reliability: ids the stats map was sized for; a reload cannot add more. */
uint32_t probes_func_capacity(const struct probes *p)
{
	return bpf_map__max_entries(p->skel->maps.stats);
}
