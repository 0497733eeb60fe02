// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smbd layer: Samba's server, without USDT probes, through uprobes on
 * the library that defines its VFS entry points (smb_vfs_call_<op>) and
 * SMB2 request handlers (smbd_smb2_request_process_<cmd>). The probes are
 * on the file (pid -1), so every smbd process, also those forked or started
 * after the agent, is covered.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <unistd.h>

#include "core/agent-int.h"
#include "symbols/usyms.h"

#define VFS_PREFIX "smb_vfs_call_"
#define SMB2_PREFIX "smbd_smb2_request_process_"
#define ANCHOR VFS_PREFIX "openat"      /* in every Samba since 4.14 */

static const char *const smbd_paths[] = {
	"/usr/sbin/smbd", "/usr/local/samba/sbin/smbd", "/usr/local/sbin/smbd",
};

/* Where both completions of an SMB2 request go through. */
static const char *const smb2_ends[] = {
	"smbd_smb2_request_done_ex", "smbd_smb2_request_error_ex",
};

struct smbd_ctx {
	struct agent *a;
	const char *lib;
	const char *prefix;         /* FUNCTION prefix: SMBD_VFS_, SMBD_SMB2_ */
	bool smb2;
	/* what is to be attached in one batch */
	struct func *fv[SMBLAT_MAX_FUNCS];
	uint64_t offsets[SMBLAT_MAX_FUNCS];
	uint32_t n;
};

static bool name_in(char **list, const char *name)
{
	for (; list && *list; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

/* smbd on PATH, else the usual install locations; NULL when none. */
static char *smbd_find(void)
{
	const char *path = getenv("PATH");
	char buf[PATH_MAX];

	for (const char *p = path; p && *p; p += strcspn(p, ":"), p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (n == 0 || p[0] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%.*s/smbd", (int)n, p);
		if (access(buf, X_OK) == 0)
			return strdup(buf);
	}
	for (size_t i = 0; i < sizeof(smbd_paths) / sizeof(*smbd_paths); i++)
		if (access(smbd_paths[i], X_OK) == 0)
			return strdup(smbd_paths[i]);
	return NULL;
}

static int add_one(const char *symbol, uint64_t offset, void *userdata)
{
	struct smbd_ctx *c = userdata;
	const struct config *cfg = c->a->cfg;
	const struct layer_config *l = &cfg->layer[LAYER_SMBD];
	const char *op = symbol + strlen(c->smb2 ? SMB2_PREFIX : VFS_PREFIX);
	char name[SMBLAT_NAME_LEN], target[PATH_MAX + 128];
	struct func *f;
	int id, r;

	if (c->n >= SMBLAT_MAX_FUNCS)
		return -ENOSPC;
	if (!*op || snprintf(name, sizeof(name), "%s%s", c->prefix, op) >= (int)sizeof(name))
		return 0;
	for (char *s = name; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	if ((l->include && l->include[0] && !name_in(l->include, name)) ||
	    name_in(l->exclude, name))
		return 0;
	snprintf(target, sizeof(target), "%s:%s", c->lib, symbol);
	id = func_table_add(&c->a->funcs, LAYER_SMBD, GROUP_NONE, name, target, NULL);
	if (id < 0)
		return id;
	f = &c->a->funcs.v[id];
	f->cfg.threshold_ns = config_layer_threshold_ns(cfg, LAYER_SMBD);
	f->cfg.flags = FF_ENABLED | (cfg->user_stack ? FF_USTACK : 0);
	/*
	 * VFS calls return int, ssize_t, NTSTATUS, pointers or nothing, and
	 * report errors in errno: no return value is better than a wrong one.
	 * SMB2 requests end with an NTSTATUS, shown in hex.
	 */
	f->cfg.ret_kind = c->smb2 ? RK_PTR : RK_VOID;
	r = probes_update(c->a->probes, f);
	if (r < 0)
		return r;
	c->fv[c->n] = f;
	c->offsets[c->n++] = offset;
	return 0;
}

static int count_wanted(const char *symbol, uint64_t offset, void *userdata)
{
	struct smbd_ctx *c = userdata;
	const struct layer_config *l = &c->a->cfg->layer[LAYER_SMBD];
	char name[SMBLAT_NAME_LEN];

	snprintf(name, sizeof(name), "SMBD_SMB2_%s", symbol + strlen(SMB2_PREFIX));
	for (char *s = name; *s; s++)
		*s = (char)toupper((unsigned char)*s);
	return (l->include && l->include[0] && !name_in(l->include, name)) ||
	       name_in(l->exclude, name) ? 0 : -EEXIST;
}

/*
 * The request handlers only count with both completions probed; none are
 * attached when include/exclude leave no SMB2 command (each uprobe costs a
 * kernel grace period when it is detached).
 */
static int requests_attach(struct smbd_ctx *c)
{
	uint64_t offset[2];
	int r;

	if (usyms_functions(c->a->us, c->lib, SMB2_PREFIX, count_wanted, c) != -EEXIST)
		return 0;
	for (size_t i = 0; i < 2; i++) {
		r = usyms_resolve(c->a->us, c->lib, smb2_ends[i], &offset[i]);
		if (r < 0) {
			agent_status(c->a, LOG_NOTICE, "smbd: %s: no %s (%s): SMB2 requests not traced",
				     c->lib, smb2_ends[i], strerror(-r));
			return 0;
		}
	}
	c->smb2 = true;
	c->prefix = "SMBD_SMB2_";
	c->n = 0;
	r = usyms_functions(c->a->us, c->lib, SMB2_PREFIX, add_one, c);
	if (r < 0)
		return r;
	return probes_attach_smbd_requests(c->a->probes, c->fv, c->offsets, c->n, offset, 2, c->lib);
}

static void report(struct smbd_ctx *c, const char *what, int attached)
{
	if (attached < 0)
		agent_status(c->a, LOG_WARNING, "smbd: %s of %s not attached: %s", what, c->lib,
			     strerror(-attached));
	else if ((uint32_t)attached < c->n)
		agent_status(c->a, LOG_WARNING, "smbd: %u of %u %s of %s not attached (see --list-probes)",
			     c->n - attached, c->n, what, c->lib);
}

int smbd_attach(struct agent *a)
{
	struct smbd_ctx *c = calloc(1, sizeof(*c));
	char *binary = a->cfg->smbd_binary ? strdup(a->cfg->smbd_binary) : smbd_find();
	uint64_t t0 = agent_now_ns();
	char *lib = NULL;
	int vfs = 0, smb2 = 0, r;

	if (!c) {
		free(binary);
		return -ENOMEM;
	}
	*c = (struct smbd_ctx) { .a = a, .prefix = "SMBD_VFS_" };
	if (!binary) {
		agent_status(a, LOG_WARNING, "smbd: no smbd found on PATH or in /usr/sbin; "
			     "set [smbd] binary=");
		free(c);
		return -ENOENT;
	}
	r = usyms_provider(a->us, binary, ANCHOR, &lib);
	if (r < 0) {
		agent_status(a, LOG_WARNING, "smbd: neither %s nor its libraries define %s: %s",
			     binary, ANCHOR, strerror(-r));
		goto out;
	}
	c->lib = lib;
	r = usyms_functions(a->us, lib, VFS_PREFIX, add_one, c);
	if (r >= 0) {
		vfs = probes_attach_uprobes(a->probes, c->fv, c->offsets, c->n, lib);
		report(c, "VFS operations", vfs);
		smb2 = requests_attach(c);
		report(c, "SMB2 commands", smb2);
	}
	agent_status(a, LOG_INFO, "smbd: %d VFS operations and %d SMB2 commands of %s (%s) "
		     "attached in %.1f ms (%s)", vfs < 0 ? 0 : vfs, smb2 < 0 ? 0 : smb2, lib, binary,
		     (agent_now_ns() - t0) / 1e6,
		     c->n ? backend_name(c->fv[0]->backend) : "nothing wanted");
out:
	free(lib);
	free(binary);
	free(c);
	return r < 0 ? r : 0;
}
