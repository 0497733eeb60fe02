// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smb2 layer: SMB2 requests of the cifs client, timed from the
 * allocation of their mid to its release. Which cifs functions allocate and
 * release mids, and where the mid is among their arguments, changed across
 * kernels: smb2hooks.c finds both.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "base/log.h"
#include "decode/event.h"
#include "layers/layer.h"
#include "layers/cifs/smb2.h"
#include "decode/smb2.h"
#include "layers/cifs/shareview.h"
#include "layers/cifs/smbevent.h"
#include "layers/cifs/settings.h"
#include "probes/btfargs.h"
#include "probes/inflight.h"
#include "symbols/kmodules.h"
#include "symbols/ksyms.h"
#include "base/macro.h"

#define CIFS_MODULE "cifs"
#define NAME "smb2"

struct layer {
	const struct layer_env *env;
	uint64_t module; /* cifs instance the hooks are on, 0: none */
	struct smb2_ctl ctl;
	struct func *hooks[_SMB2_HOOK_MAX];
	struct func *cmds[SMB2_NCMD];
	struct smbevents events;
	struct shareview *shares;
	const char *why; /* unavailable or off: why */
	bool off;        /* enabled = auto found no way to trace here */
	char why_buf[320];
};

/* FUNCTION of the hooks in --list-probes; they never make events of their own. */
static const char *const hook_names[_SMB2_HOOK_MAX] = {
	[SMB2_HOOK_ALLOC] = "MID_ALLOC",   [SMB2_HOOK_RESPONSE] = "MID_RESPONSE",
	[SMB2_HOOK_DONE] = "MID_DELETE",   [SMB2_HOOK_FREE] = "MID_FREE",
	[SMB2_HOOK_SUBMIT] = "MID_SUBMIT", [SMB2_HOOK_SUBMIT_ASYNC] = "MID_SUBMIT_ASYNC",
	[SMB2_HOOK_SENT] = "MID_SENT",
};

/* The layer's programs (bpf/smb2.bpf.c, smbevent.bpf.h): the mid hooks' families, the cifs tracepoints. */
static const struct prog_spec smb2_progs[] = {
	PROG(smb2_alloc_fexit, PROG_FENTRY),      PROG(smb2_alloc_kprobe, PROG_PLAIN),
	PROG(smb2_alloc_kretprobe, PROG_PLAIN),   PROG(smb2_alloc_kmulti, PROG_KMULTI),
	PROG(smb2_alloc_kretmulti, PROG_KMULTI),  PROG(smb2_mid_fentry, PROG_FENTRY),
	PROG(smb2_mid_kprobe, PROG_PLAIN),        PROG(smb2_mid_kmulti, PROG_KMULTI),
	PROG(smb2_sent_fexit, PROG_FENTRY),       PROG(smb2_sent_kretprobe, PROG_PLAIN),
	PROG(smb2_sent_kretmulti, PROG_KMULTI),   PROG(smb2_tp_reconnect, PROG_PLAIN),
	PROG(smb2_tp_credit_timeout, PROG_PLAIN), PROG(smb2_tp_credit_short, PROG_PLAIN),
	PROG(smb2_tp_ses_expired, PROG_PLAIN),    PROG(smb2_tp_tcon, PROG_PLAIN),
	PROG(smb2_tp_slow_rsp, PROG_PLAIN),
};

/* The allocation of a mid: its header at entry, the mid at return. */
static const struct kprog_family alloc_progs = {
	.fexit = PROG_AT(smb2_alloc_fexit),
	.kprobe = PROG_AT(smb2_alloc_kprobe),
	.kretprobe = PROG_AT(smb2_alloc_kretprobe),
	.kmulti = PROG_AT(smb2_alloc_kmulti),
	.kretmulti = PROG_AT(smb2_alloc_kretmulti),
};

/* A mid seen, a request submitted: entry only. */
static const struct kprog_family mid_progs = {
	.fentry = PROG_AT(smb2_mid_fentry),
	.kprobe = PROG_AT(smb2_mid_kprobe),
	.kmulti = PROG_AT(smb2_mid_kmulti),
};

/* A submission sent: return only. */
static const struct kprog_family sent_progs = {
	.fexit = PROG_AT(smb2_sent_fexit),
	.kretprobe = PROG_AT(smb2_sent_kretprobe),
	.kretmulti = PROG_AT(smb2_sent_kretmulti),
};

static void smb2_setup(struct smblat_bpf *skel, void *arg)
{
	const struct layer *l = arg;

	shareview_setup(skel, l->env->cfg);
}

static const struct prog_unit smb2_unit = {
	.name = "smb2", .progs = smb2_progs, .n = ELEMENTSOF(smb2_progs), .setup = smb2_setup
};

/* [smb2] servers= and sessions= into what BPF compares. */
static void filters_configure(struct layer *l)
{
	const struct smb2_settings *s = smb2_settings(l->env->cfg);
	struct smb2_ctl *ctl = &l->ctl;

	ctl->n_servers = ctl->n_sessions = 0;
	memset(ctl->servers, 0, sizeof(ctl->servers));
	for (size_t i = 0; s->servers && s->servers[i] && i < SMB2_FILTER_MAX; i++)
		snprintf(ctl->servers[ctl->n_servers++], SMBLAT_NAME_LEN, "%s", s->servers[i]);
	for (size_t i = 0; s->sessions && s->sessions[i] && i < SMB2_FILTER_MAX; i++)
		if (smb2_session_parse(s->sessions[i], &ctl->sessions[ctl->n_sessions]) == 0)
			ctl->n_sessions++;
}

/* One func per command, so stats, histograms and summaries work as for any function. */
static void commands_configure(struct layer *l)
{
	const struct config *c = l->env->cfg;

	for (unsigned int i = 0; i < SMB2_NCMD; i++) {
		struct func *f = l->cmds[i];

		if (!f)
			continue;
		f->cfg = (struct func_cfg) {
			.threshold_ns = config_layer_threshold_ns(c, LAYER_SMB2),
			.ret_kind = RK_VOID,
		};
		if (config_wants(c, LAYER_SMB2, f->name))
			f->cfg.flags = FF_ENABLED | (c->layer[LAYER_SMB2].errors ? FF_ERRORS : 0);
		probes_update(l->env->probes, f);
	}
	filters_configure(l);
}

/* Commands follow their hooks: attached with them (unless excluded), or in state s. */
static void commands_mark(struct layer *l, enum func_state s, const char *detail)
{
	for (unsigned int i = 0; i < SMB2_NCMD; i++) {
		struct func *f = l->cmds[i];

		if (!f)
			continue;
		if (s == FUNC_ATTACHED && !(f->cfg.flags & FF_ENABLED))
			func_set_state(f, FUNC_EXCLUDED, NULL);
		else if (s == FUNC_ATTACHED)
			func_set_attached(f, l->hooks[SMB2_HOOK_ALLOC]->backend);
		else
			func_set_state(f, s, detail ? "%s" : NULL, detail);
	}
}

static int commands_add(struct layer *l)
{
	for (unsigned int i = 0; i < SMB2_NCMD; i++) {
		const char *name = smb2_command_name(i);

		l->ctl.cmd_id[i] = SMB2_NO_HOOK;
		if (!name)
			continue;
		if (!l->cmds[i])
			l->cmds[i] = func_table_find_or_add(l->env->funcs, LAYER_SMB2, name, NULL,
							    CIFS_MODULE);
		if (!l->cmds[i])
			return -ENOMEM;
		l->ctl.cmd_id[i] = l->cmds[i]->id;
	}
	commands_configure(l);
	return 0;
}

/* Connection events on (as the configuration wants them) with the hooks, or off. */
static unsigned int events_sync(struct layer *l)
{
	unsigned int n = smbevent_sync(&l->events, l->env, l->hooks[SMB2_HOOK_ALLOC]->backend,
				       l->ctl.event_id);

	l->ctl.keep_freed = l->ctl.event_id[SMB_EV_SLOW_RESPONSE] != SMB2_NO_HOOK;
	return n;
}

static void events_off(struct layer *l, enum func_state why, const char *detail)
{
	smbevent_off(&l->events, l->env, why, detail, l->ctl.event_id);
	l->ctl.keep_freed = 0;
}

/* ---- hooks ---- */

/* Off, hooks detached (state why), commands likewise. */
static unsigned int hooks_off(struct layer *l, enum func_state why, const char *detail)
{
	unsigned int n = 0;

	l->ctl.on = 0;
	probes_publish(&probes_skel(l->env->probes)->data->smb2, &l->ctl, sizeof(l->ctl));
	events_off(l, why, detail);
	for (int h = 0; h < _SMB2_HOOK_MAX; h++) {
		struct func *f = l->hooks[h];

		if (!f)
			continue;
		n += func_attached(f);
		/* never timed as functions */
		f->cfg.flags = 0;
		probes_detach(l->env->probes, f, why, detail);
		l->hooks[h] = NULL;
		l->ctl.hook_id[h] = SMB2_NO_HOOK;
	}
	commands_mark(l, why, detail);
	return n;
}

static int hooks_add(struct layer *l)
{
	for (int h = 0; h < _SMB2_HOOK_MAX; h++) {
		const char *s = smb2_hook_resolve(btfs_get(l->env->btfs, CIFS_MODULE), l->env->ks, h,
						  &l->ctl);

		l->ctl.hook_id[h] = SMB2_NO_HOOK;
		l->hooks[h] = NULL;
		if (!s) {
			if (h == SMB2_HOOK_ALLOC || h == SMB2_HOOK_FREE)
				return -ENOENT;
			continue; /* fewer statuses, or every request ends at its free */
		}
		l->hooks[h] = func_table_find_or_add(l->env->funcs, LAYER_SMB2, hook_names[h], s,
						     CIFS_MODULE);
		if (!l->hooks[h])
			return -ENOMEM;
		l->hooks[h]->kernel = true;
		l->hooks[h]->cfg = (struct func_cfg) { .flags = FF_ENABLED };
		probes_update(l->env->probes, l->hooks[h]);
		l->ctl.hook_id[h] = l->hooks[h]->id;
	}
	return 0;
}

/*
 * Submissions mark where a request's wait for credits begins; they are of
 * use only all together (every way to submit, and the send that ends them),
 * else a request could take the start of another.
 */
static void submissions_check(struct layer *l)
{
	static const enum smb2_hook need[] = { SMB2_HOOK_SUBMIT, SMB2_HOOK_SUBMIT_ASYNC, SMB2_HOOK_SENT };
	const char *missing = NULL;

	for (size_t i = 0; i < ELEMENTSOF(need) && !missing; i++)
		if (!l->hooks[need[i]] || !func_attached(l->hooks[need[i]]))
			missing = smb2_hook_name(need[i]);
	if (!missing)
		return;
	for (size_t i = 0; i < ELEMENTSOF(need); i++) {
		struct func *f = l->hooks[need[i]];

		if (f && func_attached(f))
			probes_detach(l->env->probes, f, FUNC_UNUSABLE, "not every submission is hooked");
		l->ctl.hook_id[need[i]] = SMB2_NO_HOOK;
	}
	log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NOT_FOUND, LOG_NOTICE,
		  "%s not attached: requests timed from their mid allocation, "
		  "without their wait for credits",
		  missing);
}

/* mid->when_* are jiffies: one jiffy is the resolution of the coarse clocks. */
static uint64_t ns_per_jiffy(void)
{
	struct timespec ts;

	if (clock_getres(CLOCK_MONOTONIC_COARSE, &ts) < 0)
		return 0;
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + ts.tv_nsec;
}

/* The mid hooks attached now. */
static unsigned int hooks_attached(const struct layer *l)
{
	unsigned int n = 0;

	for (int h = 0; h < _SMB2_HOOK_MAX; h++)
		n += l->hooks[h] && func_attached(l->hooks[h]);
	return n;
}

/* The hooks on the cifs loaded now. */
static void attach_instance(struct layer *l)
{
	struct status s = { .kind = STATUS_LAYER_ATTACHED, .priority = LOG_INFO, .layer = NAME };
	struct func *fv[_SMB2_HOOK_MAX];
	uint32_t n = 0, missing = 0, cmds;
	unsigned int ev, hooks;
	int r;

	l->module = kmodule_instance(CIFS_MODULE);
	if (!l->module || ksyms_refresh(l->env->ks, CIFS_MODULE) < 0)
		return;
	l->why = NULL;
	r = hooks_add(l);
	if (r == 0)
		r = commands_add(l);
	if (r == 0 && !btfs_get(l->env->btfs, CIFS_MODULE)) {
		char what[96];

		log_layer(NAME, STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
			  "cifs has no BTF (%s): mid hooks known by name, a request "
			  "ends at its first release",
			  features_missing(KF_MODULE_BTF, what, sizeof(what)));
	}
	if (r < 0) {
		hooks_off(l, FUNC_NOT_FOUND, "cifs has no mid allocation and release here");
		l->why = layer_unavailable(NAME, REASON_NOT_FOUND, l->why_buf, sizeof(l->why_buf),
					   "cifs has no %s or %s here", smb2_hook_name(SMB2_HOOK_ALLOC),
					   smb2_hook_name(SMB2_HOOK_FREE));
		return;
	}
	for (int h = 0; h < _SMB2_HOOK_MAX; h++)
		if (l->hooks[h] && h != SMB2_HOOK_ALLOC && h != SMB2_HOOK_SENT)
			fv[n++] = l->hooks[h];
	/* The ids first: the programs tell the hooks apart by them. Ends before the start. */
	l->ctl.ns_per_jiffy = ns_per_jiffy();
	l->ctl.on = 1;
	probes_publish(&probes_skel(l->env->probes)->data->smb2, &l->ctl, sizeof(l->ctl));
	/* each hook's state says what came of it (a negative return is no count) */
	(void)probes_attach_kernel(l->env->probes, fv, n, &mid_progs);
	if (l->hooks[SMB2_HOOK_SENT])
		(void)probes_attach_kernel(l->env->probes, &l->hooks[SMB2_HOOK_SENT], 1, &sent_progs);
	(void)probes_attach_kernel(l->env->probes, &l->hooks[SMB2_HOOK_ALLOC], 1, &alloc_progs);
	for (int h = 0; h < _SMB2_HOOK_MAX; h++) {
		struct func *f = l->hooks[h];
		char buf[160];

		if (!f || func_attached(f))
			continue;
		if (h == SMB2_HOOK_ALLOC || h == SMB2_HOOK_FREE) {
			func_state_text(f, buf, sizeof(buf));
			hooks_off(l, FUNC_FAILED, "mid hooks not attached");
			l->why = layer_unavailable(NAME, layer_func_reason(f), l->why_buf, sizeof(l->why_buf),
						   "%s: %s", f->symbol, buf);
			return;
		}
		log_emit(&(struct status) { .kind = STATUS_PROBE_FAILED,
					    .reason = layer_func_reason(f),
					    .priority = LOG_NOTICE,
					    .layer = NAME,
					    .function = f->name },
			 "%s not attached (%s): %s", f->symbol, f->name,
			 func_state_text(f, buf, sizeof(buf)));
		missing++;
	}
	submissions_check(l);
	commands_mark(l, FUNC_ATTACHED, NULL);
	ev = events_sync(l);
	probes_publish(&probes_skel(l->env->probes)->data->smb2, &l->ctl, sizeof(l->ctl));
	status_count_set(&s, COUNT_ATTACHED, func_table_attached(l->env->funcs, LAYER_SMB2));
	status_count_set(&s, COUNT_NOT_ATTACHED, missing);
	hooks = hooks_attached(l);
	cmds = func_table_attached(l->env->funcs, LAYER_SMB2) - hooks - ev;
	log_emit(&s, "%u SMB2 %s timed through %u mid %s (%s), %u connection %s", cmds,
		 PLURAL(cmds, "command", "commands"), hooks, PLURAL(hooks, "hook", "hooks"),
		 backend_name(l->hooks[SMB2_HOOK_ALLOC]->backend), ev, PLURAL(ev, "event", "events"));
}

static void smb2_attach(struct layer *l)
{
	bool automatic = l->env->cfg->layer[LAYER_SMB2].automatic;
	const char *why = NULL;

	l->off = false;
	l->why = NULL;
	if (automatic && !l->env->cfg->layer[LAYER_SMB].enabled) {
		l->off = true;
		l->why = layer_off(NAME, REASON_DISABLED, l->why_buf, sizeof(l->why_buf),
				   "the smb layer is off (enabled = no), and its requests with it");
		return;
	}
	if (automatic && (l->why = layer_cifs_missing(NAME, l->env, l->why_buf, sizeof(l->why_buf)))) {
		l->off = true;
		return;
	}
	if (automatic && probes_kernel_backend(l->env->probes, &why) == BACKEND_NONE) {
		l->off = true;
		l->why = layer_off(NAME, REASON_NO_BACKEND, l->why_buf, sizeof(l->why_buf),
				   "no backend for kernel functions: %s", why ? why : "none");
		return;
	}
	if (!probes_unit_loaded(l->env->probes, &smb2_unit)) {
		snprintf(l->why_buf, sizeof(l->why_buf), "enabled by reload: takes effect at the next start");
		l->why = l->why_buf;
		log_layer(NAME, STATUS_LAYER_UNAVAILABLE, REASON_RESTART_NEEDED, LOG_WARNING, "%s", l->why);
		return;
	}
	shareview_enable(l->env);
	if (probes_kernel_backend(l->env->probes, &why) == BACKEND_NONE) {
		l->why = layer_unavailable(NAME, REASON_NO_BACKEND, l->why_buf, sizeof(l->why_buf),
					   "no backend on this kernel: %s",
					   why ? why : "no backend for kernel functions");
		return;
	}
	if (!kmodule_instance(CIFS_MODULE)) {
		log_layer(NAME, STATUS_LAYER_WAITING, REASON_MODULE_NOT_LOADED, LOG_NOTICE,
			  "cifs module not loaded; attaching when it is");
		return;
	}
	attach_instance(l);
}

static unsigned int smb2_detach(struct layer *l, enum func_state why)
{
	unsigned int n = hooks_off(l, why, why == FUNC_UNLOADED ? "cifs module unloaded" : NULL);

	probes_forget_module(l->env->probes, CIFS_MODULE);
	l->module = 0;
	return n;
}

static void smb2_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	const struct config *c = l->env->cfg;

	/* auto follows smb: a reload that turns smb off lets cifs go (rmmod) */
	if (c->layer[LAYER_SMB2].automatic && !c->layer[LAYER_SMB].enabled) {
		struct status s = { .kind = STATUS_LAYER_OFF,
				    .reason = REASON_DISABLED,
				    .priority = LOG_NOTICE,
				    .layer = NAME };
		unsigned int k = smb2_detach(l, FUNC_DISABLED);

		n->detached += k;
		l->off = true;
		l->why = "the smb layer is off (enabled = no), and its requests with it";
		status_count_set(&s, COUNT_DETACHED, k);
		log_emit(&s, "layer off with the smb layer: %u mid %s detached", k,
			 PLURAL(k, "hook", "hooks"));
		return;
	}
	shareview_enable(l->env);
	if (l->module && l->ctl.on) {
		commands_configure(l);
		commands_mark(l, FUNC_ATTACHED, NULL);
		events_sync(l);
		probes_publish(&probes_skel(l->env->probes)->data->smb2, &l->ctl, sizeof(l->ctl));
	} else if (!l->module && kmodule_instance(CIFS_MODULE) &&
		   probes_kernel_backend(l->env->probes, &(const char *) { NULL }) != BACKEND_NONE) {
		attach_instance(l);
		n->attached += func_table_attached(l->env->funcs, LAYER_SMB2);
	}
}

/*
 * SMB2 requests may wait long (a blocking lock, a change notify), but one
 * in flight for an hour has lost its end: its mid was freed where no hook
 * saw it.
 */
#define STALE_NS (60 * 60 * NSEC_PER_SEC)

static void smb2_watch(struct layer *l)
{
	struct inflight_sweep s = { .max_age_ns = STALE_NS };
	uint64_t inst;

	if (l->why && !l->module)
		return; /* no backend: nothing will change that */
	layer_sweep(l->env, NAME, probes_skel(l->env->probes)->maps.smb2_reqs, &s, "not ended in 60 min",
		    NULL);
	inst = kmodule_instance(CIFS_MODULE);
	if (l->module && inst != l->module) {
		unsigned int n = smb2_detach(l, FUNC_UNLOADED);
		struct status s = { .kind = STATUS_LAYER_WAITING,
				    .reason = REASON_MODULE_UNLOADED,
				    .priority = LOG_NOTICE,
				    .layer = NAME };

		l->why = NULL;
		status_count_set(&s, COUNT_DETACHED, n);
		log_emit(&s, "cifs module %s: %u mid %s detached; attaching again when it is loaded",
			 inst ? "reloaded" : "unloaded", n, PLURAL(n, "hook", "hooks"));
	}
	if (!l->module && inst)
		attach_instance(l);
}

/* A request (REC_SMB2_REQ) or a connection event (REC_SMB_EVENT). */
static int smb2_decode(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r)
{
	const struct rec_smb2 *e = (const struct rec_smb2 *)h;

	if (size < sizeof(*e) || event_decode_file(env->dec, h->flags, e->dev, e->name, r) < 0)
		return -EINVAL;
	if (h->kind == REC_SMB_EVENT)
		return smbevent_decode(e, r, env->mounts);
	return smb2_decode_request(e, r);
}

static void smb2_summarize(struct layer *l, const struct summary_out *out)
{
	shareview_summarize(l->shares, l->env, LAYER_SMB2, out);
}

static enum layer_state smb2_state(struct layer *l, const char **why)
{
	if (l->ctl.on && func_table_attached(l->env->funcs, LAYER_SMB2))
		return LAYER_ACTIVE;
	if (l->why) {
		*why = l->why;
		/* a later cifs instance may have the hooks */
		return l->module ? LAYER_WAITING : l->off ? LAYER_OFF : LAYER_UNAVAILABLE;
	}
	*why = "cifs module not loaded";
	return LAYER_WAITING;
}

static int smb2_init(struct layer *l)
{
	l->events.unit = &smb2_unit;
	for (int h = 0; h < _SMB2_HOOK_MAX; h++)
		l->ctl.hook_id[h] = SMB2_NO_HOOK;
	for (int k = 0; k < _SMB_EV_MAX; k++)
		l->ctl.event_id[k] = SMB2_NO_HOOK;
	return shareview_new(&l->shares);
}

static void smb2_free(struct layer *l)
{
	shareview_free(l->shares);
}

static int smb2_prepare(struct layer *l, struct probes_opts *po)
{
	const struct layer_config *lc = &l->env->cfg->layer[LAYER_SMB2];

	/* auto on a kernel without cifs: nothing to load the programs for */
	if (lc->enabled && !(lc->automatic && !kmodule_known(CIFS_MODULE)))
		return probes_opts_want(po, &smb2_unit, l);
	return 0;
}

static uint32_t smb2_ids_needed(const struct config *c)
{
	/* the commands and events once, the hooks of a few cifs instances */
	return SMB2_NCMD + _SMB_EV_MAX + 4 * _SMB2_HOOK_MAX;
}

/* Its column of --breakdown. */
static const struct breakdown_column smb2_column = { "smb2", "BREAKDOWN_SMB2", 60 };

/* --breakdown without --layers: on where this kernel has cifs (auto). */
static int smb2_breakdown(struct config *c, bool layers_given)
{
	if (!layers_given && !c->layer[LAYER_SMB2].enabled)
		c->layer[LAYER_SMB2].enabled = c->layer[LAYER_SMB2].automatic = true;
	return 0;
}

const struct layer_ops smb2_layer = {
	.columns = &smb2_column,
	.n_columns = 1,
	.breakdown = smb2_breakdown,
	.id = LAYER_SMB2,
	.config = &smb2_settings_section,
	.traces = "SMB2 requests of the client, its connection events",
	.ids_needed = smb2_ids_needed,
	.prepare = smb2_prepare,
	.unit = &smb2_unit,
	.size = sizeof(struct layer),
	.init = smb2_init,
	.attach = smb2_attach,
	.apply = smb2_apply,
	.detach = smb2_detach,
	.watch = smb2_watch,
	.records = REC_BIT(REC_SMB2_REQ) | REC_BIT(REC_SMB_EVENT),
	.decode = smb2_decode,
	.summarize = smb2_summarize,
	.state = smb2_state,
	.free = smb2_free,
};
