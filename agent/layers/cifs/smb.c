// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smb layer: the VFS operations of the SMB client, read from the live
 * ops tables of the running cifs.ko (cifsops.c) and attached as kernel
 * functions. cifs may load after the agent, unload, or load again: the
 * watch follows it, and ids survive across instances (never reused).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/macro.h"
#include "base/log.h"
#include "base/profile.h"
#include "layers/cifs/cifsops.h"
#include "decode/event.h"
#include "layers/layer.h"
#include "decode/smb2.h"
#include "probes/peek.h"
#include "layers/cifs/shareview.h"
#include "layers/cifs/settings.h"
#include "symbols/kmodules.h"
#include "symbols/ksyms.h"
#include "base/clock.h"

#define CIFS_MODULE "cifs"
#define NAME "smb"

struct layer {
	const struct layer_env *env;
	uint64_t module; /* cifs instance resolved, 0: none */
	struct shareview *shares;
	const char *why; /* unavailable or off: why (static or the probes') */
	bool off;        /* enabled = auto found no way to trace here */
	char why_buf[320];
};

/* The layer's programs (bpf/vfs.bpf.c): one family, a program per backend. */
static const struct prog_spec vfs_specs[] = {
	PROG(vfs_fentry, PROG_FENTRY),   PROG(vfs_fexit, PROG_FENTRY),  PROG(vfs_kprobe, PROG_PLAIN),
	PROG(vfs_kretprobe, PROG_PLAIN), PROG(vfs_kmulti, PROG_KMULTI), PROG(vfs_kretmulti, PROG_KMULTI),
};

static const struct kprog_family vfs_progs = {
	.fentry = PROG_AT(vfs_fentry),
	.fexit = PROG_AT(vfs_fexit),
	.kprobe = PROG_AT(vfs_kprobe),
	.kretprobe = PROG_AT(vfs_kretprobe),
	.kmulti = PROG_AT(vfs_kmulti),
	.kretmulti = PROG_AT(vfs_kretmulti),
};

static void vfs_setup(struct smblat_bpf *skel, void *arg)
{
	const struct layer *l = arg;

	shareview_setup(skel, l->env->cfg);
}

static const struct prog_unit vfs_unit = {
	.name = "vfs", .progs = vfs_specs, .n = ELEMENTSOF(vfs_specs), .setup = vfs_setup
};

static uint32_t base_flags(const struct config *c)
{
	return FF_ENABLED | (c->kernel_stack ? FF_KSTACK : 0) | (c->user_stack ? FF_USTACK : 0);
}

/* The id the op had with an earlier cifs instance, else a new one. */
static struct func *op_func(struct layer *l, const struct cifs_op *op)
{
	struct func_table *t = l->env->funcs;
	int id;

	for (uint32_t i = 0; i < t->n; i++) {
		struct func *f = &t->v[i];

		/* names repeat (three FILE_WRITE_ITER), symbols do not */
		if (f->layer == LAYER_SMB && f->symbol && strcmp(f->name, op->name) == 0 &&
		    strcmp(f->symbol, op->symbol) == 0 &&
		    strcmp(f->module ? f->module : "", op->module ? op->module : "") == 0)
			return f;
	}
	id = func_table_add(t, LAYER_SMB, op->group, op->name, op->symbol, op->module);
	if (id < 0)
		return NULL;
	t->v[id].kernel = true;
	return &t->v[id];
}

/*
 * The operation f serves, shared by every function of its FUNCTION (the
 * first one's id + 1): a call inside a call of the same operation is the
 * same operation, timed once (func_cfg.op).
 */
static uint32_t op_of(const struct layer *l, const struct func *f)
{
	const struct func_table *t = l->env->funcs;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == LAYER_SMB && strcmp(t->v[i].name, f->name) == 0)
			return t->v[i].id + 1;
	return f->id + 1;
}

/*
 * Threshold, stacks and argument layout of f as the configuration wants
 * them. The layout comes from the function's own BTF, or where its module
 * has none (before Linux 5.11) from the ops member's prototype in vmlinux's.
 */
static void op_configure(struct layer *l, struct func *f, const struct cifs_op *op)
{
	const struct config *c = l->env->cfg;

	f->cfg = (struct func_cfg) {
		.threshold_ns = config_layer_threshold_ns(c, LAYER_SMB),
		.flags = base_flags(c) | (op->generic ? FF_SB_CHECK : 0),
		.op = op_of(l, f),
	};
	if (btfs_fill(l->env->btfs, f->module, f->symbol, &f->cfg) < 0)
		(void)btfargs_fill_proto(btfs_get(l->env->btfs, NULL), op->proto, &f->cfg, NULL);
}

/* Reads the ops tables of the loaded cifs into the function table; -ENOENT: not loaded. */
static int resolve(struct layer *l)
{
	struct cifs_op *ops = NULL;
	struct peek *pk = NULL;
	size_t n = 0;
	uint64_t t0;
	int r;

	r = ksyms_refresh(l->env->ks, CIFS_MODULE);
	if (r < 0)
		return r;
	r = peek_open(&pk);
	if (r < 0) {
		log_layer(NAME, STATUS_LAYER_UNAVAILABLE, REASON_SYSTEM, LOG_ERR,
			  "cannot read the cifs ops tables: %s", strerror(-r));
		return r;
	}
	t0 = now_ns();
	r = cifsops_resolve(l->env->ks, btfs_get(l->env->btfs, NULL), peek_read, pk, &ops, &n);
	prof_add(PROF_OPS, t0);
	peek_close(pk);
	for (size_t i = 0; r == 0 && i < n; i++) {
		struct func *f = op_func(l, &ops[i]);

		if (!f) {
			r = -ENOMEM;
			break;
		}
		f->group = ops[i].group;
		if (func_attached(f))
			continue;
		op_configure(l, f, &ops[i]);
		if (ops[i].generic && f->cfg.sb_kind == AK_NONE)
			/* Without a way to tell SMB calls apart, a shared helper would lie. */
			func_set_state(f, FUNC_UNUSABLE, "shared helper without a superblock argument");
		else if (f->state != FUNC_FAILED)
			func_set_state(f, FUNC_PENDING, NULL);
	}
	cifsops_free(ops, n);
	return r;
}

static bool wanted(const struct layer *l, const struct func *f)
{
	return smb_settings_group(l->env->cfg, f->group) && config_wants(l->env->cfg, LAYER_SMB, f->name);
}

/* "fentry", or "fentry 50, kprobe 18" when the kernel refused the first backend part way. */
static const char *backends_used(struct func **fv, uint32_t n, char *buf, size_t size)
{
	unsigned int count[_BACKEND_MAX] = { 0 }, kinds = 0;
	size_t len = 0;

	for (uint32_t i = 0; i < n; i++)
		if (func_attached(fv[i]))
			kinds += count[fv[i]->backend]++ == 0;
	buf[0] = '\0';
	for (int b = 0; b < _BACKEND_MAX && len < size; b++) {
		if (!count[b])
			continue;
		if (kinds == 1)
			return backend_name(b);
		len += snprintf(buf + len, size - len, "%s%s %u", len ? ", " : "", backend_name(b), count[b]);
	}
	return buf;
}

/*
 * Makes what is attached match the configuration: deselected ops go,
 * selected ones not attached (new, or detached by an earlier reload or
 * unload) come, attached ones take the current threshold and stacks.
 */
static void layer_sync(struct layer *l, unsigned int *attached, unsigned int *detached)
{
	struct func_table *t = l->env->funcs;
	struct func **todo = calloc(t->n ? t->n : 1, sizeof(*todo));
	uint32_t n = 0;
	int r;

	if (!todo)
		return;
	for (uint32_t i = 0; i < t->n; i++) {
		struct func *f = &t->v[i];
		uint32_t sb = f->cfg.flags & FF_SB_CHECK;

		if (f->layer != LAYER_SMB)
			continue;
		if (func_attached(f) && !wanted(l, f)) {
			probes_detach(l->env->probes, f, FUNC_DISABLED, NULL);
			(*detached)++;
		} else if (func_attached(f)) {
			f->cfg.threshold_ns = config_layer_threshold_ns(l->env->cfg, LAYER_SMB);
			f->cfg.flags = base_flags(l->env->cfg) | sb;
			probes_update(l->env->probes, f);
		} else if (!wanted(l, f)) {
			if (f->state == FUNC_PENDING)
				func_set_state(f, FUNC_EXCLUDED, NULL);
		} else if (f->state == FUNC_PENDING || f->state == FUNC_DISABLED ||
			   f->state == FUNC_EXCLUDED) {
			f->cfg.threshold_ns = config_layer_threshold_ns(l->env->cfg, LAYER_SMB);
			f->cfg.flags = base_flags(l->env->cfg) | sb;
			probes_update(l->env->probes, f);
			todo[n++] = f;
		}
	}
	if (n) {
		char mix[128];
		struct status s = { .layer = NAME };

		r = probes_attach_kernel(l->env->probes, todo, n, &vfs_progs);
		*attached += r > 0 ? r : 0;
		s.kind = r > 0 ? STATUS_LAYER_ATTACHED : STATUS_PROBE_FAILED;
		s.priority = r > 0 ? LOG_INFO : LOG_WARNING;
		s.reason = r > 0 ? REASON_NONE : layer_func_reason(todo[0]);
		status_count_set(&s, COUNT_ATTACHED, r > 0 ? r : 0);
		status_count_set(&s, COUNT_NOT_ATTACHED, n - (r > 0 ? r : 0));
		log_emit(&s, "%d of %u cifs %s attached (%s)", r > 0 ? r : 0, n,
			 PLURAL(n, "operation", "operations"),
			 r > 0 ? backends_used(todo, n, mix, sizeof(mix)) :
				 func_state_text(todo[0], mix, sizeof(mix)));
		if (r <= 0 && !func_table_attached(t, LAYER_SMB))
			l->why = layer_unavailable(NAME, layer_func_reason(todo[0]), l->why_buf,
						   sizeof(l->why_buf), "the kernel attached no probe: %s",
						   func_state_text(todo[0], mix, sizeof(mix)));
	}
	free(todo);
}

static void report_not_served(struct layer *l)
{
	char line[2048] = "";
	size_t len = 0;

	for (const char *const *k = cifsops_known; *k; k++) {
		bool found = false;

		if (!smb_settings_group(l->env->cfg, cifsops_name_group(*k)) ||
		    !config_wants(l->env->cfg, LAYER_SMB, *k))
			continue; /* the user asked not to see it */
		for (uint32_t i = 0; i < l->env->funcs->n && !found; i++)
			found = l->env->funcs->v[i].layer == LAYER_SMB &&
				strcmp(l->env->funcs->v[i].name, *k) == 0;
		if (!found && len < sizeof(line) - 64)
			len += snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", *k);
	}
	if (len)
		log_layer(NAME, STATUS_PROBE_FAILED, REASON_NOT_FOUND, LOG_NOTICE,
			  "not served by cifs on this kernel: %s", line);
}

/* Resolves the instance of cifs loaded now and attaches what is wanted of it. */
static void attach_instance(struct layer *l, unsigned int *attached, unsigned int *detached)
{
	uint64_t inst = kmodule_instance(CIFS_MODULE);
	int r;

	if (!inst)
		return;
	r = resolve(l);
	if (r == -ENOENT)
		return; /* gone again, or no ops table yet: the watch looks again */
	if (r < 0) {
		l->why = layer_unavailable(NAME, REASON_SYSTEM, l->why_buf, sizeof(l->why_buf),
					   "cannot resolve the cifs operations: %s", strerror(-r));
		return;
	}
	l->module = inst;
	layer_sync(l, attached, detached);
	report_not_served(l);
}

static void smb_attach(struct layer *l)
{
	bool automatic = l->env->cfg->layer[LAYER_SMB].automatic;
	const char *backend_why = NULL;
	unsigned int a = 0, d = 0;

	shareview_enable(l->env);
	l->why = NULL;
	l->off = false;
	if (automatic && (l->why = layer_cifs_missing(NAME, l->env, l->why_buf, sizeof(l->why_buf)))) {
		l->off = true;
		return;
	}
	if (probes_kernel_backend(l->env->probes, &backend_why) == BACKEND_NONE) {
		if (automatic) {
			l->off = true;
			l->why = layer_off(NAME, REASON_NO_BACKEND, l->why_buf, sizeof(l->why_buf),
					   "no backend for kernel functions: %s",
					   backend_why ? backend_why : "none");
			return;
		}
		/* a copy: the probes' reason is rewritten at each call */
		snprintf(l->why_buf, sizeof(l->why_buf), "%s",
			 backend_why ? backend_why : "no backend for kernel functions");
		l->why = l->why_buf;
		log_layer(NAME, STATUS_LAYER_UNAVAILABLE, REASON_NO_BACKEND, LOG_WARNING,
			  "layer unavailable on this kernel: %s", l->why);
		return;
	}
	if (!kmodule_instance(CIFS_MODULE)) {
		log_layer(NAME, STATUS_LAYER_WAITING, REASON_MODULE_NOT_LOADED, LOG_NOTICE,
			  "cifs module not loaded; attaching when it is");
		return;
	}
	attach_instance(l, &a, &d);
}

static unsigned int smb_detach(struct layer *l, enum func_state why)
{
	struct func_table *t = l->env->funcs;
	unsigned int n = 0;

	for (uint32_t i = 0; i < t->n; i++) {
		struct func *f = &t->v[i];

		if (f->layer != LAYER_SMB)
			continue;
		n += func_attached(f);
		if (func_attached(f) || f->state == FUNC_PENDING || why == FUNC_UNLOADED)
			probes_detach(l->env->probes, f, why,
				      why == FUNC_UNLOADED ? "cifs module unloaded" : NULL);
	}
	/* the next cifs is a new module with new BTF */
	probes_forget_module(l->env->probes, CIFS_MODULE);
	l->module = 0;
	return n;
}

static void smb_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	shareview_enable(l->env);
	if (l->why)
		return;
	if (!l->module) {
		if (kmodule_instance(CIFS_MODULE))
			attach_instance(l, &n->attached, &n->detached);
		return;
	}
	/* ops selected now but not resolved before are in the tables of this instance */
	if (resolve(l) == 0)
		layer_sync(l, &n->attached, &n->detached);
}

static void smb_watch(struct layer *l)
{
	uint64_t inst;
	unsigned int a = 0, d = 0;

	if (l->why)
		return;
	inst = kmodule_instance(CIFS_MODULE);
	if (l->module && inst != l->module) {
		unsigned int n = smb_detach(l, FUNC_UNLOADED);
		struct status s = { .kind = STATUS_LAYER_WAITING,
				    .reason = REASON_MODULE_UNLOADED,
				    .priority = LOG_NOTICE,
				    .layer = NAME };

		status_count_set(&s, COUNT_DETACHED, n);
		log_emit(&s, "cifs module %s: %u %s detached; attaching again when it is loaded",
			 inst ? "reloaded" : "unloaded", n, PLURAL(n, "probe", "probes"));
	}
	if (!l->module && inst)
		attach_instance(l, &a, &d);
}

static void smb_list(struct layer *l, FILE *out)
{
	for (const char *const *k = cifsops_known; *k; k++) {
		bool found = false;

		for (uint32_t i = 0; i < l->env->funcs->n && !found; i++)
			found = strcmp(l->env->funcs->v[i].name, *k) == 0;
		if (!found)
			layer_list_row(out, *k, LAYER_SMB, "-", "-",
				       l->why    ? l->why :
				       l->module ? "not served by cifs on this kernel" :
						   "cifs module not loaded");
	}
}

static enum layer_state smb_state(struct layer *l, const char **why)
{
	if (l->why) {
		*why = l->why;
		return l->off ? LAYER_OFF : LAYER_UNAVAILABLE;
	}
	if (func_table_attached(l->env->funcs, LAYER_SMB))
		return LAYER_ACTIVE;
	if (!l->module) {
		*why = "cifs module not loaded";
		return LAYER_WAITING;
	}
	*why = "no cifs operation attached";
	return LAYER_UNAVAILABLE;
}

static void smb_summarize(struct layer *l, const struct summary_out *out)
{
	shareview_summarize(l->shares, l->env, LAYER_SMB, out);
}

static int smb_init(struct layer *l)
{
	return shareview_new(&l->shares);
}

static void smb_free(struct layer *l)
{
	shareview_free(l->shares);
}

static uint32_t smb_ids_needed(const struct config *c)
{
	/* every op (about 65) of two cifs instances: ids are never reused */
	return 128;
}

static int smb_prepare(struct layer *l, struct probes_opts *po)
{
	/* always: a reload may enable the layer */
	return probes_opts_want(po, &vfs_unit, l);
}

/* A VFS operation (REC_VFS_CALL): the call, its share and file, the SMB2 requests it waited on. */
static int smb_decode(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r)
{
	const struct rec_vfs_call *v = (const struct rec_vfs_call *)h;
	int err;

	if (size < sizeof(*v))
		return -EINVAL;
	err = event_decode_call(env->dec, &v->c, size, r);
	if (err == 0)
		err = event_decode_file(env->dec, h->flags, v->dev, v->name, r);
	if (err == 0)
		smb2_decode_wire(&v->wire, r);
	return err;
}

/* Its column of --breakdown. */
static const struct breakdown_column smb_column = { "smb", "BREAKDOWN_SMB", 50 };

/* --breakdown without --layers: on where this kernel has cifs (auto). */
static int smb_breakdown(struct config *c, bool layers_given)
{
	if (!layers_given && !c->layer[LAYER_SMB].enabled)
		c->layer[LAYER_SMB].enabled = c->layer[LAYER_SMB].automatic = true;
	return 0;
}

const struct layer_ops smb_layer = {
	.columns = &smb_column,
	.n_columns = 1,
	.breakdown = smb_breakdown,
	.id = LAYER_SMB,
	.config = &smb_settings_section,
	.traces = "SMB client operations",
	.ids_needed = smb_ids_needed,
	.prepare = smb_prepare,
	.unit = &vfs_unit,
	.size = sizeof(struct layer),
	.init = smb_init,
	.attach = smb_attach,
	.apply = smb_apply,
	.detach = smb_detach,
	.watch = smb_watch,
	.list = smb_list,
	.records = REC_BIT(REC_VFS_CALL),
	.decode = smb_decode,
	.summarize = smb_summarize,
	.state = smb_state,
	.free = smb_free,
};
