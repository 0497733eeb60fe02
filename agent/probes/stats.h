/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading the per-CPU counters and histograms of BPF (one value per id) into interval summaries. */
#pragma once

#include <stdint.h>

#include "base/func.h"
#include "base/hist.h"

struct stats;

/* Per function id, what one interval added. */
struct interval {
	struct summary sum;
	uint64_t lost;    /* ring buffer full */
	uint64_t untimed; /* requests never timed */
	uint64_t unmatched;
};

int stats_new(struct stats **ret);
void stats_free(struct stats *s);

/*
 * Reads the cumulative counters of ids [0, n) and returns what changed since
 * the last call in out[n]; min/max come from the slot of epoch `ended`.
 * Counters only grow, so nothing is lost or counted twice between reads.
 */
int stats_collect(struct stats *s, int stats_fd, uint32_t n, uint64_t ended, struct interval *out);
