// SPDX-License-Identifier: LGPL-2.1-or-later
/* Interval summaries and loss reports from the BPF counters. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <time.h>

#include "base/log.h"
#include "core/agent-int.h"
#include "decode/stack.h"
#include "sinks/flame.h"
#include "sinks/writer.h"
#include "base/macro.h"
#include "base/clock.h"
#include "base/units.h"

#define STACKS_TOP 20  /* counted stacks per FUNCTION and interval in the journal */
#define STACKS_TERM 10 /* ... in the terminal's tables */

/* ---- summaries and loss reports ---- */

/* What the writer thread could not deliver joins the counts of the next loss report. */
static void collect_writer(struct agent *a)
{
	struct writer_losses *wl;

	if (!a->writer)
		return;
	wl = calloc(SMBLAT_MAX_FUNCS, sizeof(*wl));
	if (!wl)
		return; /* stays in the writer until the next collect */
	writer_take(a->writer, wl, SMBLAT_MAX_FUNCS);
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		a->loss[i].write_failed += wl[i].write_failed + wl[i].carried.write_failed;
		a->loss[i].ringbuf += wl[i].carried.ringbuf;
		a->loss[i].untimed += wl[i].carried.untimed;
		a->loss[i].suppressed += wl[i].carried.suppressed;
	}
	free(wl);
}

static int collect(struct agent *a)
{
	struct interval *iv = calloc(a->funcs.n ? a->funcs.n : 1, sizeof(*iv));
	uint64_t ended;
	int r;

	if (!iv)
		return -ENOMEM;
	ended = probes_epoch_bump(a->probes);
	/* each generation of counted stacks is drained as soon as its epoch ends */
	if (a->stacks) {
		agent_notes(a);
		(void)stacks_drain(a->stacks, a->probes, ended, &a->dec);
	}
	if (a->offcpu)
		(void)offcpu_drain(a->offcpu, a->probes, ended, &a->dec);
	r = stats_collect(a->stats, probes_stats_fd(a->probes), a->funcs.n, ended, iv);
	for (uint32_t i = 0; r == 0 && i < a->funcs.n; i++) {
		hist_merge(&a->acc[i], &iv[i].sum);
		a->loss[i].ringbuf += iv[i].lost;
		a->loss[i].untimed += iv[i].untimed;
	}
	free(iv);
	collect_writer(a);
	return r;
}

static void emit_summaries(struct agent *a, double interval_s)
{
	bool *done = calloc(a->funcs.n ? a->funcs.n : 1, 1);
	bool header = false;
	int width = HIST_TABLE_WIDTH;
	/* --folded and CSV output are read by programs: the tables go beside them */
	FILE *table = a->opt->term.folded || a->opt->term.format == TERM_CSV ? stderr : stdout;

	if (!done)
		return;
	for (uint32_t i = 0; i < a->funcs.n; i++)
		if (a->acc[i].count)
			width = hist_table_width(width, a->funcs.v[i].name);
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct summary s;

		if (done[i] || !a->acc[i].count || layer_table[a->funcs.v[i].layer]->own_summaries)
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
		} else if (!a->opt->breakdown) {
			if (!header)
				hist_print_table_header(table, width);
			header = true;
			hist_print_table_row(table, &a->funcs.v[i], &s, width);
		}
	}
	if (header)
		fflush(table);
	if (a->opt->breakdown)
		breakdown_emit(a, a->acc, interval_s, table);
	free(done);
}

static void loss_give_back(struct agent *a, const struct loss *v, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++) {
		struct loss *l = &a->loss[v[i].func->id];

		l->ringbuf += v[i].ringbuf;
		l->untimed += v[i].untimed;
		l->suppressed += v[i].suppressed;
		l->write_failed += v[i].write_failed;
	}
}

static void loss_print(FILE *f, const struct loss *l)
{
	fprintf(f,
		"smblat: lost %s: %llu ring buffer, %llu rate limited, %llu not written, "
		"%llu not timed\n",
		l->func->name, (unsigned long long)l->ringbuf, (unsigned long long)l->suppressed,
		(unsigned long long)l->write_failed, (unsigned long long)l->untimed);
}

static void emit_losses(struct agent *a, double interval_s)
{
	struct loss *v = calloc(a->funcs.n ? a->funcs.n : 1, sizeof(*v));
	uint64_t seen = probes_recursion_misses(a->probes), misses = seen - a->misses_reported;
	unsigned int n = 0;

	if (!v)
		return;
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct loss *l = &a->loss[i];

		if (!l->ringbuf && !l->suppressed && !l->write_failed && !l->untimed)
			continue;
		v[n] = *l;
		v[n++].func = &a->funcs.v[i];
		*l = (struct loss) {};
	}
	if ((n || misses) && a->journal && journal_write_loss(a->journal, v, n, misses, interval_s) < 0) {
		loss_give_back(a, v, n); /* reported again next time */
	} else {
		a->misses_reported = seen;
		for (unsigned int i = 0; !a->journal && i < n; i++)
			loss_print(stderr, &v[i]);
		if (!a->journal && misses)
			fprintf(stderr,
				"smblat: the kernel skipped %llu runs of the probes (recursion misses)\n",
				(unsigned long long)misses);
	}
	free(v);
}

static void stack_journal(struct agent *a, const struct func *f, const struct folded *set, size_t rank,
			  uint64_t lost, double interval_s)
{
	const struct folded_line *l = &set->v[rank];
	const char *inner = strrchr(l->stack, ';');
	const char *unwind = l->tag & STACKS_TAG_USER ? stack_unwind_name(l->tag & 0xff, 1) : NULL;
	char count[24], total[24], rk[16], n[16], lo[24], iv[32], ms[32], *msg = NULL;
	/* the journal sink cuts STACK_FOLDED as it cuts a slow call's */
	const struct record_field fields[] = {
		{ "STACK_FOLDED", (char *)l->stack },
		{ "COUNT", count },
		{ "TOTAL_US", total },
		{ "STACK_RANK", rk },
		{ "STACKS", n },
		{ "STACKS_LOST", lo },
		{ "INTERVAL_S", iv },
		{ "STACK_UNWIND", (char *)unwind }, /* last: left out without a user stack */
	};

	snprintf(count, sizeof(count), "%" PRIu64, l->count);
	snprintf(total, sizeof(total), "%" PRIu64, l->total_ns / 1000);
	snprintf(rk, sizeof(rk), "%zu", rank + 1);
	snprintf(n, sizeof(n), "%zu", set->n);
	snprintf(lo, sizeof(lo), "%" PRIu64, lost);
	snprintf(iv, sizeof(iv), "%.3f", interval_s);
	if (asprintf(&msg, "%s stack %zu of %zu: %" PRIu64 " %s, %s ms, innermost %s", f->name, rank + 1,
		     set->n, l->count, PLURAL(l->count, "call", "calls"),
		     units_ms(ms, sizeof(ms), l->total_ns, 3), inner ? inner + 1 : l->stack) >= 0)
		journal_write_view(a->journal, f->name, f->layer, SMBLAT_MID_STACKS, msg, fields,
				   ELEMENTSOF(fields) - !unwind);
	free(msg);
}

static void stacks_term(struct agent *a, FILE *table, const struct func *f, const struct folded *set,
			uint64_t lost)
{
	bool time = a->opt->stacks_by_time;
	char ms[32];

	if (a->opt->term.folded) {
		/* flame graph input: every stack */
		for (size_t i = 0; i < set->n; i++)
			printf("%s %" PRIu64 "\n", set->v[i].stack,
			       time ? set->v[i].total_ns / 1000 : set->v[i].count);
		fflush(stdout);
		return;
	}
	fprintf(table, "stacks of %s: %zu distinct, %" PRIu64 " %s not counted (no room)\n", f->name, set->n,
		lost, PLURAL(lost, "call", "calls"));
	for (size_t i = 0; i < set->n && i < STACKS_TERM; i++)
		fprintf(table, "%10" PRIu64 " %12s ms  %s\n", set->v[i].count,
			units_ms(ms, sizeof(ms), set->v[i].total_ns, 3), set->v[i].stack);
}

/* One off-CPU stack of f (rank in set): the journal's entry. */
static void offcpu_journal(struct agent *a, const struct func *f, const struct folded *set, size_t rank,
			   double interval_s)
{
	const struct folded_line *l = &set->v[rank];
	const char *cls_end = strchr(l->stack, ';');
	char cls[16], count[24], total[24], rk[16], n[16], iv[32], ms[32], *msg = NULL;
	const struct record_field fields[] = {
		{ "OFFCPU_CLASS", cls }, { "STACK_FOLDED", cls_end ? (char *)cls_end + 1 : (char *)"" },
		{ "COUNT", count },      { "OFFCPU_US", total },
		{ "STACK_RANK", rk },    { "STACKS", n },
		{ "INTERVAL_S", iv },
	};

	snprintf(cls, sizeof(cls), "%.*s", cls_end ? (int)(cls_end - l->stack) : 0, l->stack);
	snprintf(count, sizeof(count), "%" PRIu64, l->count);
	snprintf(total, sizeof(total), "%" PRIu64, l->total_ns / 1000);
	snprintf(rk, sizeof(rk), "%zu", rank + 1);
	snprintf(n, sizeof(n), "%zu", set->n);
	snprintf(iv, sizeof(iv), "%.3f", interval_s);
	if (asprintf(&msg, "%s off-CPU stack %zu of %zu: %s ms waiting (%s), %" PRIu64 " %s", f->name,
		     rank + 1, set->n, units_ms(ms, sizeof(ms), l->total_ns, 3), cls, l->count,
		     PLURAL(l->count, "switch", "switches")) >= 0)
		journal_write_view(a->journal, f->name, f->layer, SMBLAT_MID_OFFCPU, msg, fields,
				   ELEMENTSOF(fields));
	free(msg);
}

/* Each function's off-CPU stacks of the interval, the most time first: the top ones. */
static void emit_offcpu(struct agent *a, double interval_s)
{
	FILE *table = a->opt->term.folded || a->opt->term.format == TERM_CSV ? stderr : stdout;
	char ms[32];

	for (uint32_t i = 0; a->offcpu && i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];
		struct folded set;

		offcpu_take(a->offcpu, i, &set);
		if (set.n) {
			folded_sort(&set, true);
			if (!a->journal)
				fprintf(table, "off-CPU of %s: %zu stacks\n", f->name, set.n);
			for (size_t k = 0; k < set.n && k < STACKS_TOP; k++)
				if (a->journal)
					offcpu_journal(a, f, &set, k, interval_s);
				else
					fprintf(table, "%12s ms %10" PRIu64 "  %s\n",
						units_ms(ms, sizeof(ms), set.v[k].total_ns, 3),
						set.v[k].count, set.v[k].stack);
		}
		folded_free(&set);
	}
}

/* Each function's counted stacks of the interval: the top ones in the journal, or the terminal. */
static void emit_stacks(struct agent *a, double interval_s)
{
	FILE *table = a->opt->term.folded || a->opt->term.format == TERM_CSV ? stderr : stdout;

	for (uint32_t i = 0; a->stacks && i < a->funcs.n; i++) {
		const struct func *f = &a->funcs.v[i];
		struct folded set;
		uint64_t lost;

		stacks_take(a->stacks, i, &set, &lost);
		if (set.n || lost) {
			folded_sort(&set, a->opt->stacks_by_time);
			if (a->journal)
				for (size_t k = 0; k < set.n && k < STACKS_TOP; k++)
					stack_journal(a, f, &set, k, lost, interval_s);
			else
				stacks_term(a, table, f, &set, lost);
			if (a->opt->svg)
				(void)folded_merge(&a->run_stacks, &set);
		}
		folded_free(&set);
	}
}

int report_flame(struct agent *a)
{
	struct flame_opts o = { .title = "smblat: counted stacks",
				.by_time = a->opt->stacks_by_time,
				.subtitle = a->opt->stacks_by_time ? "widths: latency (us)" :
								     "widths: calls" };
	int r;

	/* opened before the start by whoever asked for it, closed by them */
	if (!a->opt->svg)
		return 0;
	r = flame_write(a->opt->svg, &a->run_stacks, &o);
	if (r == 0 && fflush(a->opt->svg) != 0)
		r = -errno;
	if (r < 0)
		log_status(STATUS_AGENT_DEGRADED, REASON_SYSTEM, LOG_ERR, "--svg %s: %s", a->opt->svg_path,
			   strerror(-r));
	else /* asked for on the command line: said there */
		fprintf(stderr, "smblat: flame graph of %zu stack%s written to %s\n", a->run_stacks.n,
			a->run_stacks.n == 1 ? "" : "s", a->opt->svg_path);
	return r;
}

/* The layers' own views, after the function table's. */
static void emit_views(struct agent *a, double interval_s, bool final)
{
	struct summary_out out = {
		.journal = a->journal,
		.table = a->opt->term.folded || a->opt->term.format == TERM_CSV ? stderr : stdout,
		.interval_s = interval_s,
		.final = final,
		.acc = a->acc,
	};

	if (a->opt->breakdown && !a->journal)
		return; /* the terminal shows the breakdown alone */
	for (int l = 0; l < _LAYER_MAX; l++)
		if (a->layer[l] && a->cfg->layer[l].enabled && layer_table[l]->summarize)
			layer_table[l]->summarize(a->layer[l], &out);
	fflush(out.table);
}

/* Tables in place of events on the terminal (--hist, --breakdown, --smbd-pid): each round under its time. */
static void table_heading(const struct agent *a, double interval_s)
{
	char when[16] = "??:??:??";
	time_t t = time(NULL);
	struct tm tm;

	if (a->journal || !a->opt->hist_only)
		return;
	if (localtime_r(&t, &tm))
		strftime(when, sizeof(when), "%H:%M:%S", &tm);
	printf("%s, the last %.1f s:\n", when, interval_s);
}

void report_now(struct agent *a, bool summary, bool losses)
{
	uint64_t now = now_ns();

	if (collect(a) < 0)
		return;
	if (summary) {
		table_heading(a, (now - a->last_summary_ns) / 1e9);
		emit_summaries(a, (now - a->last_summary_ns) / 1e9);
		emit_views(a, (now - a->last_summary_ns) / 1e9, a->stopping);
		emit_stacks(a, (now - a->last_summary_ns) / 1e9);
		emit_offcpu(a, (now - a->last_summary_ns) / 1e9);
		for (uint32_t i = 0; i < a->funcs.n; i++)
			hist_init(&a->acc[i]);
		a->last_summary_ns = now;
	}
	if (losses) {
		emit_losses(a, (now - a->last_loss_ns) / 1e9);
		a->last_loss_ns = now;
	}
}

void report_counts(struct agent *a, uint64_t *written, uint64_t *failed)
{
	int err;

	*written = a->written;
	*failed = a->failed;
	if (a->writer) {
		uint64_t w, f;

		writer_counts(a->writer, &w, &f, &err);
		/* the writer counts refused pushes too; the journal what went around it */
		*written = w + journal_written(a->journal);
		*failed = f + journal_failed(a->journal);
	}
}

void report_writer_health(struct agent *a)
{
	uint64_t w, f;
	int err;

	if (!a->writer)
		return;
	writer_counts(a->writer, &w, &f, &err);
	/*
	 * Failed and recovered since the last look (a queue full for a moment,
	 * then drained): said all the same, and its recovery at the next look.
	 */
	if (err == 0 && a->writer_error == 0 && f > a->writer_failed)
		err = writer_last_failure(a->writer);
	a->writer_failed = f;
	if (err == a->writer_error)
		return;
	/* tried in the journal too: it may take a status while the queue has room again */
	if (err)
		log_status(STATUS_WRITER_FAILING, err == EAGAIN ? REASON_QUEUE_FULL : REASON_WRITE_REFUSED,
			   LOG_ERR, "journal writes failing: %s; counting what is not written",
			   err == EAGAIN ? "journald is not keeping up, queue full" : strerror(err));
	else
		log_status(STATUS_WRITER_RESUMED, REASON_NONE, LOG_NOTICE,
			   "journal writes resumed after failures (%s)", strerror(a->writer_error));
	a->writer_error = err;
}

void report_writer_stop(struct agent *a)
{
	struct writer_losses *wl;
	uint64_t left;

	if (!a->writer)
		return;
	left = writer_stop(a->writer, 5000);
	wl = calloc(SMBLAT_MAX_FUNCS, sizeof(*wl));
	if (!wl)
		return;
	writer_take(a->writer, wl, SMBLAT_MAX_FUNCS);
	if (left)
		fprintf(stderr, "smblat: journald did not take %llu queued %s at exit\n",
			(unsigned long long)left, PLURAL(left, "entry", "entries"));
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		struct loss l = wl[i].carried;

		l.func = &a->funcs.v[i];
		l.write_failed += wl[i].write_failed;
		/* a last loss entry the queue refused gave its counts back */
		l.ringbuf += a->loss[i].ringbuf;
		l.untimed += a->loss[i].untimed;
		l.suppressed += a->loss[i].suppressed;
		l.write_failed += a->loss[i].write_failed;
		if (l.ringbuf || l.suppressed || l.write_failed || l.untimed)
			loss_print(stderr, &l);
	}
	free(wl);
}
