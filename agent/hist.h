/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Latency histograms: bucket math, per-interval summaries, text reports. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "func.h"

/* One FUNCTION over one interval (or since start). */
struct summary {
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns;            /* UINT64_MAX when unknown */
	uint64_t max_ns;
	uint64_t slow;              /* calls at or over the threshold */
	uint64_t buckets[SMBLAT_NBUCKETS];
};

/* [lo, hi) in ns covered by bucket b (hi == UINT64_MAX for the last one). */
void hist_bucket_range(unsigned int b, uint64_t *lo_ns, uint64_t *hi_ns);

/*
 * Latency at percentile p (0 < p <= 100) estimated from the buckets:
 * linear interpolation inside the bucket holding the rank, clamped to
 * [min_ns, max_ns] when those are known. 0 when count is 0.
 */
uint64_t hist_percentile(const struct summary *s, double p);

/* dst += src (buckets, count, total, slow; min/max combined). */
void hist_merge(struct summary *dst, const struct summary *src);

/*
 * HIST field: "lo_us-hi_us:count" pairs for non-empty buckets, space
 * separated, microseconds with up to 3 decimals ("0.512-0.640:3 1024-1280:7").
 * Returns a malloc'd string, NULL on ENOMEM.
 */
char *hist_format_compact(const struct summary *s);

/*
 * A readable report: header line "FUNCTION (LAYER): count N, avg X ms, min,
 * max, p50/p90/p99, slow N in INTERVAL s", then a log2 distribution (power of
 * two rows, sub-buckets folded) in usecs with text bars, like biolatency:
 *        usecs               : count    distribution
 *     1024 -> 2047       : 12       |****************************************|
 * Empty leading/trailing rows are left out. Returns malloc'd text.
 */
char *hist_format_report(const struct func *f, const struct summary *s, double interval_s);

/* The tsmbd-style table row header and rows for the terminal (--hist). */
void hist_print_table_header(FILE *out);
void hist_print_table_row(FILE *out, const struct func *f, const struct summary *s);
