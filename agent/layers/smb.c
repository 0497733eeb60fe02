// SPDX-License-Identifier: LGPL-2.1-or-later
/* The smb layer: which cifs functions serve which VFS operation here, attached. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <syslog.h>
#include <unistd.h>
#include <systemd/sd-daemon.h>

#include "core/agent-int.h"
#include "layers/cifsops.h"
#include "layers/peek.h"
#include "base/privs.h"

#define CIFS_SYSFS "/sys/module/cifs"

/* Changes when cifs is unloaded and loaded again: sysfs gives a new directory a new inode. */
static uint64_t smb_module_ino(void)
{
	struct stat st;

	return stat(CIFS_SYSFS, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

static bool name_in(char **list, const char *name)
{
	for (; list && *list; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

static bool smb_op_wanted(const struct config *c, const struct cifs_op *op)
{
	const struct layer_config *l = &c->layer[LAYER_SMB];

	if (!c->group[op->group])
		return false;
	if (l->include && l->include[0] && !name_in(l->include, op->name))
		return false;
	return !name_in(l->exclude, op->name);
}

/* The same choice for a function in the table (a reload re-decides it). */
bool smb_func_wanted(const struct config *c, const struct func *f)
{
	const struct layer_config *l = &c->layer[LAYER_SMB];

	if (f->group <= GROUP_SUPER && !c->group[f->group])
		return false;
	if (l->include && l->include[0] && !name_in(l->include, f->name))
		return false;
	return !name_in(l->exclude, f->name);
}

/*
 * Already in the table and attached (or given up on for good): a reload
 * attaches only ops it did not have. Ops detached with the whole layer
 * (module unloaded, layer disabled) are resolved again: their addresses
 * may have changed.
 */
static bool smb_known(const struct agent *a, const struct cifs_op *op)
{
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];

		if (f->layer != LAYER_SMB || !f->symbol || strcmp(f->symbol, op->symbol) != 0 ||
		    strcmp(f->name, op->name) != 0)
			continue;
		return f->backend != BACKEND_NONE || !f->missing ||
		       (strcmp(f->missing, SMB_UNLOADED) != 0 && strcmp(f->missing, SMB_DISABLED) != 0);
	}
	return false;
}

static uint32_t base_flags(const struct config *c)
{
	return FF_ENABLED | (c->kernel_stack ? FF_KSTACK : 0) | (c->user_stack ? FF_USTACK : 0);
}

/*
 * The id the op had before cifs was unloaded, else a new one: ids are never
 * reused for another function. Names repeat (three FILE_WRITE_ITER), symbols do not.
 */
static int smb_func_id(struct agent *a, const struct cifs_op *op)
{
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct func *f = &a->funcs.v[i];

		if (f->layer == LAYER_SMB && strcmp(f->name, op->name) == 0 && f->symbol &&
		    strcmp(f->symbol, op->symbol) == 0 &&
		    strcmp(f->module ? f->module : "", op->module ? op->module : "") == 0) {
			f->group = op->group;
			f->cfg = (struct func_cfg) {};
			return (int)i;
		}
	}
	return func_table_add(&a->funcs, LAYER_SMB, op->group, op->name, op->symbol, op->module);
}

/* Resolves the cifs ops on this kernel into functions; -ENOENT: cifs not loaded. */
static int smb_resolve(struct agent *a, struct func **added, uint32_t *n_added)
{
	struct cifs_op *ops = NULL;
	struct peek *pk = NULL;
	size_t n = 0;
	int r;

	if (access("/sys/module/cifs", F_OK) < 0)
		return -ENOENT;
	r = ksyms_reload(a->ks);
	if (r < 0)
		return r;
	r = peek_open(&pk);
	if (r < 0) {
		agent_status(a, LOG_ERR, "smb: cannot read the cifs ops tables: %s", strerror(-r));
		return r;
	}
	r = cifsops_resolve(a->ks, btfs_get(a->btfs, NULL), peek_read, pk, &ops, &n);
	peek_close(pk);
	if (r < 0)
		return r;
	*n_added = 0;
	for (size_t i = 0; i < n; i++) {
		struct func *f;
		int id;

		if (!smb_op_wanted(a->cfg, &ops[i]) || smb_known(a, &ops[i]))
			continue;
		id = smb_func_id(a, &ops[i]);
		if (id < 0)
			break;
		f = &a->funcs.v[id];
		f->cfg.threshold_ns = config_layer_threshold_ns(a->cfg, LAYER_SMB);
		f->cfg.flags = base_flags(a->cfg) | (ops[i].generic ? FF_SB_CHECK : 0);
		(void)btfargs_fill(btfs_get(a->btfs, f->module), f->symbol, &f->cfg, NULL);
		if (ops[i].generic && f->cfg.sb_kind == AK_NONE) {
			/* Without a way to tell SMB calls apart, a shared helper would lie. */
			free(f->missing);
			f->missing = strdup("shared helper without a superblock argument");
			f->cfg.flags &= ~FF_ENABLED;
		}
		added[(*n_added)++] = f;
	}
	cifsops_free(ops, n);
	return 0;
}

static enum op_group name_group(const char *name)
{
	if (strncmp(name, "INODE_OP_", 9) == 0)
		return GROUP_INODE;
	if (strncmp(name, "FILE_", 5) == 0)
		return GROUP_FILE;
	if (strncmp(name, "ADSPACE_OP_", 11) == 0)
		return GROUP_ADSPACE;
	return strncmp(name, "SUPER_OP_", 9) == 0 ? GROUP_SUPER : GROUP_NONE;
}

static void smb_report_missing(struct agent *a)
{
	char line[2048] = "";
	size_t len = 0;

	for (const char *const *k = cifsops_known; *k; k++) {
		const struct layer_config *l = &a->cfg->layer[LAYER_SMB];
		bool found = false;

		if ((l->include && l->include[0] && !name_in(l->include, *k)) ||
		    name_in(l->exclude, *k) || !a->cfg->group[name_group(*k)])
			continue;       /* the user asked not to see it */
		for (uint32_t i = 0; i < a->funcs.n; i++)
			if (a->funcs.v[i].layer == LAYER_SMB && strcmp(a->funcs.v[i].name, *k) == 0)
				found = true;
		if (!found && len < sizeof(line) - 64)
			len += snprintf(line + len, sizeof(line) - len, "%s%s", len ? " " : "", *k);
	}
	if (len)
		agent_status(a, LOG_NOTICE, "smb: not served by cifs on this kernel: %s",
		       line);
}

/*
 * "fentry", or "fentry 50, kprobe 18" when the kernel refused the first
 * backend part way (seen on 6.1): the line must not claim one backend for all.
 */
static const char *backends_used(struct func **fv, uint32_t n, char *buf, size_t size)
{
	unsigned int count[_BACKEND_MAX] = {0}, kinds = 0;
	size_t len = 0;

	for (uint32_t i = 0; i < n; i++)
		if (fv[i]->backend != BACKEND_NONE && !fv[i]->missing)
			kinds += count[fv[i]->backend]++ == 0;
	buf[0] = '\0';
	for (int b = 0; b < _BACKEND_MAX && len < size; b++) {
		if (!count[b])
			continue;
		if (kinds == 1)
			return backend_name(b);
		len += snprintf(buf + len, size - len, "%s%s %u", len ? ", " : "", backend_name(b),
				count[b]);
	}
	return buf;
}

int smb_attach(struct agent *a)
{
	char mix[128];
	struct func **added = calloc(SMBLAT_MAX_FUNCS, sizeof(*added));
	uint32_t n = 0, ok = 0, todo = 0;
	const char *why = NULL;
	enum backend be;
	int r;

	if (!added)
		return -ENOMEM;
	r = smb_resolve(a, added, &n);
	if (r < 0)
		goto out;
	if (n == 0 && a->smb_attached)
		goto out;       /* a reload that selects no op the table lacks */
	a->smb_module_ino = smb_module_ino();
	for (uint32_t i = 0; i < n; i++) {
		probes_update(a->probes, added[i]);
		if (added[i]->cfg.flags & FF_ENABLED)
			added[todo++] = added[i];
	}
	be = probes_kernel_backend(a->probes, &why);
	if (be == BACKEND_NONE) {
		agent_status(a, LOG_WARNING, "smb: layer unavailable: %s", why ? why : "no backend");
	} else {
		r = probes_attach_kernel(a->probes, added, todo);
		ok = r > 0 ? r : 0;
		be = probes_kernel_backend(a->probes, &why);
		agent_status(a, ok ? LOG_INFO : LOG_WARNING, "smb: %u of %u cifs operations attached (%s)",
		       ok, todo, ok ? backends_used(added, todo, mix, sizeof(mix)) : backend_name(be));
		if (!ok)
			agent_status(a, LOG_WARNING, "smb: layer unavailable: the kernel attached no probe%s%s",
			       why ? ": " : "", why ? why : "");
	}
	a->smb_attached = true;
	smb_report_missing(a);
	r = 0;
out:
	free(added);
	return r;
}

/* Detaches every cifs probe; the ids stay for a later attach. Returns how many. */
unsigned int smb_detach(struct agent *a, const char *why)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct func *f = &a->funcs.v[i];

		if (f->layer != LAYER_SMB)
			continue;
		f->cfg.flags &= ~FF_ENABLED;
		(void)probes_update(a->probes, f);
		if (f->backend != BACKEND_NONE) {
			probes_detach(a->probes, f->id);
			n++;
		}
		f->backend = BACKEND_NONE;
		free(f->missing);
		f->missing = strdup(why);
	}
	/* the next cifs is a new module with new BTF */
	probes_forget_module(a->probes, "cifs");
	a->smb_attached = false;
	a->smb_module_ino = 0;
	return n;
}

/* Attaching needs the capabilities privs_drop() kept permitted (see drop_privileges()). */
static void smb_attach_privileged(struct agent *a)
{
	if (a->dropped && privs_raise() < 0) {
		agent_status(a, LOG_WARNING, "smb: cifs is loaded but the attach capabilities are "
			     "gone: %m; restart smblat to trace it");
		a->smb_attached = true;     /* nothing more to try */
		return;
	}
	if (smb_attach(a) == 0)
		sd_notifyf(false, "STATUS=cifs loaded: smb layer attached");
	if (a->dropped)
		privs_lower();
}

void smb_watch(struct agent *a)
{
	uint64_t ino;
	unsigned int n;

	if (!a->cfg->layer[LAYER_SMB].enabled)
		return;
	ino = smb_module_ino();
	if (a->smb_attached && a->smb_module_ino && ino != a->smb_module_ino) {
		n = smb_detach(a, SMB_UNLOADED);
		agent_status(a, LOG_NOTICE, "smb: cifs module %s: %u probes detached; "
			     "attaching again when it is loaded", ino ? "reloaded" : "unloaded", n);
	}
	if (!a->smb_attached && ino)
		smb_attach_privileged(a);
}
