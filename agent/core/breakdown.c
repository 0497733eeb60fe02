// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-layer breakdown (as IOStackBreakdown): every FUNCTION's calls of
 * an interval merged by the layer of the I/O stack it belongs to, from
 * system calls down to block requests, as log2 histograms side by side on
 * the terminal or one BREAKDOWN summary per layer in the journal. It reads
 * the function table's summaries; nothing of its own is counted in BPF.
 * The columns are the layers' (layer_ops.columns), in the order of their
 * depth.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/agent-int.h"

#define COLUMNS_MAX 16

/* The layers' columns, top down. */
struct columns {
	const struct breakdown_column *c[COLUMNS_MAX];
	enum layer_id layer[COLUMNS_MAX];
	unsigned int first[_LAYER_MAX]; /* the layer's first column */
	unsigned int n;
};

static void columns_collect(struct columns *cs)
{
	cs->n = 0;
	for (int l = 0; l < _LAYER_MAX; l++) {
		cs->first[l] = cs->n;
		for (unsigned int i = 0; i < layer_table[l]->n_columns && cs->n < COLUMNS_MAX; i++) {
			cs->c[cs->n] = &layer_table[l]->columns[i];
			cs->layer[cs->n++] = l;
		}
	}
}

/* The index of f's column in cs, or -1. */
static int column_of(const struct columns *cs, const struct func *f)
{
	const struct layer_ops *ops = layer_table[f->layer];
	int c;

	if (!ops->n_columns)
		return -1;
	c = ops->column_of ? ops->column_of(f) : 0;
	return c < 0 || (unsigned int)c >= ops->n_columns ? -1 : (int)(cs->first[f->layer] + (unsigned int)c);
}

/* The columns' indices in cs by depth, top down. */
static void columns_order(const struct columns *cs, unsigned int *order)
{
	for (unsigned int i = 0; i < cs->n; i++)
		order[i] = i;
	for (unsigned int i = 1; i < cs->n; i++)
		for (unsigned int j = i; j > 0 && cs->c[order[j]]->depth < cs->c[order[j - 1]]->depth; j--) {
			unsigned int t = order[j];

			order[j] = order[j - 1];
			order[j - 1] = t;
		}
}

int breakdown_configure(struct config *c, bool layers_given)
{
	int r = 0;

	for (int l = 0; r == 0 && l < _LAYER_MAX; l++)
		if (layer_table[l]->breakdown)
			r = layer_table[l]->breakdown(c, layers_given);
	return r;
}

/* Each column's calls of the interval merged; on: a column's layer traces anything now. */
static void columns_merge(const struct agent *a, const struct columns *cs, const struct summary *acc,
			  struct summary *col, bool *on)
{
	for (unsigned int c = 0; c < cs->n; c++)
		hist_init(&col[c]);
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		int c = column_of(cs, &a->funcs.v[i]);

		if (c < 0)
			continue;
		if (acc[i].count)
			hist_merge(&col[c], &acc[i]);
		/* shown even without calls while its layer traces */
		on[c] |= acc[i].count || func_attached(&a->funcs.v[i]);
	}
}

void breakdown_emit(struct agent *a, const struct summary *acc, double interval_s, FILE *table)
{
	struct summary col[COLUMNS_MAX];
	const struct summary *cols[COLUMNS_MAX];
	const char *names[COLUMNS_MAX];
	unsigned int order[COLUMNS_MAX], n = 0;
	bool on[COLUMNS_MAX] = {};
	struct columns cs;

	columns_collect(&cs);
	columns_order(&cs, order);
	columns_merge(a, &cs, acc, col, on);
	for (unsigned int k = 0; k < cs.n; k++) {
		unsigned int c = order[k];

		if (!on[c])
			continue;
		if (a->journal) {
			struct record_field f = { "BREAKDOWN_LAYER", (char *)cs.c[c]->name };

			journal_write_view_summary(a->journal, cs.c[c]->function, cs.layer[c], &col[c],
						   interval_s, &f, 1, SMBLAT_MID_BREAKDOWN);
		}
		names[n] = cs.c[c]->name;
		cols[n++] = &col[c];
	}
	if (a->journal || !n)
		return;
	fprintf(table, "\nper layer, %.1f s:\n", interval_s);
	hist_print_columns(table, names, cols, n);
	fflush(table);
}
