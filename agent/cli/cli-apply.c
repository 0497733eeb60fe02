// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The command line over the loaded configuration: options that override a
 * key, the -f probes beside the file's [probe] sections, the views that
 * bring their layers, and the checks that need the file too.
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/syscalls.h"
#include "cli/cli.h"
#include "cli/needs.h"
#include "config/target.h"
#include "layers/cifs/settings.h"
#include "layers/smbd/settings.h"
#include "layers/syscalls/settings.h"
#include "layers/profile/settings.h"

static int apply_layers(struct config *c, const char *list)
{
	char *dup = strdup(list), *save = NULL, known[128] = "";
	int r = 0;

	if (!dup)
		return -ENOMEM;
	for (int l = 0; l < _LAYER_MAX; l++)
		c->layer[l].enabled = c->layer[l].automatic = false;
	for (char *t = strtok_r(dup, ", ", &save); t && r == 0; t = strtok_r(NULL, ", ", &save)) {
		int l = layer_from_name(t);

		if (l >= 0) {
			c->layer[l].enabled = true;
			continue;
		}
		for (int k = 0, n = 0; k < _LAYER_MAX; k++)
			n += snprintf(known + n, sizeof(known) - n, "%s%s", k ? ", " : "", layer_names[k]);
		r = cli_usage_error("unknown layer \"%s\" (%s)", t, known);
	}
	free(dup);
	return r;
}

/* The syscall a target names, or NULL; *tg is the parsed target (target_done()). */
static const char *syscall_of(const char *target, struct target *tg)
{
	const char *problem;

	*tg = (struct target) {};
	if (target_parse(target, tg, &problem) < 0)
		return NULL;
	return tg->kind == TARGET_SYSCALL ? tg->symbol : NULL;
}

/* A -f the file's [probe] sections trace already would count its calls twice. */
static int check_against_file(const struct config *c, const char *f)
{
	struct target a, b;
	const char *sa = syscall_of(f, &a), *sb;
	int r = 0;

	for (unsigned int i = 0; r == 0 && i < c->n_probes; i++) {
		const struct probe_config *p = &c->probes[i];

		sb = syscall_of(p->target, &b);
		if (strcmp(p->label, f) == 0)
			r = cli_usage_error("-f %s: %s:%u has a [probe %s] already", f, p->file ?: "?",
					    p->line, p->label);
		else if (sa && sb && strcmp(sa, sb) == 0)
			r = cli_usage_error("-f %s: [probe %s] of %s:%u traces that syscall already", f,
					    p->label, p->file ?: "?", p->line);
		target_done(&b);
	}
	target_done(&a);
	return r;
}

/* A -f target as the func layer will take it: its grammar, and a syscall this machine has. */
static int check_target(const char *t)
{
	const char *problem, *hint;
	struct target tg;
	int r = target_parse(t, &tg, &problem);

	if (r == -ENOMEM)
		return r;
	if (r < 0)
		return cli_usage_error("-f %s: the target %s", t, problem);
	if (tg.kind == TARGET_SYSCALL && syscalls_nr(tg.symbol) < 0) {
		hint = syscalls_suggest(tg.symbol);
		r = cli_usage_error("-f %s: no syscall \"%s\" on this architecture%s%s%s", t, tg.symbol,
				    hint ? ", did you mean \"syscall:" : "", hint ? hint : "",
				    hint ? "\"?" : "");
	}
	target_done(&tg);
	return r;
}

static int add_function_probes(struct config *c, const struct cli *cli)
{
	struct probe_config *v;
	int r;

	if (!cli->n_funcs)
		return 0;
	for (unsigned int i = 0; i < cli->n_funcs; i++)
		if ((r = check_target(cli->funcs[i])) < 0 || (r = check_against_file(c, cli->funcs[i])) < 0)
			return r;
	v = realloc(c->probes, (c->n_probes + cli->n_funcs) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	c->probes = v;
	for (unsigned int i = 0; i < cli->n_funcs; i++) {
		struct probe_config *p = &v[c->n_probes++];

		*p = (struct probe_config) {
			.label = strdup(cli->funcs[i]),
			.target = strdup(cli->funcs[i]),
			.kernel_stack = c->kernel_stack,
			.user_stack = c->user_stack,
			.args = cli->args,
			.errors = cli->errors,
			.stacks = cli->n[OPT_STACKS],
			.cli = true,
		};
		if (!p->label || !p->target)
			return -ENOMEM;
	}
	c->layer[LAYER_FUNC].enabled = true;
	/* funcslower's use: the targets alone, but for layers the file enables by name */
	for (int l = 0; l < _LAYER_MAX && !cli->arg[OPT_LAYERS]; l++)
		if (c->layer[l].automatic)
			c->layer[l].enabled = c->layer[l].automatic = false;
	return 0;
}

/* --profile[=HZ]: the profile layer on, alone unless layers or functions are named too. */
static int apply_profile(struct config *c, const struct cli *cli)
{
	const char *hz = cli->arg[OPT_PROFILE];
	char *end = NULL;
	unsigned long v;

	c->layer[LAYER_PROFILE].enabled = true;
	c->layer[LAYER_PROFILE].automatic = false;
	for (enum layer_id l = 0; !cli->arg[OPT_LAYERS] && !cli->n_funcs && l < _LAYER_MAX; l++)
		if (c->layer[l].automatic)
			c->layer[l].enabled = false;
	if (!hz)
		return 0;
	errno = 0;
	v = strtoul(hz, &end, 10);
	if (errno || end == hz || *end || *hz == '-' || !v || v > PROFILE_HZ_MAX)
		return cli_usage_error("invalid --profile=%s: a rate of 1 to %u samples a second", hz,
				       PROFILE_HZ_MAX);
	profile_settings(c)->frequency = (uint32_t)v;
	return 0;
}

/* --syscalls, --smbd-pid, --stacks, --profile: layers and views on top of the file's. */
static int apply_views(struct config *c, const struct cli *cli)
{
	const char *problem, *select = cli->arg[OPT_SYSCALLS];
	int r;

	if (cli->n[OPT_SYSCALLS] || cli->smbd_pid) {
		/* asked for by name: auto (which leaves it off) does not apply */
		c->layer[LAYER_SYSCALLS].enabled = true;
		c->layer[LAYER_SYSCALLS].automatic = false;
		/* the view alone, unless layers or functions are named too */
		for (enum layer_id l = 0; !cli->arg[OPT_LAYERS] && !cli->n_funcs && l < _LAYER_MAX; l++)
			if (c->layer[l].automatic)
				c->layer[l].enabled = false;
	}
	if (select) {
		r = syscalls_select_parse(select, &syscalls_settings(c)->select, &problem);
		if (r == -ENOMEM)
			return r;
		if (r < 0)
			return cli_usage_error("invalid --syscalls=%s: the selection %s", select, problem);
	}
	if (cli->smbd_pid) {
		char why[PATH_MAX + 256];

		/* tsmbd's report of a process that is no smbd would be empty, or another's */
		if (smbd_settings_check_pid(c, (pid_t)cli->smbd_pid, why, sizeof(why)) < 0) {
			fprintf(stderr, "smblat: --smbd-pid %u: %s\n", cli->smbd_pid, why);
			return -EINVAL;
		}
		/* everything of that one process: its requests, its time, its syscalls */
		c->pid = cli->smbd_pid;
		c->layer[LAYER_SMBD].enabled = true;
		c->layer[LAYER_SMBD].automatic = false;
		smbd_settings(c)->split = true;
		if (!select)
			syscalls_select_free(&syscalls_settings(c)->select);
	}
	if (cli->n[OPT_PROFILE] && (r = apply_profile(c, cli)) < 0)
		return r;
	if (cli->n[OPT_STACKS]) {
		c->layer[LAYER_SMBD].stacks = c->layer[LAYER_SYSCALLS].stacks = true;
		for (unsigned int i = 0; i < c->n_probes; i++)
			c->probes[i].stacks = true;
	}
	return 0;
}

/* Options that override a key of the file. */
static int apply_keys(struct config *c, const struct cli *cli)
{
	if (cli->pid)
		c->pid = cli->pid;
	if (cli->threshold_set) {
		c->threshold_ns = cli->threshold_ns;
		for (int l = 0; l < _LAYER_MAX; l++)
			c->layer[l].threshold_set = false;
		for (unsigned int i = 0; i < c->n_probes; i++)
			c->probes[i].threshold_set = false;
	}
	for (int g = GROUP_INODE; g <= GROUP_SUPER; g++)
		if (cli->n[OPT_INODE] || cli->n[OPT_FILE] || cli->n[OPT_ADSPACE] || cli->n[OPT_SUPER])
			smb_settings(c)->group[g] = cli->n[OPT_INODE + (g - GROUP_INODE)];
	if (cli->arg[OPT_BACKEND])
		c->backend = config_backend_from_name(cli->arg[OPT_BACKEND]);
	if (cli->n['K'])
		c->kernel_stack = true;
	if (cli->n['U'])
		c->user_stack = true;
	if (cli->n[OPT_OFFCPU])
		c->offcpu = true;
	return cli->arg[OPT_LAYERS] ? apply_layers(c, cli->arg[OPT_LAYERS]) : 0;
}

/* -K where no traced call has a kernel stack printed nothing; --svg draws counted stacks only. */
static int check_stacks(const struct cli *cli, const struct needs *n)
{
	if (cli->n['K'] && !n->kernel_stacks && n->user_target)
		return cli_usage_error(
			"-K: %s is a function in user space, whose calls have no kernel stack; "
			"-U records its user stack",
			n->user_target);
	if (cli->arg[OPT_SVG] && !n->counted_stacks)
		return cli_usage_error("--svg draws the stacks counted with --stacks (or stacks = yes), "
				       "and nothing counts them");
	return 0;
}

int cli_apply(const struct cli *cli, struct config *c, struct run_opts *o)
{
	struct needs n;
	int r = apply_keys(c, cli);

	if (r == 0)
		r = apply_views(c, cli);
	if (r == 0)
		r = add_function_probes(c, cli);
	if (r == 0 && o->breakdown) {
		r = breakdown_configure(c, cli->arg[OPT_LAYERS] != NULL);
		/* in the journal, the breakdown's interval is the summaries' */
		if (!o->to_stdout)
			c->hist_interval_ns = o->hist_interval_ns;
	}
	if (r < 0)
		return r;
	needs_of(c, &n);
	/* without kernel functions, kernel frames can do with addresses */
	o->kernel_symbols_optional = !n.kernel_functions;
	return check_stacks(cli, &n);
}
