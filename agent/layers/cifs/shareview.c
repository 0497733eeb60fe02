// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-share view, read: the BPF map holds cumulative per-CPU counters
 * per (function id, device); each interval takes what they added since the
 * last one (nothing is deleted under the probes), names the device's share
 * from the mount table, and merges what has one FUNCTION and one share (or
 * server) into one summary.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <syslog.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/macro.h"
#include "base/hist.h"
#include "base/log.h"
#include "bpf/view.h"
#include "layers/cifs/shareview.h"
#include "sinks/journal.h"
#include "symbols/mounts.h"

/* What one key had at the last read. */
struct seen {
	struct share_key key;
	uint64_t count, total_ns, slow;
	uint64_t buckets[SMBLAT_NBUCKETS];
};

/* One summary being built: FUNCTION and label (a share or a server). */
struct row {
	const char *function;
	char label[SMBLAT_NAME_LEN * 2];
	struct summary s;
};

struct shareview {
	int ncpus;
	struct func_stats *pcpu;
	struct seen *seen;
	size_t n_seen, cap_seen;
	uint64_t *overflow_seen; /* per func id */
	uint64_t *pcpu_u64;
};

int shareview_new(struct shareview **ret)
{
	struct shareview *v = calloc(1, sizeof(*v));

	if (!v)
		return -ENOMEM;
	v->ncpus = libbpf_num_possible_cpus();
	if (v->ncpus <= 0) {
		free(v);
		return -EINVAL;
	}
	v->pcpu = calloc(v->ncpus, sizeof(*v->pcpu));
	v->pcpu_u64 = calloc(v->ncpus, sizeof(uint64_t));
	v->overflow_seen = calloc(SMBLAT_MAX_FUNCS, sizeof(uint64_t));
	if (!v->pcpu || !v->pcpu_u64 || !v->overflow_seen) {
		shareview_free(v);
		return -ENOMEM;
	}
	*ret = v;
	return 0;
}

void shareview_free(struct shareview *v)
{
	if (!v)
		return;
	free(v->pcpu);
	free(v->pcpu_u64);
	free(v->seen);
	free(v->overflow_seen);
	free(v);
}

void shareview_enable(const struct layer_env *env)
{
	__atomic_store_n(&probes_skel(env->probes)->bss->views.share_on, env->cfg->hist_per_share,
			 __ATOMIC_SEQ_CST);
}

void shareview_setup(struct smblat_bpf *skel, const struct config *c)
{
	if (c->hist_per_share_max)
		bpf_map__set_max_entries(skel->maps.share_view, c->hist_per_share_max);
}

static struct seen *seen_of(struct shareview *v, const struct share_key *k)
{
	struct seen *n;

	for (size_t i = 0; i < v->n_seen; i++)
		if (v->seen[i].key.func_id == k->func_id && v->seen[i].key.dev == k->dev)
			return &v->seen[i];
	if (v->n_seen == v->cap_seen) {
		size_t cap = v->cap_seen ? v->cap_seen * 2 : 64;

		n = realloc(v->seen, cap * sizeof(*n));
		if (!n)
			return NULL;
		v->seen = n;
		v->cap_seen = cap;
	}
	n = &v->seen[v->n_seen++];
	memset(n, 0, sizeof(*n));
	n->key = *k;
	return n;
}

/* What key added since the last read into s (min/max of the interval that ended). */
static int key_delta(struct shareview *v, int fd, const struct share_key *k, uint64_t ended,
		     struct summary *s)
{
	struct seen cur = { .key = *k }, *prev = seen_of(v, k);
	uint32_t slot = ended & 1;

	if (!prev)
		return -ENOMEM;
	if (bpf_map_lookup_elem(fd, k, v->pcpu) < 0)
		return -errno;
	hist_init(s);
	for (int c = 0; c < v->ncpus; c++) {
		const struct func_stats *p = &v->pcpu[c];

		cur.total_ns += p->total_ns;
		cur.slow += p->slow;
		for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
			cur.buckets[b] += p->hist[b];
		if (p->mm_epoch[slot] == ended) {
			if (p->min_ns[slot] < s->min_ns)
				s->min_ns = p->min_ns[slot];
			if (p->max_ns[slot] > s->max_ns)
				s->max_ns = p->max_ns[slot];
		}
	}
	/* the count is the histogram's sum, as for the function table */
	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
		cur.count += cur.buckets[b];
	s->count = cur.count - prev->count;
	s->total_ns = cur.total_ns - prev->total_ns;
	s->slow = cur.slow - prev->slow;
	for (unsigned int b = 0; b < SMBLAT_NBUCKETS; b++)
		s->buckets[b] = cur.buckets[b] - prev->buckets[b];
	if (!s->count)
		s->min_ns = UINT64_MAX, s->max_ns = 0;
	*prev = cur;
	return 0;
}

/* The row of FUNCTION and label, added when new; NULL without memory. */
static struct row *row_of(struct row **rows, size_t *n, const char *function, const char *label)
{
	struct row *v;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*rows)[i].function, function) == 0 && strcasecmp((*rows)[i].label, label) == 0)
			return &(*rows)[i];
	v = realloc(*rows, (*n + 1) * sizeof(*v));
	if (!v)
		return NULL;
	*rows = v;
	v = &v[(*n)++];
	v->function = function;
	snprintf(v->label, sizeof(v->label), "%s", label);
	hist_init(&v->s);
	return v;
}

/* "\\server\share" -> "server" */
static void server_of(const char *share, char *buf, size_t size)
{
	const char *p = share + strspn(share, "\\");

	snprintf(buf, size, "%.*s", (int)strcspn(p, "\\"), p);
}

static void rows_write(const struct row *rows, size_t n, enum layer_id layer, bool shares,
		       const struct summary_out *out, int width)
{
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		char server[SMBLAT_NAME_LEN * 2], label[SMBLAT_NAME_LEN * 3];
		struct record_field f[2];
		unsigned int nf = 0;

		if (!r->s.count)
			continue;
		if (shares) {
			server_of(r->label, server, sizeof(server));
			f[nf++] = (struct record_field) { "SMB_SHARE", (char *)r->label };
			f[nf++] = (struct record_field) { "SMB_SERVER", server };
		} else {
			f[nf++] = (struct record_field) { "SMB_SERVER", (char *)r->label };
		}
		if (out->journal) {
			journal_write_view_summary(
				out->journal, r->function, layer, &r->s, out->interval_s, f, nf,
				shares ? SMBLAT_MID_SHARE_SUMMARY : SMBLAT_MID_SERVER_SUMMARY);
			continue;
		}
		snprintf(label, sizeof(label), "%s %s", r->function, r->label);
		hist_print_table_row(out->table, &(struct func) { .name = label, .layer = layer }, &r->s,
				     width);
	}
}

/* The table's FUNCTION column for rows' "FUNCTION share" labels, at least width. */
static int rows_width(const struct row *rows, size_t n, int width)
{
	char label[SMBLAT_NAME_LEN * 3];

	for (size_t i = 0; i < n; i++)
		if (rows[i].s.count) {
			snprintf(label, sizeof(label), "%s %s", rows[i].function, rows[i].label);
			width = hist_table_width(width, label);
		}
	return width;
}

/* Calls of layer's FUNCTIONs the view had no room for, since the last call. */
static void overflow_report(struct shareview *v, const struct layer_env *env, enum layer_id layer)
{
	int fd = bpf_map__fd(probes_skel(env->probes)->maps.share_overflow);

	for (uint32_t id = 0; id < env->funcs->n && id < SMBLAT_MAX_FUNCS; id++) {
		uint64_t sum = 0;

		if (env->funcs->v[id].layer != layer || bpf_map_lookup_elem(fd, &id, v->pcpu_u64) < 0)
			continue;
		for (int c = 0; c < v->ncpus; c++)
			sum += v->pcpu_u64[c];
		if (sum > v->overflow_seen[id])
			log_layer(layer_name(layer), STATUS_AGENT_DEGRADED, REASON_NONE, LOG_NOTICE,
				  "per-share view full (per_share_max = %u "
				  "FUNCTION and share pairs): %llu %s of %s counted without their share",
				  env->cfg->hist_per_share_max,
				  (unsigned long long)(sum - v->overflow_seen[id]),
				  PLURAL(sum - v->overflow_seen[id], "call", "calls"),
				  env->funcs->v[id].name);
		v->overflow_seen[id] = sum;
	}
}

void shareview_summarize(struct shareview *v, const struct layer_env *env, enum layer_id layer,
			 const struct summary_out *out)
{
	int fd = bpf_map__fd(probes_skel(env->probes)->maps.share_view);
	uint64_t ended = probes_epoch(env->probes) - 1;
	struct row *shares = NULL, *servers = NULL;
	size_t n_shares = 0, n_servers = 0;
	struct share_key k, last, *prev = NULL;
	char server[SMBLAT_NAME_LEN * 2];
	int width = HIST_TABLE_WIDTH;
	struct summary s;

	if (!env->cfg->hist_per_share)
		return;
	while (bpf_map_get_next_key(fd, prev, &k) == 0) {
		const struct func *f = k.func_id < env->funcs->n ? &env->funcs->v[k.func_id] : NULL;
		const char *share;
		struct row *r;

		last = k;
		prev = &last;
		if (!f || f->layer != layer || key_delta(v, fd, &k, ended, &s) < 0 || !s.count)
			continue;
		share = mounts_share(env->mounts, k.dev);
		if (!share)
			continue; /* unmounted since */
		r = row_of(&shares, &n_shares, f->name, share);
		if (r)
			hist_merge(&r->s, &s);
		server_of(share, server, sizeof(server));
		r = row_of(&servers, &n_servers, f->name, server);
		if (r)
			hist_merge(&r->s, &s);
	}
	if (!out->journal && n_shares) {
		width = rows_width(shares, n_shares, rows_width(servers, n_servers, HIST_TABLE_WIDTH));
		fprintf(out->table, "\nper share and server:\n");
		hist_print_table_header(out->table, width);
	}
	rows_write(shares, n_shares, layer, true, out, width);
	rows_write(servers, n_servers, layer, false, out, width);
	if (!out->journal && n_shares)
		fflush(out->table);
	overflow_report(v, env, layer);
	free(shares);
	free(servers);
}
