// SPDX-License-Identifier: LGPL-2.1-or-later
/* Interval summaries and loss reports from the BPF counters. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "agent-int.h"

/* ---- summaries and loss reports ---- */

static int collect(struct agent *a)
{
	struct interval *iv = calloc(a->funcs.n ? a->funcs.n : 1, sizeof(*iv));
	uint64_t ended;
	int r;

	if (!iv)
		return -ENOMEM;
	ended = probes_epoch_bump(a->probes);
	r = stats_collect(a->stats, probes_stats_fd(a->probes), probes_hist_fd(a->probes),
			  a->funcs.n, ended, iv);
	for (uint32_t i = 0; r == 0 && i < a->funcs.n; i++) {
		hist_merge(&a->acc[i], &iv[i].sum);
		a->loss[i].ringbuf += iv[i].lost;
	}
	free(iv);
	return r;
}

static void emit_summaries(struct agent *a, double interval_s)
{
	bool *done = calloc(a->funcs.n ? a->funcs.n : 1, 1);
	bool header = false;
	/* --folded output is flame graph input: the tables go beside it */
	FILE *table = a->opt->term.folded ? stderr : stdout;

	if (!done)
		return;
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct summary s;

		if (done[i] || !a->acc[i].count)
			continue;
		/* One FUNCTION may be served by several kernel functions. */
		s = a->acc[i];
		for (uint32_t j = i + 1; j < a->funcs.n; j++)
			if (!done[j] && a->acc[j].count &&
			    strcmp(a->funcs.v[j].name, a->funcs.v[i].name) == 0) {
				hist_merge(&s, &a->acc[j]);
				done[j] = true;
			}
		if (a->journal) {
			journal_write_summary(a->journal, &a->funcs.v[i], &s, interval_s);
		} else {
			if (!header)
				hist_print_table_header(table);
			header = true;
			hist_print_table_row(table, &a->funcs.v[i], &s);
		}
	}
	if (header)
		fflush(table);
	for (uint32_t i = 0; i < a->funcs.n; i++)
		hist_init(&a->acc[i]);
	free(done);
}

static void emit_losses(struct agent *a, double interval_s)
{
	struct loss *v = calloc(a->funcs.n ? a->funcs.n : 1, sizeof(*v));
	unsigned int n = 0;

	if (!v)
		return;
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct loss *l = &a->loss[i];

		if (!l->ringbuf && !l->suppressed && !l->write_failed)
			continue;
		v[n] = *l;
		v[n++].func = &a->funcs.v[i];
		*l = (struct loss) {};
	}
	if (n && a->journal)
		journal_write_loss(a->journal, v, n, interval_s);
	else if (n)
		for (unsigned int i = 0; i < n; i++)
			fprintf(stderr, "smblat: lost %s: %llu ring buffer, %llu rate limited\n",
				v[i].func->name, (unsigned long long)v[i].ringbuf,
				(unsigned long long)v[i].suppressed);
	free(v);
}

void report_now(struct agent *a, bool summary, bool losses)
{
	uint64_t now = agent_now_ns();

	if (collect(a) < 0)
		return;
	if (summary) {
		emit_summaries(a, (now - a->last_summary_ns) / 1e9);
		a->last_summary_ns = now;
	}
	if (losses) {
		emit_losses(a, (now - a->last_loss_ns) / 1e9);
		a->last_loss_ns = now;
	}
}
