// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The func layer: one probe per [probe NAME] section (or -f), funcslower
 * style, on any kind of target config/target.h parses: kernel functions,
 * module functions (attached when the module loads), user functions of
 * binaries and libraries, USDT probe pairs, system calls.
 *
 * A probe is the newest function of its label in the table: a reload that
 * changes a probe's target gives it a new id (ids are never reused) under
 * the same FUNCTION, which summaries merge.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/macro.h"
#include "base/log.h"
#include "base/syscalls.h"
#include "config/target.h"
#include "layers/func/func.h"
#include "layers/layer.h"
#include "probes/btfargs.h"
#include "symbols/functype.h"
#include "symbols/kmodules.h"
#include "symbols/ksyms.h"
#include "symbols/usyms.h"

#define NAME "func"

/* A status about one probe: FUNCTION is its label. */
#define probe_log(label, kind_, why, prio, ...)            \
	log_emit(&(struct status) { .kind = (kind_),       \
				    .reason = (why),       \
				    .priority = (prio),    \
				    .layer = NAME,         \
				    .function = (label) }, \
		 __VA_ARGS__)

/* A module function's probe, and the module instance it is attached to. */
struct module_probe {
	uint32_t id;
	uint64_t instance; /* 0: waiting for the module */
};

struct layer {
	const struct layer_env *env;
	enum backend sys_backend; /* sys_enter/sys_exit, shared by every syscall probe */
	struct module_probe *mods;
	uint32_t n_mods;
};

/* syscall:NAME probes (bpf/syscall.bpf.c); the call template's unit is always there (probes/progs.c). */
static const struct prog_spec syscall_progs[] = {
	PROG(sys_enter_btf, PROG_TP_BTF),
	PROG(sys_enter_raw, PROG_PLAIN),
	PROG(sys_exit_btf, PROG_TP_BTF),
	PROG(sys_exit_raw, PROG_PLAIN),
};

static const struct prog_unit syscall_unit = PROG_UNIT("syscall", syscall_progs, true);

/* Where a probe's target runs, which decides what it can record. */
enum side {
	SIDE_KERNEL, /* kernel and module functions, syscalls */
	SIDE_USER,   /* user functions */
	SIDE_USDT,   /* USDT pairs: no return value */
};

/* The table keeps module:symbol split, user and USDT targets whole. */
static enum side side_of(const struct func *f)
{
	if (strncmp(f->symbol, "usdt:", 5) == 0)
		return SIDE_USDT;
	if (f->module || !strchr(f->symbol, ':') || strncmp(f->symbol, "syscall:", 8) == 0)
		return SIDE_KERNEL;
	return SIDE_USER;
}

/* What is recorded: the same at start and at every reload. */
static uint32_t probe_flags(const struct probe_config *pc, enum side side)
{
	uint32_t f = FF_ENABLED | (pc->user_stack ? FF_USTACK : 0);

	/* The kernel stack of a user-space probe is the uprobe trap: only the user stack tells. */
	if (pc->kernel_stack && side == SIDE_KERNEL)
		f |= FF_KSTACK;
	if (pc->errors && side != SIDE_USDT)
		f |= FF_ERRORS;
	/* a user probe's kernel stack is the uprobe trap: only the user stack tells */
	if (pc->stacks)
		f |= FF_STACKS_USER | (side == SIDE_KERNEL ? FF_STACKS_KERNEL : 0);
	return f;
}

/*
 * What errors= calls a failure of f: a convention as asked; with yes, a
 * kernel function's -errno by its kind, a user function's negative value
 * where its type is a signed integer, and nothing else (never a pointer
 * or a count: a valid one is no failure).
 */
static enum ret_fail probe_fail(const struct func *f, enum probe_errors e)
{
	switch (e) {
	case ERRORS_NO:
		return FAIL_NEVER;
	case ERRORS_NEGATIVE:
		return FAIL_NEGATIVE;
	case ERRORS_MINUS1:
		return FAIL_MINUS1;
	case ERRORS_NULL:
		return FAIL_NULL;
	default:
		break;
	}
	switch (f->cfg.ret_kind) {
	case RK_INT:
	case RK_LONG:
	case RK_PTR:
		return FAIL_BY_KIND;
	case RK_USER_S8:
	case RK_USER_S16:
	case RK_USER_S32:
	case RK_USER_S64:
		return FAIL_NEGATIVE;
	}
	return FAIL_NEVER;
}

static void probe_configure(struct layer *l, struct func *f, const struct probe_config *pc)
{
	f->cfg.threshold_ns = config_probe_threshold_ns(l->env->cfg, pc);
	f->cfg.flags = probe_flags(pc, side_of(f));
	f->cfg.nargs = pc->args;
	f->cfg.ret_fail = probe_fail(f, pc->errors);
}

static const struct probe_config *probe_find(const struct config *c, const char *label);

/* Once the function's return kind is known (its BTF, DWARF, a syscall's long): what fails. */
static void probe_fail_set(struct layer *l, struct func *f)
{
	const struct probe_config *pc = probe_find(l->env->cfg, f->name);

	f->cfg.ret_fail = probe_fail(f, pc ? pc->errors : ERRORS_NO);
}

/* The probe of label: the newest function of that name, unless gone. */
static struct func *probe_func(struct layer *l, const char *label)
{
	struct func_table *t = l->env->funcs;

	for (uint32_t i = t->n; i > 0; i--) {
		struct func *f = &t->v[i - 1];

		if (f->layer == LAYER_FUNC && strcmp(f->name, label) == 0)
			return f->state == FUNC_REMOVED ? NULL : f;
	}
	return NULL;
}

static int module_watch_add(struct layer *l, struct func *f, uint64_t instance)
{
	struct module_probe *v = realloc(l->mods, (l->n_mods + 1) * sizeof(*v));

	if (!v)
		return -ENOMEM;
	l->mods = v;
	v[l->n_mods++] = (struct module_probe) { .id = f->id, .instance = instance };
	return 0;
}

/* A kernel function, of vmlinux or of a loaded module. */
static void attach_kernel(struct layer *l, struct func *f)
{
	uint8_t nargs = f->cfg.nargs;

	if (btfs_fill(l->env->btfs, f->module, f->symbol, &f->cfg) < 0)
		f->cfg.ret_kind = RK_INT; /* no BTF: C's int, the common case */
	f->cfg.nargs = nargs;
	probe_fail_set(l, f);
	probes_update(l->env->probes, f);
	probes_attach_kernel(l->env->probes, &f, 1, &kprogs_call);
}

/* module:function: now when the module is loaded, else when it is. */
static void attach_module(struct layer *l, struct func *f)
{
	uint64_t inst = kmodule_instance(f->module);

	if (inst && ksyms_refresh(l->env->ks, f->module) == 0) {
		attach_kernel(l, f);
	} else {
		func_set_state(f, FUNC_PENDING, "module %s not loaded; attached when it is", f->module);
		probe_log(f->name, STATUS_PROBE_WAITING, REASON_MODULE_NOT_LOADED, LOG_NOTICE,
			  "probe %s: module %s not loaded; attaching when it is", f->name, f->module);
	}
	if (module_watch_add(l, f, func_attached(f) ? inst : 0) < 0)
		probe_log(f->name, STATUS_PROBE_FAILED, REASON_SYSTEM, LOG_WARNING,
			  "probe %s: module %s not watched: %s", f->name, f->module, strerror(ENOMEM));
}

static enum ret_kind user_kind(const struct functype *t)
{
	static const enum ret_kind s[] = { RK_USER_S8, RK_USER_S16, RK_USER_S32, RK_USER_S64 };
	static const enum ret_kind u[] = { RK_USER_U8, RK_USER_U16, RK_USER_U32, RK_USER_U64 };
	int w = t->size == 1 ? 0 : t->size == 2 ? 1 : t->size <= 4 ? 2 : 3;

	switch (t->cls) {
	case FUNCTYPE_SIGNED:
		return s[w];
	case FUNCTYPE_UNSIGNED:
		return u[w];
	case FUNCTYPE_POINTER:
		return RK_USER_PTR;
	case FUNCTYPE_VOID:
	case FUNCTYPE_OTHER:
		break;
	}
	return RK_VOID;
}

/*
 * A user function's return kind from its file's BTF or DWARF; unknown
 * without them. errors = yes that judges no call failed says why, once.
 */
static void user_type(struct layer *l, struct func *f, const char *path, const char *symbol, uint64_t off)
{
	const struct probe_config *pc = probe_find(l->env->cfg, f->name);
	struct functype t;
	int r = functype_ret(path, "", symbol, off, &t);

	f->cfg.ret_kind = r == 0 ? user_kind(&t) : RK_USER;
	probe_fail_set(l, f);
	probes_update(l->env->probes, f);
	if (!pc || pc->errors != ERRORS_YES || f->cfg.ret_fail != FAIL_NEVER)
		return;
	if (r < 0)
		probe_log(f->name, STATUS_AGENT_DEGRADED, REASON_NOT_FOUND, LOG_WARNING,
			  "probe %s: errors = yes: the return type of %s is not known (no DWARF or BTF "
			  "in %s or a debug file of it), so no call is judged failed; errors = negative, "
			  "minus1 or null says what a failed call returns",
			  f->name, symbol, path);
	else
		probe_log(f->name, STATUS_AGENT_DEGRADED, REASON_NONE, LOG_WARNING,
			  "probe %s: errors = yes: %s returns %s (%s), which has no failure value of its "
			  "own, so no call is judged failed; errors = null, minus1 or negative says what "
			  "a failed call returns",
			  f->name, symbol, t.name, t.from);
}

static void attach_user(struct layer *l, struct func *f, const struct target *t)
{
	char *path = NULL;
	uint64_t off;
	int r;

	r = usyms_library(t->object, &path);
	if (r < 0 && t->kind == TARGET_QUALIFIED)
		func_set_state(f, FUNC_NOT_FOUND, "%s: no kernel module or library of that name here",
			       t->object);
	else if (r < 0)
		func_set_state(f, FUNC_NOT_FOUND, "%s: %s", t->object,
			       r == -ENOENT && !strchr(t->object, '/') ?
				       "no such library in the default directories" :
				       strerror(-r));
	if (r < 0)
		return;
	/* the file that is probed, as --list-probes and TARGET= show it (c:open: libc's) */
	free(f->symbol);
	if (asprintf(&f->symbol, "%s:%s", path, t->symbol) < 0)
		f->symbol = NULL;
	r = f->symbol ? usyms_resolve(l->env->us, path, t->symbol, &off) : -ENOMEM;
	if (r == -ENOENT)
		func_set_state(f, FUNC_NOT_FOUND, "%s has no function %s", path, t->symbol);
	else if (r == -ENOTUNIQ)
		func_set_state(f, FUNC_NOT_FOUND, "%s has several functions %s at different addresses", path,
			       t->symbol);
	else if (r < 0)
		func_set_state(f, FUNC_NOT_FOUND, "%s: %s", path, strerror(-r));
	else
		user_type(l, f, path, t->symbol, off);
	if (r == 0)
		probes_attach_uprobe_at(l->env->probes, f, path, off, -1);
	free(path);
}

static void attach_usdt(struct layer *l, struct func *f, const struct target *t)
{
	int r = probes_attach_usdt(l->env->probes, f, t->object, t->provider, t->symbol, t->end, -1);

	/* libbpf says ENOENT for a missing file and for a missing probe alike */
	if (r == -ENOENT)
		func_set_state(f, FUNC_NOT_FOUND, "no USDT probes %s:%s and %s:%s in %s", t->provider,
			       t->symbol, t->provider, t->end, t->object);
}

static const struct func *syscall_taken(struct layer *l, const struct func *f)
{
	struct func_table *t = l->env->funcs;

	for (uint32_t i = 0; i < t->n; i++)
		if (&t->v[i] != f && t->v[i].layer == LAYER_FUNC && func_attached(&t->v[i]) &&
		    t->v[i].symbol && strcmp(t->v[i].symbol, f->symbol) == 0)
			return &t->v[i];
	return NULL;
}

/* sys_enter/sys_exit serve every syscall probe: attached once, by the first. */
static void attach_syscall(struct layer *l, struct func *f, const struct target *t)
{
	const struct func *other = syscall_taken(l, f);
	int nr = syscalls_nr(t->symbol), r;
	const char *tw;

	if (nr < 0 || nr >= SMBLAT_SYSCALL_MAX) {
		func_set_state(f, FUNC_NOT_FOUND, "no syscall %s on this architecture", t->symbol);
		return;
	}
	if (other) {
		func_set_state(f, FUNC_DUPLICATE, "syscall:%s is traced by probe %s already", t->symbol,
			       other->name);
		return;
	}
	f->cfg.ret_kind = RK_LONG;
	probe_fail_set(l, f);
	probes_update(l->env->probes, f);
	if (l->sys_backend == BACKEND_NONE) {
		/* Exit first: an entry without its exit would leave frames behind. */
		r = probes_attach_tracepoint(l->env->probes, &syscall_unit, "sys_exit");
		if (r >= 0 && (r = probes_attach_tracepoint(l->env->probes, &syscall_unit, "sys_enter")) < 0)
			probes_detach_tracepoint(l->env->probes, &syscall_unit, "sys_exit");
		if (r < 0) {
			tw = probes_tp_btf_why(l->env->probes);
			func_set_state(f, FUNC_FAILED, "sys_enter/sys_exit: %s%s%s", strerror(-r),
				       tw ? "; " : "", tw ? tw : "");
			return;
		}
		l->sys_backend = r;
	}
	r = probes_route(probes_skel(l->env->probes)->maps.sys_ids, nr, f->id);
	if (r < 0)
		func_set_state(f, FUNC_FAILED, "syscall map: %s", strerror(-r));
	else
		func_set_attached(f, l->sys_backend);
}

/* Adds the probe of pc and attaches it; false when it is not attached (and will not be). */
static bool probe_add(struct layer *l, const struct probe_config *pc)
{
	struct target t;
	const char *problem;
	struct func *f;
	char buf[256];
	bool module;
	int id, r;

	r = target_parse(pc->target, &t, &problem);
	if (r < 0) {
		probe_log(pc->label, STATUS_PROBE_FAILED, REASON_CONFIG_INVALID, LOG_WARNING,
			  "probe %s: target \"%s\" %s", pc->label, pc->target,
			  problem ? problem : strerror(-r));
		return false;
	}
	module = t.kind == TARGET_QUALIFIED && kmodule_known(t.object);
	id = func_table_add(l->env->funcs, LAYER_FUNC, GROUP_NONE, pc->label,
			    t.kind == TARGET_KERNEL || module ? t.symbol : pc->target,
			    module ? t.object : NULL);
	if (id < 0) {
		probe_log(pc->label, STATUS_PROBE_FAILED, REASON_SYSTEM, LOG_WARNING, "probe %s: %s",
			  pc->label, strerror(-id));
		target_done(&t);
		return false;
	}
	f = &l->env->funcs->v[id];
	f->kernel = t.kind == TARGET_KERNEL || module;
	probe_configure(l, f, pc);
	f->cfg.ret_kind = t.kind == TARGET_USDT ? RK_VOID : RK_USER;
	probes_update(l->env->probes, f);
	if (t.kind == TARGET_KERNEL)
		attach_kernel(l, f);
	else if (module)
		attach_module(l, f);
	else if (t.kind == TARGET_QUALIFIED || t.kind == TARGET_USER)
		attach_user(l, f, &t);
	else if (t.kind == TARGET_USDT)
		attach_usdt(l, f, &t);
	else
		attach_syscall(l, f, &t);
	target_done(&t);
	if (f->state != FUNC_ATTACHED && f->state != FUNC_PENDING)
		probe_log(pc->label, STATUS_PROBE_FAILED, layer_func_reason(f), LOG_WARNING,
			  "probe %s: not attached: %s", pc->label, func_state_text(f, buf, sizeof(buf)));
	return f->state == FUNC_ATTACHED || f->state == FUNC_PENDING;
}

/* "2 of 3 probes attached": how the layer started, with counts (none without probes). */
static void func_report(struct layer *l)
{
	struct func_table *t = l->env->funcs;
	struct status s = { .layer = NAME, .priority = LOG_INFO };
	unsigned int attached = 0, pending = 0, n = l->env->cfg->n_probes;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == LAYER_FUNC) {
			attached += func_attached(&t->v[i]);
			pending += t->v[i].state == FUNC_PENDING;
		}
	if (!n)
		return;
	s.kind = attached ? STATUS_LAYER_ATTACHED : pending ? STATUS_LAYER_WAITING : STATUS_LAYER_UNAVAILABLE;
	if (!attached) {
		s.reason = pending ? REASON_MODULE_NOT_LOADED : REASON_ATTACH_FAILED;
		s.priority = pending ? LOG_NOTICE : LOG_WARNING;
	}
	status_count_set(&s, COUNT_ATTACHED, attached);
	status_count_set(&s, COUNT_NOT_ATTACHED, n - attached);
	log_emit(&s, "%u of %u %s attached%s", attached, n, PLURAL(n, "probe", "probes"),
		 pending ? ", the others of modules not loaded yet" : "");
}

static void func_attach(struct layer *l)
{
	char why[256];

	if (l->env->cfg->offcpu && offcpu_attach(l->env->probes, why, sizeof(why)) < 0)
		log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_WARNING,
			   "offcpu: no off-CPU time (OFFCPU_US): %s", why);
	for (unsigned int i = 0; i < l->env->cfg->n_probes; i++)
		probe_add(l, &l->env->cfg->probes[i]);
	func_report(l);
}

static const struct probe_config *probe_find(const struct config *c, const char *label)
{
	for (unsigned int i = 0; c && i < c->n_probes; i++)
		if (strcmp(c->probes[i].label, label) == 0)
			return &c->probes[i];
	return NULL;
}

static bool same_target(const struct probe_config *was, const struct probe_config *pc)
{
	return was && pc && strcmp(was->target, pc->target) == 0 && was->args == pc->args;
}

/*
 * [probe] sections: changed in place when the target is the same, else
 * detached and attached anew; gone when the section is.
 */
static void func_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	struct func_table *t = l->env->funcs;

	for (uint32_t i = 0; i < t->n; i++) {
		struct func *f = &t->v[i];
		const struct probe_config *pc, *was;

		if (f->layer != LAYER_FUNC || (!func_attached(f) && f->state != FUNC_PENDING) ||
		    probe_func(l, f->name) != f)
			continue;
		was = probe_find(old, f->name);
		pc = probe_find(l->env->cfg, f->name);
		if (same_target(was, pc)) {
			probe_configure(l, f, pc);
			probes_update(l->env->probes, f);
			n->kept++;
			continue;
		}
		probes_detach(l->env->probes, f, FUNC_REMOVED, NULL);
		n->removed += !pc;
	}
	for (unsigned int i = 0; i < l->env->cfg->n_probes; i++) {
		const struct probe_config *pc = &l->env->cfg->probes[i];

		if (probe_func(l, pc->label))
			continue;
		if (t->n >= probes_func_capacity(l->env->probes)) {
			/* Ids are never reused; the histogram map was sized at start. */
			probe_log(pc->label, STATUS_PROBE_FAILED, REASON_RESTART_NEEDED, LOG_WARNING,
				  "probe %s: no function id left for it (ids are not "
				  "reused): takes effect at the next start",
				  pc->label);
			n->failed++;
		} else if (probe_add(l, pc)) {
			n->added++;
		} else {
			n->failed++;
		}
	}
}

static unsigned int func_detach(struct layer *l, enum func_state why)
{
	struct func_table *t = l->env->funcs;
	unsigned int n = 0;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == LAYER_FUNC &&
		    (func_attached(&t->v[i]) || t->v[i].state == FUNC_PENDING)) {
			n += func_attached(&t->v[i]);
			probes_detach(l->env->probes, &t->v[i], why, NULL);
		}
	return n;
}

/* Module functions follow their module: detached when it goes, attached when it comes. */
static void func_watch(struct layer *l)
{
	char buf[256];

	for (uint32_t i = 0; i < l->n_mods; i++) {
		struct module_probe *m = &l->mods[i];
		struct func *f = &l->env->funcs->v[m->id];
		uint64_t inst;

		if (!func_attached(f) && f->state != FUNC_PENDING && f->state != FUNC_UNLOADED)
			continue; /* removed by a reload, or failed for good */
		inst = kmodule_instance(f->module);
		if (m->instance && inst != m->instance) {
			probes_detach(l->env->probes, f, FUNC_UNLOADED, "module unloaded");
			probes_forget_module(l->env->probes, f->module);
			probe_log(f->name, STATUS_PROBE_WAITING, REASON_MODULE_UNLOADED, LOG_NOTICE,
				  "probe %s: module %s unloaded; attaching again when it "
				  "is loaded",
				  f->name, f->module);
			m->instance = 0;
		}
		if (!m->instance && inst && ksyms_refresh(l->env->ks, f->module) == 0) {
			f->cfg.flags |= FF_ENABLED;
			attach_kernel(l, f);
			m->instance = func_attached(f) ? inst : 0;
			probe_log(f->name, func_attached(f) ? STATUS_PROBE_ATTACHED : STATUS_PROBE_FAILED,
				  layer_func_reason(f), func_attached(f) ? LOG_INFO : LOG_WARNING,
				  "probe %s: module %s loaded: %s%s%s", f->name, f->module,
				  func_attached(f) ? "attached" : "not attached",
				  func_attached(f) ? "" : ": ",
				  func_attached(f) ? "" : func_state_text(f, buf, sizeof(buf)));
		}
	}
}

static enum layer_state func_state(struct layer *l, const char **why)
{
	struct func_table *t = l->env->funcs;
	bool pending = false, any = false;

	for (uint32_t i = 0; i < t->n; i++) {
		if (t->v[i].layer != LAYER_FUNC)
			continue;
		any = true;
		if (func_attached(&t->v[i]))
			return LAYER_ACTIVE;
		pending |= t->v[i].state == FUNC_PENDING;
	}
	if (!any && !l->env->cfg->n_probes) {
		*why = "no [probe] section in smblat.conf, no -f";
		return LAYER_OFF;
	}
	if (pending) {
		*why = "module not loaded";
		return LAYER_WAITING;
	}
	*why = "no probe attached";
	return LAYER_UNAVAILABLE;
}

static int func_prepare(struct layer *l, struct probes_opts *po)
{
	const struct config *c = l->env->cfg;

	int r;

	for (unsigned int i = 0; i < c->n_probes; i++)
		po->stacks |= c->probes[i].stacks;
	if (c->offcpu && (r = offcpu_want(po)) < 0)
		return r;
	/* syscall programs always: a reload may add the first syscall probe */
	return probes_opts_want(po, &syscall_unit, NULL);
}

static uint32_t func_ids_needed(const struct config *c)
{
	/* every probe, and room for reloads that retarget or add some */
	return 2 * c->n_probes + 64;
}

static void func_free(struct layer *l)
{
	free(l->mods);
}

const struct layer_ops func_layer = {
	.id = LAYER_FUNC,
	.traces = "[probe] functions",
	.ids_needed = func_ids_needed,
	.prepare = func_prepare,
	.unit = &syscall_unit,
	.columns = func_columns,
	.n_columns = FUNC_COLUMNS,
	.column_of = func_column_of,
	.breakdown = func_breakdown,
	.size = sizeof(struct layer),
	.attach = func_attach,
	.apply = func_apply,
	.detach = func_detach,
	.watch = func_watch,
	.state = func_state,
	.free = func_free,
};
