// SPDX-License-Identifier: LGPL-2.1-or-later
/* smblat: slow SMB, VFS, function and block operations as journal entries. */
#include <errno.h>
#include <stdio.h>

#include "base/exitcode.h"
#include "cli/cli.h"
#include "cli/flamegraph.h"
#include "cli/needs.h"
#include "cli/outfile.h"
#include "config/config.h"
#include "core/agent.h"
#include "smblat-config.h"

/* Output files opened before anything is attached, as the user the agent becomes; then the run. */
static int trace(struct config *c, struct run_opts *o)
{
	struct outfile svg = {};
	struct needs n;
	int r;

	needs_of(c, &n);
	if (needs_check_privileges(&n) < 0)
		return EXIT_STATUS_FAILURE;
	if (o->svg_path && outfile_open(&svg, "--svg", o->svg_path, c->user) < 0)
		return EXIT_STATUS_FAILURE;
	o->svg = svg.f;
	r = agent_run(c, o);
	if (r == EXIT_STATUS_OK && outfile_close(&svg) < 0)
		r = EXIT_STATUS_FAILURE;
	else if (r != EXIT_STATUS_OK)
		outfile_abandon(&svg);
	return r;
}

/* The configuration file, the command line over it, and what was asked of them. */
static int run(const struct cli *cli, struct run_opts *o)
{
	struct config c;
	int r;

	if (agent_config_register() < 0) {
		fprintf(stderr, "smblat: a layer's section of smblat.conf does not fit struct config\n");
		return EXIT_STATUS_FAILURE;
	}
	config_init(&c);
	o->config_explicit = cli->arg['c'] != NULL;
	o->config_path = o->config_explicit ? cli->arg['c'] : SMBLAT_CONFIG_PATH;
	if (config_load(&c, o->config_path, !o->config_explicit, NULL) < 0) {
		config_free(&c);
		return EXIT_STATUS_CONFIG; /* said where */
	}
	r = cli_apply(cli, &c, o);
	if (r < 0)
		r = r == -EINVAL ? EXIT_STATUS_USAGE : EXIT_STATUS_FAILURE;
	else if (cli->n[OPT_CHECK])
		config_dump(&c, stdout);
	else
		r = trace(&c, o);
	config_free(&c);
	return r;
}

int main(int argc, char **argv)
{
	struct run_opts o = { .term.format = TERM_TEXT };
	struct cli cli;
	int r = cli_parse(argc, argv, &cli, &o);

	if (r == 0 && cli.n[OPT_FLAMEGRAPH]) {
		struct flamegraph_opts fo = {
			.path = cli.arg[OPT_FLAMEGRAPH],
			.functions = cli.rest,
			.n_functions = (unsigned int)cli.n_rest,
			.since_us = cli.since_us,
			.until_us = cli.until_us,
			.by_time = o.stacks_by_time,
		};

		r = flamegraph_run(&fo) < 0 ? EXIT_STATUS_FAILURE : EXIT_STATUS_OK;
	} else if (r == 0) {
		r = run(&cli, &o);
	} else {
		/* 1: --help or --version, done */
		r = r > 0 ? EXIT_STATUS_OK : r == -EINVAL ? EXIT_STATUS_USAGE : EXIT_STATUS_FAILURE;
	}
	cli_free(&cli);
	return r;
}
