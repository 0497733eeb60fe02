/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Latency histograms: bucket math, per-interval summaries, text reports. */
#pragma once

#include <stdint.h>
#include <stdio.h>

#include "base/func.h"

/* One FUNCTION over one interval (or since start). */
struct summary {
	uint64_t count;
	uint64_t total_ns;
	uint64_t min_ns; /* UINT64_MAX when unknown */
	uint64_t max_ns;
	uint64_t slow; /* calls at or over the threshold */
	uint64_t buckets[SMBLAT_NBUCKETS];
};

/* An empty summary: all zero, min_ns unknown. */
void hist_init(struct summary *s);

/* Accounts one call of ns nanoseconds, bucketed as the BPF side does. */
void hist_add(struct summary *s, uint64_t ns);

/* [lo, hi) in ns covered by bucket b (hi == UINT64_MAX for the last one). */
void hist_bucket_range(unsigned int b, uint64_t *lo_ns, uint64_t *hi_ns);

/*
 * Latency at percentile p (0 < p <= 100) estimated from the buckets:
 * linear interpolation inside the bucket holding the rank, over the
 * bucket's bounds clipped to [min_ns, max_ns] when those are known (min
 * and max being samples themselves). 0 when count is 0.
 */
uint64_t hist_percentile(const struct summary *s, double p);

/* dst += src (buckets, count, total, slow; min/max combined). */
void hist_merge(struct summary *dst, const struct summary *src);

/*
 * HIST field: "lo_us-hi_us:count" pairs for non-empty buckets, space
 * separated, microseconds with up to 3 decimals, trailing zeros trimmed
 * ("0.512-0.64:3 1024-1280:7"); the open-ended last bucket's hi is "inf".
 * Empty summary: "". Returns a malloc'd string, NULL on ENOMEM.
 */
char *hist_format_compact(const struct summary *s);

/*
 * A readable report: header line "FUNCTION (LAYER): N calls in INTERVAL s,
 * avg X ms, min X ms, max X ms, p50 X ms, p90 X ms, p99 X ms, N slow"
 * ("no calls in INTERVAL s" and nothing more when empty), then a log2
 * distribution with text bars, like biolatency: one row per power of two
 * of nanoseconds (sub-buckets folded), labelled [lo, hi) in microseconds
 * with the bounds HIST has:
 *      usecs               : count    distribution
 *   1048.576 -> 2097.152   : 12       |****************************************|
 * Labels widen past 10 columns when a bound needs it. Empty leading and
 * trailing rows are left out; no final newline. Returns malloc'd text,
 * NULL on ENOMEM.
 */
char *hist_format_report(const struct func *f, const struct summary *s, double interval_s);

/*
 * Histograms side by side (--breakdown): the usec log2 rows of the report,
 * one count and bar per column named names[i], and each column's total.
 */
void hist_print_columns(FILE *out, const char *const *names, const struct summary *const *s, unsigned int n);

/*
 * The tsmbd-style table row header and rows for the terminal (--hist),
 * the FUNCTION column width wide: hist_table_width() of the names the table
 * will hold, so that a long one does not push its row's columns aside.
 */
#define HIST_TABLE_WIDTH 32
int hist_table_width(int width, const char *name);
void hist_print_table_header(FILE *out, int width);
void hist_print_table_row(FILE *out, const struct func *f, const struct summary *s, int width);
