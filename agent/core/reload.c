// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * SIGHUP: applies a changed configuration file to the running agent.
 *
 * Function ids, their BPF counters and histograms stay: a function that
 * stays keeps its counts, a removed one is detached and keeps its id (ids
 * are never reused), a re-added or retargeted one gets a new id under the
 * same FUNCTION name, which summaries merge. What lives in the BPF object's
 * read-only data or sizes (pid, comm, cgroup filters, ring buffer, backend)
 * or was decided once at start (user, journal, priorities, summary
 * interval) needs a restart: a reload says so and keeps the running value.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <syslog.h>
#include <unistd.h>

#include "core/agent-int.h"
#include "base/privs.h"

/*
 * config_load() explains a broken file on stderr as "FILE:LINE: message".
 * A reload wants that line in its own status entry as well, so stderr is
 * caught in a memfd for the duration of the load.
 */
static int config_load_caught(const char *path, bool missing_ok, struct config *c,
			      char **errors)
{
	int saved, mfd, r;
	off_t size;

	*errors = NULL;
	fflush(stderr);
	mfd = memfd_create("smblat-reload", MFD_CLOEXEC);
	saved = dup(STDERR_FILENO);
	if (mfd < 0 || saved < 0 || dup2(mfd, STDERR_FILENO) < 0) {
		if (mfd >= 0)
			close(mfd);
		if (saved >= 0)
			close(saved);
		return config_load(c, path, missing_ok);
	}
	r = config_load(c, path, missing_ok);
	fflush(stderr);
	dup2(saved, STDERR_FILENO);
	close(saved);
	size = lseek(mfd, 0, SEEK_END);
	if (size > 0 && (*errors = calloc(1, size + 1)))
		if (pread(mfd, *errors, size, 0) < 0) {
			free(*errors);
			*errors = NULL;
		}
	close(mfd);
	return r;
}

/* What the agent started with, to tell the file's changes from command-line options. */
struct reload {
	struct config file;         /* the file as it was at start */
	char **cli_probes;          /* labels of functions given on the command line */
	unsigned int n_cli;
};

static bool cli_probe(const struct agent *a, const char *label)
{
	for (unsigned int i = 0; a->reload && i < a->reload->n_cli; i++)
		if (strcmp(a->reload->cli_probes[i], label) == 0)
			return true;
	return false;
}

static const struct probe_config *probe_find(const struct config *c, const char *label)
{
	for (unsigned int i = 0; c && i < c->n_probes; i++)
		if (strcmp(c->probes[i].label, label) == 0)
			return &c->probes[i];
	return NULL;
}

int reload_init(struct agent *a)
{
	struct reload *rl = calloc(1, sizeof(*rl));
	char *errors = NULL;
	int r;

	if (!rl)
		return -ENOMEM;
	config_init(&rl->file);
	r = config_load_caught(a->opt->config_path, !a->opt->config_explicit, &rl->file, &errors);
	free(errors);
	if (r < 0) {
		/* Loaded fine moments ago; without it, reloads compare with the running values. */
		config_free(&rl->file);
		free(rl);
		return 0;
	}
	rl->cli_probes = calloc(a->cfg->n_probes + 1, sizeof(char *));
	for (unsigned int i = 0; rl->cli_probes && i < a->cfg->n_probes; i++)
		if (!probe_find(&rl->file, a->cfg->probes[i].label))
			rl->cli_probes[rl->n_cli++] = strdup(a->cfg->probes[i].label);
	a->reload = rl;
	return 0;
}

void reload_free(struct agent *a)
{
	struct reload *rl = a->reload;

	if (!rl)
		return;
	for (unsigned int i = 0; i < rl->n_cli; i++)
		free(rl->cli_probes[i]);
	free(rl->cli_probes);
	config_free(&rl->file);
	free(rl);
	a->reload = NULL;
}

static bool str_differs(const char *x, const char *y)
{
	return strcmp(x ? x : "", y ? y : "") != 0;
}

/* Keys that need a restart: say which changed in the file since start. */
static void restart_keys_report(struct agent *a, const struct config *next)
{
	const struct config *was = a->reload ? &a->reload->file : a->cfg;
	char list[256] = "";
	size_t n = 0;

#define CHANGED(key, cond) \
	do { \
		if ((cond) && n < sizeof(list) - 32) \
			n += snprintf(list + n, sizeof(list) - n, "%s%s", n ? ", " : "", key); \
	} while (0)
	CHANGED("pid", next->pid != was->pid);
	CHANGED("comm", str_differs(next->comm, was->comm));
	CHANGED("cgroup", str_differs(next->cgroup, was->cgroup));
	CHANGED("ringbuf_size", next->ringbuf_bytes != was->ringbuf_bytes);
	CHANGED("backend", next->backend != was->backend);
	CHANGED("user", str_differs(next->user, was->user));
	CHANGED("[journal] enabled", next->journal != was->journal);
	CHANGED("priority_slow", next->priority_slow != was->priority_slow);
	CHANGED("priority_summary", next->priority_summary != was->priority_summary);
	CHANGED("[histogram] interval", next->hist_interval_ns != was->hist_interval_ns);
#undef CHANGED
	if (n)
		agent_status(a, LOG_WARNING, "reload: %s changed: takes effect at the next start, "
			     "running values kept", list);
}

/* After the swap, the keys of restart_keys_report() go back to their running values. */
static void restart_keys_keep(struct config *now, struct config *old)
{
	char *s;

#define SWAP_STR(field) (s = now->field, now->field = old->field, old->field = s)
	now->pid = old->pid;
	SWAP_STR(comm);
	SWAP_STR(cgroup);
	now->ringbuf_bytes = old->ringbuf_bytes;
	now->backend = old->backend;
	SWAP_STR(user);
	now->journal = old->journal;
	now->priority_slow = old->priority_slow;
	now->priority_summary = old->priority_summary;
	now->hist_interval_ns = old->hist_interval_ns;
#undef SWAP_STR
}

/* Attaching after the privilege drop needs the kept capabilities, for a moment. */
static void attach_begin(struct agent *a)
{
	if (a->dropped && privs_raise() < 0)
		agent_status(a, LOG_WARNING, "reload: cannot raise attach capabilities: %m");
}

static void attach_end(struct agent *a)
{
	if (a->dropped)
		privs_lower();
}

static bool func_active(const struct func *f)
{
	return f->backend != BACKEND_NONE && !f->missing;
}

/*
 * A kprobe.multi batch cannot give up one of its functions: such a function
 * stays attached but disabled in its func_cfg (the entry probe then ignores
 * it), and is enabled again in place rather than attached twice.
 */
static void func_detach(struct agent *a, struct func *f, const char *why)
{
	f->cfg.flags &= ~FF_ENABLED;
	probes_update(a->probes, f);
	if (f->backend != BACKEND_KPROBE_MULTI) {
		probes_detach(a->probes, f->id);
		f->backend = BACKEND_NONE;
	}
	free(f->missing);
	f->missing = strdup(why);
}

static uint32_t stack_flags(const struct config *c)
{
	return (c->kernel_stack ? FF_KSTACK : 0) | (c->user_stack ? FF_USTACK : 0);
}

/* Layers other than func: threshold and stacks, or detached when not wanted any more. */
static void layer_funcs_apply(struct agent *a, const struct config *old, unsigned int *detached)
{
	/*
	 * The whole smb layer goes with its kprobe.multi links too, so that
	 * nothing of ours pins cifs.ko any more (rmmod works after this).
	 */
	if (old->layer[LAYER_SMB].enabled && !a->cfg->layer[LAYER_SMB].enabled) {
		unsigned int n = smb_detach(a, SMB_DISABLED);

		agent_status(a, LOG_NOTICE, "smb: layer disabled by reload: %u probes detached", n);
		*detached += n;
	}
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct func *f = &a->funcs.v[i];
		bool wanted;

		if (f->layer == LAYER_FUNC || !func_active(f))
			continue;
		wanted = a->cfg->layer[f->layer].enabled &&
			 (f->layer != LAYER_SMB || smb_func_wanted(a->cfg, f));
		if (!wanted) {
			func_detach(a, f, "disabled by reload");
			(*detached)++;
			continue;
		}
		f->cfg.threshold_ns = config_layer_threshold_ns(a->cfg, f->layer);
		f->cfg.flags = (f->cfg.flags & ~(FF_KSTACK | FF_USTACK)) | stack_flags(a->cfg);
		probes_update(a->probes, f);
	}
}

static bool lists_differ(char **x, char **y)
{
	for (; x && *x && y && *y; x++, y++)
		if (strcmp(*x, *y) != 0)
			return true;
	return (x && *x) || (y && *y);
}

static bool smb_selection_changed(const struct config *old, const struct config *now)
{
	const struct layer_config *o = &old->layer[LAYER_SMB], *n = &now->layer[LAYER_SMB];

	return o->enabled != n->enabled || lists_differ(o->include, n->include) ||
	       lists_differ(o->exclude, n->exclude) || memcmp(old->group, now->group, sizeof(old->group));
}

static uint32_t smb_active(const struct agent *a)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < a->funcs.n; i++)
		n += a->funcs.v[i].layer == LAYER_SMB && func_active(&a->funcs.v[i]);
	return n;
}

/* smb functions detached by an earlier reload and wanted again, and ops not resolved yet. */
static void smb_apply(struct agent *a, const struct config *old, unsigned int *attached)
{
	struct func *again[SMBLAT_MAX_FUNCS];
	uint32_t n = 0;
	int r;

	if (!a->cfg->layer[LAYER_SMB].enabled)
		return;
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct func *f = &a->funcs.v[i];

		if (f->layer == LAYER_SMB && f->missing &&
		    strcmp(f->missing, "disabled by reload") == 0 && smb_func_wanted(a->cfg, f)) {
			f->cfg.threshold_ns = config_layer_threshold_ns(a->cfg, LAYER_SMB);
			f->cfg.flags = (f->cfg.flags & ~(FF_KSTACK | FF_USTACK)) | FF_ENABLED |
				       stack_flags(a->cfg);
			probes_update(a->probes, f);
			if (f->backend == BACKEND_KPROBE_MULTI) {
				free(f->missing);
				f->missing = NULL;
				(*attached)++;
			} else {
				again[n++] = f;
			}
		}
	}
	attach_begin(a);
	if (n) {
		r = probes_attach_kernel(a->probes, again, n);
		*attached += r > 0 ? r : 0;
	}
	/* Newly included ops, or the layer enabled now: smb_attach() adds what is not in the table. */
	if (smb_selection_changed(old, a->cfg)) {
		uint32_t before = smb_active(a);

		r = smb_attach(a);
		*attached += smb_active(a) - before;
		/* The watch for a late cifs.ko runs only when the layer was enabled at start. */
		if (r == -ENOENT)
			agent_status(a, LOG_NOTICE, "reload: smb: cifs module not loaded%s",
				     old->layer[LAYER_SMB].enabled ? "; attaching when it is" :
				     ": load it and reload again, or restart");
	}
	attach_end(a);
}

/* The func-layer id currently serving LABEL, if any. */
static struct func *probe_func(struct agent *a, const char *label)
{
	for (uint32_t i = a->funcs.n; i > 0; i--) {
		struct func *f = &a->funcs.v[i - 1];

		if (f->layer == LAYER_FUNC && strcmp(f->name, label) == 0)
			return func_active(f) ? f : NULL;
	}
	return NULL;
}

static bool probe_same_target(const struct probe_config *was, const struct probe_config *pc)
{
	return was && pc && strcmp(was->target, pc->target) == 0 && was->args == pc->args;
}

static void probe_cfg_apply(struct agent *a, struct func *f, const struct probe_config *pc)
{
	f->cfg.threshold_ns = pc->threshold_set ? pc->threshold_ns :
			      config_layer_threshold_ns(a->cfg, LAYER_FUNC);
	f->cfg.flags = FF_ENABLED | (pc->kernel_stack ? FF_KSTACK : 0) |
		       (pc->user_stack ? FF_USTACK : 0) | (pc->errors ? FF_ERRORS : 0);
	probes_update(a->probes, f);
}

/*
 * [probe] sections: changed in place when the target is the same, else
 * detached and attached anew. Functions given on the command line are not
 * in the file and stay as they are.
 */
static void probes_apply(struct agent *a, const struct config *old, unsigned int *added,
			 unsigned int *removed, unsigned int *changed)
{
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct func *f = &a->funcs.v[i];
		const struct probe_config *pc, *was;

		if (f->layer != LAYER_FUNC || !func_active(f))
			continue;
		if (cli_probe(a, f->name))
			continue;
		was = probe_find(old, f->name);
		pc = probe_find(a->cfg, f->name);
		if (!pc || !probe_same_target(was, pc)) {
			func_detach(a, f, "removed by reload");
			*removed += !pc;
		}
	}
	attach_begin(a);
	for (unsigned int i = 0; i < a->cfg->n_probes; i++) {
		const struct probe_config *pc = &a->cfg->probes[i];
		struct func *f = probe_func(a, pc->label);

		if (f) {
			probe_cfg_apply(a, f, pc);
			(*changed)++;
		} else if (a->funcs.n >= probes_func_capacity(a->probes)) {
			/* Ids are never reused; the histogram map was sized at start. */
			agent_status(a, LOG_WARNING, "reload: [probe %s]: no function id left "
				     "for it (ids are not reused): takes effect at the next start",
				     pc->label);
		} else if (func_probe_add(a, pc) == 0) {
			(*added)++;
		}
	}
	attach_end(a);
}

int reload_config(struct agent *a)
{
	struct config next, old;
	unsigned int added = 0, removed = 0, kept = 0, detached = 0, attached = 0;
	char *errors = NULL;
	int r;

	config_init(&next);
	r = config_load_caught(a->opt->config_path, !a->opt->config_explicit, &next, &errors);
	if (r < 0) {
		char *nl = errors ? strchr(errors, '\n') : NULL;

		if (nl)
			*nl = '\0';
		agent_status(a, LOG_ERR, "reload: %s; keeping the running configuration",
			     errors && *errors ? errors : strerror(-r));
		free(errors);
		config_free(&next);
		return r;
	}
	free(errors);
	restart_keys_report(a, &next);
	old = *a->cfg;
	*a->cfg = next;
	restart_keys_keep(a->cfg, &old);

	layer_funcs_apply(a, &old, &detached);
	smb_apply(a, &old, &attached);
	probes_apply(a, &old, &added, &removed, &kept);
	for (int l = LAYER_SMB2; l < _LAYER_MAX; l++)
		if (l != LAYER_FUNC && a->cfg->layer[l].enabled && !old.layer[l].enabled)
			agent_status(a, LOG_WARNING, "reload: [%s] enabled: takes effect at the next start",
				     layer_name(l));
	config_free(&old);
	agent_status(a, LOG_INFO, "reload: applied: %u probes added, %u removed, %u kept; "
		     "%u layer functions detached, %u attached; threshold %.3f ms",
		     added, removed, kept, detached, attached, a->cfg->threshold_ns / 1e6);
	return 0;
}
