/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a run of the configuration needs of the machine, known before
 * anything loads: kernel functions (kallsyms addresses, kprobes or fentry),
 * functions in user space (uprobes), stacks. The command line checks its
 * options against it and names the capabilities this run, not every run,
 * needs.
 */
#pragma once

#include <stdbool.h>

#include "config/config.h"

struct needs {
	bool kernel_functions;   /* fentry/kprobes: /proc/kallsyms addresses */
	bool user_functions;     /* uprobes, USDT */
	bool kernel_stacks;      /* a traced call with a kernel stack (not a uprobe's) */
	bool counted_stacks;     /* stacks = yes somewhere */
	const char *user_target; /* a probe in user space, for messages */
};

void needs_of(const struct config *c, struct needs *n);

/* The capabilities this run needs, when the process lacks some: said on stderr in one line, -EPERM. */
int needs_check_privileges(const struct needs *n);
