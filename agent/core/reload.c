// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SIGHUP: the configuration file loaded and validated again, then applied
 * by each layer. A broken file changes nothing.
 *
 * Function ids, their BPF counters and histograms stay: a function that
 * stays keeps its counts, a removed one is detached and keeps its id (ids
 * are never reused), a re-added or retargeted one gets a new id under the
 * same FUNCTION, which summaries merge. What lives in the BPF object's
 * read-only data or sizes (pid, comm, cgroup filters, ring buffer, backend,
 * thread state)
 * or was decided once at start (user, journal, priorities, summary
 * interval) needs a restart: a reload says so and keeps the running value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/macro.h"
#include "base/log.h"
#include "base/ratelimit.h"
#include "core/agent-int.h"
#include "base/clock.h"

/* What the agent started with, to tell the file's changes from the command line's. */
struct reload {
	struct config file; /* the file as it was at start */
};

int reload_init(struct agent *a)
{
	struct reload *rl = calloc(1, sizeof(*rl));
	char *error = NULL;

	if (!rl)
		return -ENOMEM;
	config_init(&rl->file);
	if (config_load(&rl->file, a->opt->config_path, !a->opt->config_explicit, &error) < 0) {
		/* Loaded fine moments ago; without it, reloads compare with the running values. */
		free(error);
		config_free(&rl->file);
		free(rl);
		return 0;
	}
	a->reload = rl;
	return 0;
}

void reload_free(struct agent *a)
{
	if (!a->reload)
		return;
	config_free(&a->reload->file);
	free(a->reload);
	a->reload = NULL;
}

static void list_add(char *list, size_t size, const char *fmt, const char *name)
{
	size_t n = strlen(list);

	if (n + 1 < size)
		snprintf(list + n, size - n, fmt, n ? ", " : "", name);
}

/*
 * Counting stacks takes the stack maps, which are sized at start only
 * where something counted stacks then: without them a reload that asks
 * for stacks = yes would count nothing. It stays off, and is named with
 * the keys that need a restart (when the file changed it since start).
 */
static unsigned int stacks_keep(const struct agent *a, struct config *next, const struct config *was,
				char *list, size_t size)
{
	unsigned int n = 0;

	if (a->stacks)
		return 0;
	for (int l = 0; l < _LAYER_MAX; l++) {
		if (!next->layer[l].stacks)
			continue;
		next->layer[l].stacks = false;
		if (!was->layer[l].stacks && ++n)
			list_add(list, size, "%s[%s] stacks", layer_name(l));
	}
	for (unsigned int i = 0; i < next->n_probes; i++) {
		const struct probe_config *p = &next->probes[i];
		bool before = false;

		if (!p->stacks)
			continue;
		for (unsigned int k = 0; k < was->n_probes; k++)
			before |= strcmp(was->probes[k].label, p->label) == 0 && was->probes[k].stacks;
		next->probes[i].stacks = false;
		if (!before && ++n)
			list_add(list, size, "%s[probe %s] stacks", p->label);
	}
	return n;
}

/*
 * The keys a reload cannot apply keep their running values in next; those
 * the file changed since start are said (the command line's are no change).
 */
static void restart_keys(struct agent *a, struct config *next)
{
	const struct config *was = a->reload ? &a->reload->file : a->cfg;
	char list[512];
	unsigned int n = config_restart_keep(next, a->cfg, was, list, sizeof(list));

	n += stacks_keep(a, next, was, list, sizeof(list));
	if (n)
		log_status(STATUS_RELOAD_REFUSED, REASON_RESTART_NEEDED, LOG_WARNING,
			   "reload: %s changed: takes effect at the next start, running values kept", list);
}

/* What a reload did, in one status: its counts as fields, and in the message. */
static void reload_report(struct agent *a, const struct reload_counts *n)
{
	struct status s = { .kind = STATUS_RELOAD_APPLIED, .priority = n->failed ? LOG_WARNING : LOG_INFO };

	status_count_set(&s, COUNT_PROBES_ADDED, n->added);
	status_count_set(&s, COUNT_PROBES_REMOVED, n->removed);
	status_count_set(&s, COUNT_PROBES_KEPT, n->kept);
	status_count_set(&s, COUNT_PROBES_FAILED, n->failed);
	status_count_set(&s, COUNT_DETACHED, n->detached);
	status_count_set(&s, COUNT_ATTACHED, n->attached);
	status_count_set(&s, COUNT_THRESHOLD_US, a->cfg->threshold_ns / 1000);
	log_emit(&s,
		 "reload: applied: %u %s added, %u removed, %u kept, %u not attached; "
		 "%u layer %s detached, %u attached; threshold %.3f ms",
		 n->added, PLURAL(n->added, "probe", "probes"), n->removed, n->kept, n->failed, n->detached,
		 PLURAL(n->detached, "function", "functions"), n->attached, a->cfg->threshold_ns / 1e6);
}

struct apply {
	const struct config *old;
	struct reload_counts n;
};

/* One layer: disabled, enabled, or changed in place. */
static void layer_reload(struct agent *a, enum layer_id l, void *userdata)
{
	struct apply *ap = userdata;
	bool was = ap->old->layer[l].enabled, now = a->cfg->layer[l].enabled;
	const char *why = NULL;
	unsigned int n;

	/* off (auto found nothing, or nothing asked of it): a reload attaches it as if new */
	if (was && layer_table[l]->state(a->layer[l], &why) == LAYER_OFF)
		was = false;

	if (was && !now) {
		n = layer_table[l]->detach(a->layer[l], FUNC_DISABLED);
		ap->n.detached += n;
		struct status s = { .kind = STATUS_LAYER_OFF,
				    .reason = REASON_DISABLED,
				    .priority = LOG_NOTICE,
				    .layer = layer_name(l) };

		status_count_set(&s, COUNT_DETACHED, n);
		log_emit(&s, "layer disabled by reload: %u %s detached", n, PLURAL(n, "probe", "probes"));
	} else if (!was && now) {
		uint32_t before = func_table_attached(&a->funcs, l);

		layer_table[l]->attach(a->layer[l]);
		ap->n.attached += func_table_attached(&a->funcs, l) - before;
	} else if (now) {
		layer_table[l]->apply(a->layer[l], ap->old, &ap->n);
	}
}

int reload_config(struct agent *a)
{
	struct apply ap = {};
	struct config next, old;
	char *error = NULL;
	int r;

	config_init(&next);
	r = config_load(&next, a->opt->config_path, !a->opt->config_explicit, &error);
	if (r == 0)
		r = config_carry_cli(&next, a->cfg);
	if (r < 0) {
		log_status(STATUS_RELOAD_REFUSED, REASON_CONFIG_INVALID, LOG_ERR,
			   "reload: %s; keeping the running configuration", error ? error : strerror(-r));
		free(error);
		config_free(&next);
		return r;
	}
	/* Before anything changes: layers that cannot be driven keep the configuration they run. */
	r = agent_privileged_enter(a);
	if (r < 0) {
		log_status(
			STATUS_RELOAD_REFUSED, REASON_PRIVILEGES, LOG_ERR,
			"reload: cannot raise the attach capabilities: %s; keeping the running configuration",
			strerror(-r));
		config_free(&next);
		return r;
	}
	restart_keys(a, &next);
	old = *a->cfg;
	*a->cfg = next;
	ratelimit_set(a->rate, a->cfg->rate_limit, config_rate_burst(a->cfg), now_ns());
	ap.old = &old;
	agent_layers_each(a, layer_reload, &ap);
	agent_privileged_leave(a);
	config_free(&old);
	reload_report(a, &ap.n);
	return 0;
}
