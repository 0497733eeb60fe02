/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Files named on the command line for output (--svg, --flamegraph): opened
 * before anything is traced, with the rights of the user the agent will
 * be, so that a path it cannot write is an error at start and not a loss
 * at exit.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct outfile {
	const char *option; /* for messages: "--svg" */
	const char *path;
	FILE *f;
	bool created; /* by this run: removed again when nothing is written */
};

/*
 * Opens path ("-": standard output) for writing as user (NULL or "": as
 * we are). Says why not on stderr, in one line; -errno.
 */
int outfile_open(struct outfile *o, const char *option, const char *path, const char *user);
/* Closes it; a write error is said and returned as -errno. */
int outfile_close(struct outfile *o);
/* Closes it and removes it if this run created it: nothing was written. */
void outfile_abandon(struct outfile *o);
