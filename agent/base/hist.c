/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Latency histograms: bucket math, per-interval summaries, text reports. */

#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "base/macro.h"
#include "base/units.h"

#define HIST_BAR_WIDTH 40

void hist_init(struct summary *s)
{
	memset(s, 0, sizeof(*s));
	s->min_ns = UINT64_MAX;
}

void hist_add(struct summary *s, uint64_t ns)
{
	s->count++;
	s->total_ns += ns;
	if (ns < s->min_ns)
		s->min_ns = ns;
	if (ns > s->max_ns)
		s->max_ns = ns;
	s->buckets[smblat_bucket(ns)]++;
}

void hist_bucket_range(unsigned int b, uint64_t *lo_ns, uint64_t *hi_ns)
{
	unsigned int p, sub;

	if (b >= SMBLAT_NBUCKETS)
		b = SMBLAT_NBUCKETS - 1;
	if (b < SMBLAT_SUBS) {
		*lo_ns = b;
		*hi_ns = b + 1;
		return;
	}
	/* Inverse of smblat_bucket(): b = SUBS * (p - SUB_BITS + 1) + sub. */
	p = b / SMBLAT_SUBS + SMBLAT_SUB_BITS - 1;
	sub = b % SMBLAT_SUBS;
	*lo_ns = (uint64_t)(SMBLAT_SUBS + sub) << (p - SMBLAT_SUB_BITS);
	/* The last bucket also takes everything past 2^(MAX_LOG2+1). */
	if (b == SMBLAT_NBUCKETS - 1)
		*hi_ns = UINT64_MAX;
	else
		*hi_ns = (uint64_t)(SMBLAT_SUBS + sub + 1) << (p - SMBLAT_SUB_BITS);
}

static bool minmax_known(const struct summary *s)
{
	return s->count > 0 && s->min_ns != UINT64_MAX && s->min_ns <= s->max_ns;
}

static uint64_t buckets_sum(const struct summary *s)
{
	uint64_t n = 0;

	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
		n += s->buckets[b];
	return n;
}

/*
 * Where the rank-th smallest value (1-based) sits, assuming even spread in
 * its bucket over the part of it the data can reach: the bucket's bounds
 * clipped to the known min and max. A clipped end is a sample itself (the
 * min or the max), so the first or last value of the bucket sits on it;
 * an open end is half a step away, as a bucket's values are seldom on its
 * edge. Samples sharing a bucket thus get their median between them, not
 * on min or on the bucket's edge.
 */
static uint64_t bucket_interpolate(const struct summary *s, uint64_t rank)
{
	uint64_t seen = 0, lo, hi, c;
	double gap_lo = 0.5, gap_hi = 0.5, steps;
	unsigned int b;

	for (b = 0; b < SMBLAT_NBUCKETS - 1; b++) {
		if (rank <= seen + s->buckets[b])
			break;
		seen += s->buckets[b];
	}
	hist_bucket_range(b, &lo, &hi);
	/* The open-ended last bucket is spread as if it stopped at the next power of two. */
	if (b == SMBLAT_NBUCKETS - 1)
		hi = (uint64_t)1 << (SMBLAT_MAX_LOG2 + 1);
	c = s->buckets[b];
	if (c == 0)
		return lo;
	if (minmax_known(s)) {
		if (s->min_ns >= lo && s->min_ns < hi) {
			lo = s->min_ns;
			gap_lo = 0;
		}
		if (s->max_ns >= lo && s->max_ns < hi) {
			hi = s->max_ns;
			gap_hi = 0;
		}
	}
	steps = (double)(c - 1) + gap_lo + gap_hi;
	if (steps <= 0)
		return lo;
	return lo + (uint64_t)((double)(hi - lo) * ((double)(rank - seen - 1) + gap_lo) / steps);
}

uint64_t hist_percentile(const struct summary *s, double p)
{
	uint64_t n, rank, v;
	double r;

	/*
	 * Rank against the buckets' own total: the BPF side bumps count and
	 * the bucket separately, so a snapshot may see them disagree by a few.
	 */
	n = buckets_sum(s);
	if (s->count == 0 || n == 0 || !(p > 0))
		return 0;
	if (p > 100)
		p = 100;
	/*
	 * ceil(), by hand to stay off libm; p * n / 100 rather than
	 * p / 100 * n, and a little slack, so that whole ranks stay whole.
	 */
	r = p * (double)n / 100.0;
	rank = (uint64_t)r;
	if ((double)rank < r - 1e-9)
		rank++;
	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;

	v = bucket_interpolate(s, rank);
	if (minmax_known(s)) {
		if (v < s->min_ns)
			v = s->min_ns;
		if (v > s->max_ns)
			v = s->max_ns;
	}
	return v;
}

void hist_merge(struct summary *dst, const struct summary *src)
{
	if (src->count == 0 && buckets_sum(src) == 0)
		return;
	/* An empty dst may be zero-filled rather than hist_init()ed: its min means nothing. */
	if (dst->count == 0) {
		dst->min_ns = src->min_ns;
		dst->max_ns = src->max_ns;
	} else if (dst->min_ns == UINT64_MAX || src->min_ns == UINT64_MAX) {
		/* One side's extremes are unknown, so the union's are too. */
		dst->min_ns = UINT64_MAX;
		dst->max_ns = 0;
	} else {
		if (src->min_ns < dst->min_ns)
			dst->min_ns = src->min_ns;
		if (src->max_ns > dst->max_ns)
			dst->max_ns = src->max_ns;
	}
	dst->count += src->count;
	dst->total_ns += src->total_ns;
	dst->slow += src->slow;
	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
		dst->buckets[b] += src->buckets[b];
}

/* ns as microseconds, up to 3 decimals without trailing zeros: 512 -> "0.512", 640 -> "0.64". */
static void print_us(FILE *f, uint64_t ns)
{
	unsigned int frac = (unsigned int)(ns % 1000);
	int digits = 3;

	if (ns == UINT64_MAX) {
		fputs("inf", f);
		return;
	}
	fprintf(f, "%llu", (unsigned long long)(ns / 1000));
	if (frac == 0)
		return;
	while (frac % 10 == 0) {
		frac /= 10;
		digits--;
	}
	fprintf(f, ".%0*u", digits, frac);
}

char *hist_format_compact(const struct summary *s)
{
	char *buf = NULL;
	size_t len = 0;
	bool first = true;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++) {
		uint64_t lo, hi;

		if (s->buckets[b] == 0)
			continue;
		hist_bucket_range(b, &lo, &hi);
		if (!first)
			fputc(' ', f);
		first = false;
		print_us(f, lo);
		fputc('-', f);
		print_us(f, hi);
		fprintf(f, ":%llu", (unsigned long long)s->buckets[b]);
	}
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

static void print_ms(FILE *f, uint64_t ns)
{
	char buf[32];

	units_ms(buf, sizeof(buf), ns, 3);
	fputs(buf, f);
}

/* About 3 significant digits, never an exponent, ns the finest step: 44.8, 0.00234. */
static void print_ms_approx(FILE *f, uint64_t ns)
{
	char buf[32];
	int decimals = 0;

	if (ns > 0)
		for (uint64_t v = 100000000; ns < v && decimals < 6; v /= 10)
			decimals++;
	units_ms(buf, sizeof(buf), ns, decimals);
	fputs(buf, f);
}

/* Interval in seconds to 0.1 s, "60" rather than "60.0". */
static void print_seconds(FILE *f, double sec)
{
	unsigned long long tenths = sec > 0 ? (unsigned long long)(sec * 10 + 0.5) : 0;

	if (tenths % 10 == 0)
		fprintf(f, "%llu", tenths / 10);
	else
		fprintf(f, "%llu.%llu", tenths / 10, tenths % 10);
}

static void report_headline(FILE *f, const struct func *fn, const struct summary *s, double interval_s)
{
	static const double pct[] = { 50, 90, 99 };

	fprintf(f, "%s (%s): ", fn->name, layer_name(fn->layer));
	if (s->count == 0)
		fputs("no calls in ", f);
	else
		fprintf(f, "%llu call%s in ", (unsigned long long)s->count, s->count == 1 ? "" : "s");
	print_seconds(f, interval_s);
	fputs(" s", f);
	if (s->count == 0) {
		fputc('\n', f);
		return;
	}
	fputs(", avg ", f);
	print_ms(f, s->total_ns / s->count);
	if (minmax_known(s)) {
		fputs(" ms, min ", f);
		print_ms(f, s->min_ns);
		fputs(" ms, max ", f);
		print_ms(f, s->max_ns);
	}
	fputs(" ms", f);
	if (buckets_sum(s) > 0)
		for (unsigned int i = 0; i < ELEMENTSOF(pct); i++) {
			fprintf(f, ", p%.0f ", pct[i]);
			print_ms_approx(f, hist_percentile(s, pct[i]));
			fputs(" ms", f);
		}
	fprintf(f, ", %llu slow\n", (unsigned long long)s->slow);
}

/*
 * One row per power of two of nanoseconds, as the buckets are (their four
 * sub-buckets folded), labelled with its true bounds in microseconds
 * [lo, hi): "1048.576 -> 2097.152" holds 1.05 to 2.10 ms, as HIST says.
 */
#define HIST_ROWS ((int)(SMBLAT_NBUCKETS / SMBLAT_SUBS))

static void row_range(unsigned int r, uint64_t *lo_ns, uint64_t *hi_ns)
{
	uint64_t ignored;

	hist_bucket_range(r * SMBLAT_SUBS, lo_ns, &ignored);
	hist_bucket_range(r * SMBLAT_SUBS + SMBLAT_SUBS - 1, &ignored, hi_ns);
}

/* As print_us(), into buf. */
static void format_us(char *buf, size_t len, uint64_t ns)
{
	FILE *f = fmemopen(buf, len, "w");

	if (!f) {
		snprintf(buf, len, "?");
		return;
	}
	print_us(f, ns);
	fclose(f);
}

/*
 * The bounds of rows first..last in microseconds; returns the width of
 * the widest, at least biolatency's 10 columns. No rows (first < 0, no
 * calls at all): no labels, the least width.
 */
static int row_labels(int first, int last, char lo_s[][24], char hi_s[][24])
{
	int width = 10;

	for (int r = first; r >= 0 && r <= last; r++) {
		uint64_t lo, hi;

		row_range(r, &lo, &hi);
		format_us(lo_s[r], sizeof(lo_s[r]), lo);
		format_us(hi_s[r], sizeof(hi_s[r]), hi);
		if ((int)strlen(lo_s[r]) > width)
			width = (int)strlen(lo_s[r]);
		if ((int)strlen(hi_s[r]) > width)
			width = (int)strlen(hi_s[r]);
	}
	return width;
}

static void print_bar(FILE *f, uint64_t n, uint64_t max)
{
	unsigned int stars = max ? (unsigned int)((double)n * HIST_BAR_WIDTH / (double)max) : 0;

	fputc('|', f);
	for (unsigned int i = 0; i < HIST_BAR_WIDTH; i++)
		fputc(i < stars ? '*' : ' ', f);
	fputs("|\n", f);
}

static void report_table(FILE *f, const struct summary *s)
{
	char lo_s[HIST_ROWS][24], hi_s[HIST_ROWS][24];
	uint64_t rows[HIST_ROWS] = {}, max = 0;
	int first = -1, last = -1, width;

	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
		rows[b / SMBLAT_SUBS] += s->buckets[b];
	for (int r = 0; r < HIST_ROWS; r++) {
		if (rows[r] == 0)
			continue;
		if (first < 0)
			first = r;
		last = r;
		if (rows[r] > max)
			max = rows[r];
	}
	if (first < 0)
		return;
	width = row_labels(first, last, lo_s, hi_s);

	fprintf(f, "%*s%-*s : count    distribution\n", width - 5, "", width + 9, "usecs");
	for (int r = first; r <= last; r++) {
		fprintf(f, "%*s -> %-*s : %-8llu ", width, lo_s[r], width, hi_s[r],
			(unsigned long long)rows[r]);
		print_bar(f, rows[r], max);
	}
}

#define COLUMN_BAR_WIDTH 12

static void column_bar(FILE *f, uint64_t n, uint64_t max)
{
	unsigned int stars = max ? (unsigned int)((double)n * COLUMN_BAR_WIDTH / (double)max + 0.5) : 0;

	if (n && !stars)
		stars = 1; /* a row with calls shows it */
	fputc('|', f);
	for (unsigned int i = 0; i < COLUMN_BAR_WIDTH; i++)
		fputc(i < stars ? '*' : ' ', f);
	fputc('|', f);
}

void hist_print_columns(FILE *f, const char *const *names, const struct summary *const *s, unsigned int n)
{
	uint64_t(*rows)[HIST_ROWS] = calloc(n ? n : 1, sizeof(*rows));
	uint64_t *max = calloc(n ? n : 1, sizeof(*max));
	char lo_s[HIST_ROWS][24], hi_s[HIST_ROWS][24];
	int first = -1, last = -1, width;

	if (!rows || !max) {
		free(rows);
		free(max);
		return;
	}
	for (unsigned int c = 0; c < n; c++) {
		for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
			rows[c][b / SMBLAT_SUBS] += s[c]->buckets[b];
		for (int r = 0; r < HIST_ROWS; r++) {
			if (!rows[c][r])
				continue;
			if (first < 0 || r < first)
				first = r;
			if (r > last)
				last = r;
			if (rows[c][r] > max[c])
				max[c] = rows[c][r];
		}
	}
	width = row_labels(first, last, lo_s, hi_s);
	fprintf(f, "%*s%-*s :", width - 5, "", width + 9, "usecs");
	for (unsigned int c = 0; c < n; c++)
		fprintf(f, " %-23.23s", names[c]);
	fprintf(f, "\n%*s :", 2 * width + 4, "");
	for (unsigned int c = 0; c < n; c++)
		fprintf(f, " %-8s %-14s", "count", "distribution");
	fputc('\n', f);
	for (int r = first; first >= 0 && r <= last; r++) {
		fprintf(f, "%*s -> %-*s :", width, lo_s[r], width, hi_s[r]);
		for (unsigned int c = 0; c < n; c++) {
			fprintf(f, " %-8llu ", (unsigned long long)rows[c][r]);
			column_bar(f, rows[c][r], max[c]);
		}
		fputc('\n', f);
	}
	fprintf(f, "%*s :", 2 * width + 4, "total");
	for (unsigned int c = 0; c < n; c++)
		fprintf(f, " %-8llu %-14s", (unsigned long long)s[c]->count, "");
	fputc('\n', f);
	free(rows);
	free(max);
}

char *hist_format_report(const struct func *fn, const struct summary *s, double interval_s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	report_headline(f, fn, s, interval_s);
	if (s->count > 0)
		report_table(f, s);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	/* MESSAGE= reads better without a final newline in journalctl. */
	if (len > 0 && buf[len - 1] == '\n')
		buf[len - 1] = '\0';
	return buf;
}

int hist_table_width(int width, const char *name)
{
	int n = name ? (int)strlen(name) : 0;

	if (width < HIST_TABLE_WIDTH)
		width = HIST_TABLE_WIDTH;
	return n > width ? n : width;
}

void hist_print_table_header(FILE *out, int width)
{
	fprintf(out, "%-*s %10s %12s %10s %10s %10s %10s %10s %8s\n", width, "FUNCTION", "COUNT", "TOTAL(ms)",
		"AVG(ms)", "MIN(ms)", "MAX(ms)", "P50(ms)", "P99(ms)", "SLOW");
}

void hist_print_table_row(FILE *out, const struct func *f, const struct summary *s, int width)
{
	char total[32], avg[32], min[32] = "-", max[32] = "-", p50[32], p99[32];

	units_ms(total, sizeof(total), s->total_ns, 3);
	fprintf(out, "%-*s %10llu %12s ", width, f->name, (unsigned long long)s->count, total);
	if (s->count == 0) {
		fprintf(out, "%10s %10s %10s %10s %10s ", "-", "-", "-", "-", "-");
	} else {
		units_ms(avg, sizeof(avg), s->total_ns / s->count, 3);
		if (minmax_known(s)) {
			units_ms(min, sizeof(min), s->min_ns, 3);
			units_ms(max, sizeof(max), s->max_ns, 3);
		}
		units_ms(p50, sizeof(p50), hist_percentile(s, 50), 3);
		units_ms(p99, sizeof(p99), hist_percentile(s, 99), 3);
		fprintf(out, "%10s %10s %10s %10s %10s ", avg, min, max, p50, p99);
	}
	fprintf(out, "%8llu\n", (unsigned long long)s->slow);
}
