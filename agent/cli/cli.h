/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The command line, smblat(8): getopt records every option as given, the
 * checks of each group of options run once it is all read (so that an
 * option's meaning never depends on where it stands), and what is left is
 * laid over the configuration file once that is loaded.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"
#include "core/agent.h"

/* Option codes: the short options' letters, then the long-only ones. */
enum {
	OPT_STDOUT = 0x100,
	OPT_INODE,
	OPT_FILE,
	OPT_ADSPACE,
	OPT_SUPER,
	OPT_LAYERS,
	OPT_BACKEND,
	OPT_HIST,
	OPT_LIST,
	OPT_CHECK,
	OPT_VERSION,
	OPT_FOLDED,
	OPT_STACKS,
	OPT_SVG,
	OPT_SYSCALLS,
	OPT_PROFILE,
	OPT_SMBD_PID,
	OPT_FLAMEGRAPH,
	OPT_SINCE,
	OPT_UNTIL,
	OPT_BREAKDOWN,
	OPT_OFFCPU,
	_OPT_MAX,
};

struct cli {
	/* as given: each option's last value and how often it came */
	const char *arg[_OPT_MAX];
	unsigned char n[_OPT_MAX];
	char **funcs; /* every -f, in order */
	unsigned int n_funcs;
	char *const *rest; /* the operands: MIN_MS, or --flamegraph's FUNCTIONs */
	int n_rest;

	/* what the checks made of them */
	bool threshold_set; /* -m, -u or MIN_MS */
	uint64_t threshold_ns;
	uint32_t pid, smbd_pid;
	unsigned int args;
	enum probe_errors errors; /* -e, --errors=HOW */
	uint64_t since_us, until_us;
};

/*
 * Reads argv into cli and o and checks it. 0; 1 when all is done (--help,
 * --version); -EINVAL when the command line is wrong, said on stderr in one
 * line; -ENOMEM.
 */
int cli_parse(int argc, char **argv, struct cli *cli, struct run_opts *o);

/*
 * The command line over the loaded configuration, and the checks that need
 * both (a -f the file traces already, -K where nothing has a kernel stack).
 * 0, -EINVAL said on stderr, -ENOMEM.
 */
int cli_apply(const struct cli *cli, struct config *c, struct run_opts *o);

/* The option as --help shows it first: "-p", "--stdout". */
const char *cli_option_name(int code);

/* Says "smblat: MESSAGE" and the --help hint on stderr; returns -EINVAL. */
int cli_usage_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

void cli_free(struct cli *cli);
