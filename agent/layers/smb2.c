// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smb2 layer: SMB2 requests of the cifs client, timed from the
 * allocation of their mid to its release. Which cifs functions allocate and
 * release mids, and where the mid is among their arguments, changed across
 * kernels: both come from the module's BTF (kallsyms alone: first argument).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>
#include <bpf/btf.h>

#include "core/agent-int.h"
#include "layers/smb2proto.h"

#define CIFS_MODULE "cifs"

/* Newest names first; the first one this kernel has is used. */
static const char *const hook_candidates[_SMB2_HOOK_MAX][4] = {
	[SMB2_HOOK_ALLOC] = { "smb2_mid_entry_alloc", "__smb2_mid_entry_alloc" },
	[SMB2_HOOK_RESPONSE] = { "dequeue_mid" },
	[SMB2_HOOK_DONE] = { "delete_mid", "cifs_delete_mid" },
	[SMB2_HOOK_FREE] = { "__release_mid", "_cifs_mid_q_entry_release" },
};

/* FUNCTION of the hooks in --list-probes; they never make events of their own. */
static const char *const hook_names[_SMB2_HOOK_MAX] = {
	[SMB2_HOOK_ALLOC] = "MID_ALLOC",
	[SMB2_HOOK_RESPONSE] = "MID_RESPONSE",
	[SMB2_HOOK_DONE] = "MID_DELETE",
	[SMB2_HOOK_FREE] = "MID_FREE",
};

/* The struct a pointer type points to, or NULL. */
static const char *pointee_struct(const struct btf *btf, uint32_t id)
{
	int r = btf__resolve_type(btf, id);
	const struct btf_type *t = r > 0 ? btf__type_by_id(btf, r) : NULL;

	if (!t || !btf_is_ptr(t))
		return NULL;
	r = btf__resolve_type(btf, t->type);
	t = r > 0 ? btf__type_by_id(btf, r) : NULL;
	return t && btf_is_struct(t) ? btf__name_by_offset(btf, t->name_off) : NULL;
}

int smb2_hook_arg(const struct btf *btf, enum smb2_hook h, const char *symbol, uint8_t *arg,
		    uint8_t *kref)
{
	const struct btf_type *fn, *proto;
	const struct btf_param *p;
	int id;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, symbol, BTF_KIND_FUNC);
	if (id < 0)
		return -ENOENT;
	fn = btf__type_by_id(btf, id);
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto))
		return -EINVAL;
	p = btf_params(proto);
	for (int i = 0; i < btf_vlen(proto) && i < SMBLAT_MAX_ARGS; i++) {
		const char *s = pointee_struct(btf, p[i].type);

		if (!s)
			continue;
		if (h == SMB2_HOOK_ALLOC ? strstr(s, "hdr") != NULL : strcmp(s, "mid_q_entry") == 0) {
			*arg = i;
			*kref = 0;
			return 0;
		}
		if (h != SMB2_HOOK_ALLOC && strcmp(s, "kref") == 0) {
			*arg = i;
			*kref = 1;
			return 0;
		}
	}
	return -EINVAL;
}

/* The first candidate this kernel has; fills ctl's argument layout. */
static const char *hook_resolve(struct agent *a, enum smb2_hook h, struct smb2_ctl *ctl)
{
	const struct btf *btf = btfs_get(a->btfs, CIFS_MODULE);

	for (int i = 0; i < 4 && hook_candidates[h][i]; i++) {
		const char *s = hook_candidates[h][i];
		int r = smb2_hook_arg(btf, h, s, &ctl->hook_arg[h], &ctl->hook_kref[h]);

		if (r == 0)
			return s;
		if (r == -ENOENT && !btf && ksyms_lookup(a->ks, s, CIFS_MODULE)) {
			/* No BTF to tell: every known version passes it first. */
			ctl->hook_arg[h] = 0;
			ctl->hook_kref[h] = h == SMB2_HOOK_FREE;
			return s;
		}
	}
	return NULL;
}

static bool name_in(char **list, const char *name)
{
	for (; list && *list; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

static bool command_wanted(const struct layer_config *l, const char *name)
{
	if (l->include && l->include[0] && !name_in(l->include, name))
		return false;
	return !name_in(l->exclude, name);
}

/* One func id per command, so stats, histograms and summaries work as for any function. */
static int add_commands(struct agent *a, struct smb2_ctl *ctl, struct func **cmds, uint32_t *n)
{
	const struct layer_config *l = &a->cfg->layer[LAYER_SMB2];

	for (unsigned int c = 0; c < SMB2_NCMD; c++) {
		const char *name = smb2_command_name(c);
		struct func *f;
		int id;

		ctl->cmd_id[c] = SMB2_NO_HOOK;
		if (!name || !command_wanted(l, name))
			continue;
		id = func_table_add(&a->funcs, LAYER_SMB2, GROUP_NONE, name, NULL, CIFS_MODULE);
		if (id < 0)
			return id;
		f = &a->funcs.v[id];
		f->cfg.threshold_ns = config_layer_threshold_ns(a->cfg, LAYER_SMB2);
		f->cfg.flags = FF_ENABLED | (l->errors ? FF_ERRORS : 0);
		f->cfg.ret_kind = RK_VOID;
		ctl->cmd_id[c] = id;
		cmds[(*n)++] = f;
	}
	return 0;
}

static void commands_mark(struct func **cmds, uint32_t n, enum backend be, const char *missing)
{
	for (uint32_t i = 0; i < n; i++) {
		cmds[i]->backend = be;
		free(cmds[i]->missing);
		cmds[i]->missing = missing ? strdup(missing) : NULL;
	}
}

int smb2_attach(struct agent *a)
{
	struct smb2_ctl ctl = { .on = 1 };
	struct func *hooks[_SMB2_HOOK_MAX], *cmds[SMB2_NCMD];
	uint32_t n_hooks = 0, n_cmds = 0;
	const char *why = NULL;
	int r;

	for (int h = 0; h < _SMB2_HOOK_MAX; h++)
		ctl.hook_id[h] = SMB2_NO_HOOK;
	if (access("/sys/module/" CIFS_MODULE, F_OK) < 0) {
		agent_status(a, LOG_WARNING, "smb2: layer unavailable: cifs module not loaded at start");
		return -ENOENT;
	}
	r = ksyms_reload(a->ks);
	if (r < 0)
		return r;
	if (probes_kernel_backend(a->probes, &why) == BACKEND_NONE) {
		agent_status(a, LOG_WARNING, "smb2: layer unavailable: %s", why ? why : "no backend");
		return -EOPNOTSUPP;
	}
	for (int h = 0; h < _SMB2_HOOK_MAX; h++) {
		const char *s = hook_resolve(a, h, &ctl);
		int id;

		if (!s) {
			if (h == SMB2_HOOK_ALLOC || h == SMB2_HOOK_FREE) {
				agent_status(a, LOG_WARNING, "smb2: layer unavailable: cifs has no %s here",
					     hook_candidates[h][0]);
				return -ENOENT;
			}
			continue;       /* fewer statuses, or every request ends at its free */
		}
		id = func_table_add(&a->funcs, LAYER_SMB2, GROUP_NONE, hook_names[h], s, CIFS_MODULE);
		if (id < 0)
			return id;
		hooks[n_hooks] = &a->funcs.v[id];
		hooks[n_hooks]->cfg.flags = FF_ENABLED;
		ctl.hook_id[h] = id;
		n_hooks++;
	}
	r = add_commands(a, &ctl, cmds, &n_cmds);
	if (r < 0)
		return r;
	for (uint32_t i = 0; i < n_cmds; i++)
		probes_update(a->probes, cmds[i]);
	for (uint32_t i = 0; i < n_hooks; i++)
		probes_update(a->probes, hooks[i]);
	/* The ids first: a hook attached before would be timed as an ordinary function. */
	probes_smb2_set(a->probes, &ctl);
	r = probes_attach_kernel(a->probes, hooks, n_hooks);
	for (uint32_t i = 0; i < n_hooks; i++) {
		if (!hooks[i]->missing)
			continue;
		if (hooks[i]->id == ctl.hook_id[SMB2_HOOK_ALLOC] ||
		    hooks[i]->id == ctl.hook_id[SMB2_HOOK_FREE]) {
			agent_status(a, LOG_WARNING, "smb2: layer unavailable: %s: %s",
				     hooks[i]->symbol, hooks[i]->missing);
			ctl.on = 0;
			probes_smb2_set(a->probes, &ctl);
			for (uint32_t j = 0; j < n_hooks; j++) {
				hooks[j]->cfg.flags = 0;        /* never timed as functions */
				probes_update(a->probes, hooks[j]);
				probes_detach(a->probes, hooks[j]->id);
			}
			commands_mark(cmds, n_cmds, BACKEND_NONE, "mid hooks not attached");
			return -ENOENT;
		}
		agent_status(a, LOG_NOTICE, "smb2: %s not attached (%s): %s", hooks[i]->symbol,
			     hooks[i]->name, hooks[i]->missing);
	}
	commands_mark(cmds, n_cmds, hooks[0]->backend, NULL);
	agent_status(a, LOG_INFO, "smb2: %u SMB2 commands timed through %d mid hooks (%s)", n_cmds,
		     r, backend_name(hooks[0]->backend));
	return 0;
}
