/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* smblat --flamegraph FILE [FUNCTION...]: the journal's stacks as a picture, no agent. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct flamegraph_opts {
	const char *path;       /* "-": standard output */
	char *const *functions; /* FUNCTION values; none: all */
	unsigned int n_functions;
	uint64_t since_us, until_us; /* CLOCK_REALTIME, 0: open */
	bool by_time;                /* widths by latency, else calls */
};

/* Reads the journal and writes the SVG. 0, or -errno said on stderr in one line. */
int flamegraph_run(const struct flamegraph_opts *o);
