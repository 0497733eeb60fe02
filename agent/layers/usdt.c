// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * USDT targets of [probe NAME]: usdt:PATH:PROVIDER:START,END. A single USDT
 * probe marks a point in time, not an operation, so it has no latency: a
 * target names two probes, the one that starts the operation and the one
 * that ends it on the same thread (a request's start and end probes, a
 * program's own DTRACE_PROBE pairs).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "core/agent-int.h"

struct usdt_target {
	char *path, *provider, *start, *end;
};

static void usdt_target_free(struct usdt_target *t)
{
	free(t->path);
	free(t->provider);
	free(t->start);
	free(t->end);
}

/* The config loader checked the shape (values_target_problem()); -EINVAL if not. */
static int usdt_target_parse(const char *target, struct usdt_target *t)
{
	const char *s = target + strlen("usdt:"), *probes = strrchr(s, ':'), *prov, *comma;

	if (!probes || probes == s)
		return -EINVAL;
	for (prov = probes - 1; prov > s && *prov != ':'; prov--)
		;
	comma = strchr(probes, ',');
	if (*prov != ':' || !comma)
		return -EINVAL;
	*t = (struct usdt_target) {
		.path = strndup(s, prov - s),
		.provider = strndup(prov + 1, probes - prov - 1),
		.start = strndup(probes + 1, comma - probes - 1),
		.end = strdup(comma + 1),
	};
	if (!t->path || !t->provider || !t->start || !t->end) {
		usdt_target_free(t);
		return -ENOMEM;
	}
	return 0;
}

int usdt_probe_add(struct agent *a, const struct probe_config *pc)
{
	struct usdt_target t = {};
	struct func *f;
	int id, r;

	r = usdt_target_parse(pc->target, &t);
	if (r < 0) {
		agent_status(a, LOG_WARNING, "probe %s: \"%s\" is not usdt:PATH:PROVIDER:START,END",
			     pc->label, pc->target);
		return r;
	}
	id = func_table_add(&a->funcs, LAYER_FUNC, GROUP_NONE, pc->label, pc->target, NULL);
	if (id < 0) {
		usdt_target_free(&t);
		return id;
	}
	f = &a->funcs.v[id];
	f->cfg.threshold_ns = config_probe_threshold_ns(a->cfg, pc);
	/* The kernel stack of a USDT probe is the uprobe trap: only the user stack tells. */
	f->cfg.flags = FF_ENABLED | (pc->user_stack ? FF_USTACK : 0);
	f->cfg.nargs = pc->args;    /* the START probe's arguments */
	f->cfg.ret_kind = RK_VOID;
	probes_update(a->probes, f);
	r = probes_attach_usdt(a->probes, f, t.path, t.provider, t.start, t.end, -1);
	if (r < 0)
		agent_status(a, LOG_WARNING, "probe %s: cannot attach USDT %s:%s and %s in %s: %s",
			     pc->label, t.provider, t.start, t.end, t.path, strerror(-r));
	usdt_target_free(&t);
	return 0;
}
