/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The running agent: resolve, load, attach, then drain events until told to stop. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"
#include "sinks/term.h"

struct run_opts {
	bool to_stdout; /* terminal instead of journal */
	struct term_opts term;
	bool hist_only;            /* --hist: tables instead of event lines */
	uint64_t hist_interval_ns; /* --hist=SECONDS */
	bool breakdown;            /* --breakdown: per-layer histograms side by side */
	uint64_t duration_ns;      /* -d; 0 = until signalled */
	bool list_probes;          /* attach, print the table, detach, exit */
	bool verbose;
	const char *config_path; /* for SIGHUP reload; NULL: built-in defaults */
	bool config_explicit;
	bool stacks_by_time;          /* --stacks=time: folded lines and --svg weigh latency (us) */
	const char *svg_path;         /* --svg FILE: a flame graph of the run's counted stacks, at exit */
	FILE *svg;                    /* ... opened by the caller before the run, closed after it */
	bool kernel_symbols_optional; /* no kernel function traced: kallsyms may stay unread */
};

/*
 * Hands each layer's section of smblat.conf to config/ (config_layer_register()):
 * before the first config_init(). -E2BIG when one does not fit struct config.
 */
int agent_config_register(void);

/*
 * --breakdown: the probes of the layers the breakdown shows (I/O system
 * calls, VFS entry points) added to c, and their layers enabled unless
 * the command line chose the layers. -ENOMEM.
 */
int breakdown_configure(struct config *c, bool layers_given);

/* Returns the process exit status. */
int agent_run(struct config *c, const struct run_opts *o);
