/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: histogram summaries with arbitrary counts (as a summed
 * per-CPU map could hold them) through every hist function and the summary
 * and loss journal fields.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/hist.h"
#include "sinks/journal.h"
#include "fuzz.h"

static struct func fn = { .name = (char *)"INODE_OP_UNLINK", .layer = LAYER_SMB };
static FILE *devnull;

static void free_fields(char **fields, int n)
{
	for (int i = 0; i < n; i++)
		free(fields[i]);
	free(fields);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_report_init();
	devnull = fopen("/dev/null", "w");
	if (!devnull)
		fail("cannot open /dev/null");
	return 0;
}

/* The buckets, not count, are what percentiles rank against (see hist.c). */
static uint64_t bucket_total(const struct summary *s)
{
	uint64_t n = 0;

	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
		n += s->buckets[b];
	return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct summary s, m;
	struct loss l[2];
	uint64_t p50, p99, lo, hi;
	char **fields = NULL, *t;
	double interval;
	int n;

	hist_init(&s);
	memcpy(&s, data, size < sizeof(s) ? size : sizeof(s));
	data += size < sizeof(s) ? size : sizeof(s);
	size -= size < sizeof(s) ? size : sizeof(s);

	p50 = hist_percentile(&s, 50);
	p99 = hist_percentile(&s, 99);
	if (s.count && bucket_total(&s) && s.min_ns <= s.max_ns && s.min_ns != UINT64_MAX &&
	    (p50 < s.min_ns || p99 > s.max_ns))
		fail("percentiles %llu %llu outside [%llu, %llu]", (unsigned long long)p50,
		     (unsigned long long)p99, (unsigned long long)s.min_ns, (unsigned long long)s.max_ns);
	free(hist_format_compact(&s));
	interval = size >= 1 ? data[0] / 4.0 : 60;
	free(hist_format_report(&fn, &s, interval));
	hist_print_table_row(devnull, &fn, &s, hist_table_width(HIST_TABLE_WIDTH, fn.name));
	n = journal_summary_fields(&fn, &s, interval, &fields);
	if (n > 0)
		free_fields(fields, n);

	/* merging into an empty summary gives the same counts (an empty one adds nothing) */
	hist_init(&m);
	hist_merge(&m, &s);
	if ((s.count || bucket_total(&s)) && (m.count != s.count || m.slow != s.slow))
		fail("merge lost counts");

	/* what is left: latencies to add, then loss counts */
	while (size >= 8 && size > sizeof(l)) {
		uint64_t ns;
		unsigned b;

		memcpy(&ns, data, 8);
		hist_add(&m, ns);
		b = smblat_bucket(ns);
		if (b >= SMBLAT_NBUCKETS)
			fail("bucket %u of %llu ns out of range", b, (unsigned long long)ns);
		hist_bucket_range(b, &lo, &hi);
		if (ns < lo || (hi != UINT64_MAX && ns >= hi))
			fail("%llu ns outside its bucket [%llu, %llu)", (unsigned long long)ns,
			     (unsigned long long)lo, (unsigned long long)hi);
		data += 8;
		size -= 8;
	}
	t = hist_format_compact(&m);
	free(t);
	memset(l, 0, sizeof(l));
	memcpy(l, data, size < sizeof(l) ? size : sizeof(l));
	l[0].func = &fn;
	l[1].func = size % 2 ? &fn : NULL;
	n = journal_loss_fields(l, 2, 0, interval, &fields);
	if (n > 0)
		free_fields(fields, n);
	return 0;
}
