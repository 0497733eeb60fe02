// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/flamegraph.h"
#include "cli/outfile.h"
#include "decode/jstacks.h"
#include "sinks/flame.h"

/* "smblat: A B" and "FROM to TO, N counted-stack entries, widths: calls" */
static void titles(const struct flamegraph_opts *o, const struct jstacks_result *res, char *title, size_t tn,
		   char *sub, size_t sn)
{
	time_t t0 = (time_t)(res->first_us / 1000000), t1 = (time_t)(res->last_us / 1000000);
	size_t n = (size_t)snprintf(title, tn, "smblat:");
	char a[32], b[32];

	for (unsigned int i = 0; i < o->n_functions && n < tn; i++)
		n += (size_t)snprintf(title + n, tn - n, " %s", o->functions[i]);
	if (!o->n_functions && n < tn)
		snprintf(title + n, tn - n, " all functions");
	strftime(a, sizeof(a), "%Y-%m-%d %H:%M:%S", localtime(&t0));
	strftime(b, sizeof(b), "%Y-%m-%d %H:%M:%S", localtime(&t1));
	snprintf(sub, sn, "%s to %s, %u %s entr%s, widths: %s", a, b, res->entries,
		 res->slow_calls ? "slow-call" : "counted-stack", res->entries == 1 ? "y" : "ies",
		 o->by_time ? "latency (us)" : "calls");
}

static int read_journal(const struct flamegraph_opts *o, struct folded *f, struct jstacks_result *res)
{
	const char **fns = calloc(o->n_functions + 1, sizeof(*fns));
	struct jstacks_query q = { .functions = fns, .since_us = o->since_us, .until_us = o->until_us };
	int r;

	if (!fns)
		return -ENOMEM;
	for (unsigned int i = 0; i < o->n_functions; i++)
		fns[i] = o->functions[i];
	r = jstacks_read(&q, f, res);
	free(fns);
	if (r == -EACCES)
		fprintf(stderr,
			"smblat: cannot read the system journal, where smblat's entries are (%s: %s): "
			"run as root or as a member of the systemd-journal or adm group\n",
			res->unreadable, strerror(-r));
	else if (r < 0)
		fprintf(stderr, "smblat: cannot read the journal: %s\n", strerror(-r));
	else if (!res->entries)
		fprintf(stderr, "smblat: no stacks of %s in the journal%s\n",
			o->n_functions ? o->functions[0] : "any FUNCTION",
			o->since_us || o->until_us ? " in that time range" : "");
	return r < 0 ? r : res->entries ? 0 : -ENOENT;
}

int flamegraph_run(const struct flamegraph_opts *o)
{
	char title[512], sub[256];
	struct flame_opts fo = { .title = title, .subtitle = sub, .by_time = o->by_time };
	struct jstacks_result res;
	struct outfile out;
	struct folded f = {};
	int r;

	/* before the journal is read: a path that cannot be written is said at once */
	r = outfile_open(&out, "--flamegraph", o->path, NULL);
	if (r < 0)
		return r;
	r = read_journal(o, &f, &res);
	if (r == 0) {
		titles(o, &res, title, sizeof(title), sub, sizeof(sub));
		r = flame_write(out.f, &f, &fo);
		if (r < 0)
			fprintf(stderr, "smblat: --flamegraph %s: %s\n", o->path, strerror(-r));
	}
	if (r == 0)
		r = outfile_close(&out);
	else
		outfile_abandon(&out);
	if (r == 0)
		fprintf(stderr, "smblat: %zu stack%s from %u entr%s written to %s\n", f.n,
			f.n == 1 ? "" : "s", res.entries, res.entries == 1 ? "y" : "ies", o->path);
	folded_free(&f);
	return r;
}
