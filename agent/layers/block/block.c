// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The block layer: requests timed from issue (or insert) to completion by
 * tracepoint programs (bpf/block.bpf.h). Each request op is a function id
 * of its own, so counters, histograms and summaries work as for any probe.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <bpf/btf.h>

#include "base/log.h"
#include "layers/block/block.h"
#include "layers/layer.h"
#include "layers/block/settings.h"
#include "layers/smbd/settings.h"
#include "probes/inflight.h"
#include "base/macro.h"

static const char *const op_names[_BLOCK_OP_MAX] = {
	[BLOCK_OP_READ] = "READ",
	[BLOCK_OP_WRITE] = "WRITE",
	[BLOCK_OP_FLUSH] = "FLUSH",
	[BLOCK_OP_DISCARD] = "DISCARD",
	[BLOCK_OP_SECURE_ERASE] = "SECURE_ERASE",
	[BLOCK_OP_WRITE_ZEROES] = "WRITE_ZEROES",
	[BLOCK_OP_ZONE_APPEND] = "ZONE_APPEND",
	[BLOCK_OP_ZONE_OPEN] = "ZONE_OPEN",
	[BLOCK_OP_ZONE_CLOSE] = "ZONE_CLOSE",
	[BLOCK_OP_ZONE_FINISH] = "ZONE_FINISH",
	[BLOCK_OP_ZONE_RESET] = "ZONE_RESET",
	[BLOCK_OP_ZONE_RESET_ALL] = "ZONE_RESET_ALL",
	[BLOCK_OP_DRV_IN] = "DRV_IN",
	[BLOCK_OP_DRV_OUT] = "DRV_OUT",
	[BLOCK_OP_OTHER] = "OTHER",
};

const char *block_op_name(uint32_t op)
{
	return op < _BLOCK_OP_MAX ? op_names[op] : "OTHER";
}

/* "7:3\n" in /sys/class/block/NAME/dev -> the kernel's dev_t encoding. */
static int disk_dev(const char *sysfs, const char *name, uint32_t *ret)
{
	char path[512];
	unsigned int major, minor;
	FILE *f;
	int n;

	snprintf(path, sizeof(path), "%s/class/block/%s/dev", sysfs, name);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	n = fscanf(f, "%u:%u", &major, &minor);
	fclose(f);
	if (n != 2)
		return -EINVAL;
	*ret = smblat_kdev(major, minor);
	return 0;
}

/* Before 5.11 block_rq_issue/insert had (q, rq); the BTF typedef tells which. */
static uint32_t rq_arg(const struct btf *btf)
{
	const struct btf_type *t;
	int id;

	if (!btf)
		return 0;
	id = btf__find_by_name_kind(btf, "btf_trace_block_rq_issue", BTF_KIND_TYPEDEF);
	if (id < 0)
		return 0;
	t = btf__type_by_id(btf, btf__resolve_type(btf, id));
	if (!t || !btf_is_ptr(t))
		return 0;
	t = btf__type_by_id(btf, t->type);
	/* the first parameter is the tracepoint's void *data */
	return t && btf_is_func_proto(t) && btf_vlen(t) == 3 ? 1 : 0;
}

int block_cfg_build(const struct config *c, const struct btf *vmlinux, const char *sysfs,
		    struct block_cfg *ret)
{
	char **disks = block_settings(c)->disks;
	struct block_cfg bc = {
		.rq_arg = rq_arg(vmlinux),
		.queue_time = block_settings(c)->queue_time,
	};
	int r;

	for (size_t i = 0; disks && disks[i]; i++) {
		if (bc.n_devs == BLOCK_MAX_DISKS)
			return -E2BIG;
		r = disk_dev(sysfs ? sysfs : "/sys", disks[i], &bc.devs[bc.n_devs]);
		if (r < 0) {
			log_layer("block", STATUS_LAYER_UNAVAILABLE, REASON_NOT_FOUND, LOG_ERR,
				  "disks = %s: no such block device (%s)", disks[i], strerror(-r));
			return -ENODEV;
		}
		bc.n_devs++;
	}
	*ret = bc;
	return 0;
}

#define NAME "block"

/*
 * enabled = auto: on an SMB server (there is an smbd), where the disks
 * under the shares are what tells a slow server from a slow network (the
 * smbd layer says how long smbd took, this one how much of it the disk);
 * on a client the local disks have little to do with SMB latency and would
 * only add entries.
 */
static bool block_wanted_auto(const struct config *c)
{
	char *smbd = smbd_settings_binary(c);
	bool found = smbd;

	free(smbd);
	return found;
}

/*
 * Completion first: an issue without its completion would only fill the
 * map; block_rq_insert last, attached only for queue_time.
 */
static const char *const tracepoints[] = {
	"block_rq_complete",
	"block_rq_requeue",
	"block_rq_issue",
	"block_rq_insert",
};
/* Where writes that only flush begin (6.5 on); without it they go unseen. */
#define TP_IO_START "block_io_start"

/*
 * A request in flight this long never completes (its queue went away, or
 * a driver ended it its own way): drivers time out and retry in minutes.
 */
#define STALE_NS (10 * 60 * NSEC_PER_SEC)
#define STALE_WORDS "10 min"

struct layer {
	const struct layer_env *env;
	struct func *ops[_BLOCK_OP_MAX];
	enum backend backend; /* of the tracepoints, BACKEND_NONE: not attached */
	bool io_start;        /* TP_IO_START attached */
	bool off;             /* enabled = auto on a machine that serves no SMB */
	char why[256];
	struct block_cfg cfg; /* what BPF reads of [block], set at prepare */
};

/* The layer's programs (bpf/block.bpf.c): each tracepoint BTF-typed and raw. */
static const struct prog_spec block_progs[] = {
	PROG(blk_insert_btf, PROG_TP_BTF),   PROG(blk_insert_raw, PROG_PLAIN),
	PROG(blk_issue_btf, PROG_TP_BTF),    PROG(blk_issue_raw, PROG_PLAIN),
	PROG(blk_complete_btf, PROG_TP_BTF), PROG(blk_complete_raw, PROG_PLAIN),
	PROG(blk_requeue_btf, PROG_TP_BTF),  PROG(blk_requeue_raw, PROG_PLAIN),
	PROG(blk_io_start_btf, PROG_TP_BTF), PROG(blk_io_start_raw, PROG_PLAIN),
};

/* disks= and where the request sits in the tracepoints' arguments, read-only in BPF. */
static void block_setup(struct smblat_bpf *skel, void *arg)
{
	const struct layer *l = arg;

	skel->rodata->block_cfg = l->cfg;
}

static const struct prog_unit block_unit = {
	.name = "block",
	.progs = block_progs,
	.n = ELEMENTSOF(block_progs),
	.tracepoints = true,
	.setup = block_setup,
};

static void op_configure(struct layer *l, struct func *f)
{
	f->cfg = (struct func_cfg) { .threshold_ns = config_layer_threshold_ns(l->env->cfg, LAYER_BLOCK) };
	if (config_wants(l->env->cfg, LAYER_BLOCK, f->name))
		f->cfg.flags = FF_ENABLED;
	probes_update(l->env->probes, f);
}

/* Every op gets its id, wanted or not, so that excluded ones are still listed. */
static int ops_add(struct layer *l)
{
	char name[SMBLAT_NAME_LEN];

	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++) {
		int id;

		if (l->ops[op])
			continue;
		snprintf(name, sizeof(name), "BLOCK_%s", op_names[op]);
		/* the target column of --list-probes: what times the request */
		id = func_table_add(l->env->funcs, LAYER_BLOCK, GROUP_NONE, name,
				    block_settings(l->env->cfg)->queue_time ?
					    "block_rq_insert..block_rq_complete" :
					    "block_rq_issue..block_rq_complete",
				    NULL);
		if (id < 0)
			return id;
		l->ops[op] = &l->env->funcs->v[id];
		l->ops[op]->kernel = true;
		probes_route(probes_skel(l->env->probes)->maps.blk_ids, op, id);
	}
	return 0;
}

/* Attached ops follow the configuration: enabled and attached, or excluded. */
static void ops_mark(struct layer *l)
{
	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++) {
		op_configure(l, l->ops[op]);
		if (!(l->ops[op]->cfg.flags & FF_ENABLED))
			func_set_state(l->ops[op], FUNC_EXCLUDED, NULL);
		else
			func_set_attached(l->ops[op], l->backend);
	}
}

static void block_attach(struct layer *l)
{
	struct status s = { .kind = STATUS_LAYER_ATTACHED, .priority = LOG_INFO, .layer = NAME };
	unsigned int n_tps = ELEMENTSOF(tracepoints) - !block_settings(l->env->cfg)->queue_time;
	int r;

	l->off = false;
	if (l->env->cfg->layer[LAYER_BLOCK].automatic && !block_wanted_auto(l->env->cfg)) {
		l->off = true;
		layer_off(NAME, REASON_NO_BINARY, l->why, sizeof(l->why),
			  "no smbd on this machine: block I/O is traced on SMB servers, "
			  "elsewhere with enabled = yes");
		return;
	}
	r = ops_add(l);
	if (r < 0) {
		snprintf(l->why, sizeof(l->why), "cannot add functions: %s", strerror(-r));
		log_layer(NAME, STATUS_LAYER_UNAVAILABLE, REASON_SYSTEM, LOG_WARNING, "layer unavailable: %s",
			  l->why);
		return;
	}
	if (!probes_unit_loaded(l->env->probes, &block_unit)) {
		snprintf(l->why, sizeof(l->why), "its programs were not loaded at start: restart smblat");
		log_layer(NAME, STATUS_LAYER_UNAVAILABLE, REASON_RESTART_NEEDED, LOG_WARNING,
			  "enabled by reload: takes effect at the next start");
		return;
	}
	for (unsigned int i = 0; i < n_tps; i++) {
		r = probes_attach_tracepoint(l->env->probes, &block_unit, tracepoints[i]);
		if (r < 0) {
			const char *tw = probes_tp_btf_why(l->env->probes);

			snprintf(l->why, sizeof(l->why), "%s: %s%s%s", tracepoints[i], strerror(-r),
				 tw ? "; " : "", tw ? tw : "");
			for (unsigned int j = 0; j < i; j++)
				probes_detach_tracepoint(l->env->probes, &block_unit, tracepoints[j]);
			for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++)
				func_set_state(l->ops[op], FUNC_FAILED, "%s", l->why);
			log_layer(NAME, STATUS_LAYER_UNAVAILABLE,
				  r == -ENOENT ? REASON_NOT_FOUND : REASON_ATTACH_FAILED, LOG_WARNING,
				  "layer unavailable: %s", l->why);
			return;
		}
		/* raw_tp after a refused tp_btf: the earlier ones stay as they are, both work */
		if (l->backend == BACKEND_NONE || r == BACKEND_RAW_TP)
			l->backend = r;
	}
	l->io_start = probes_attach_tracepoint(l->env->probes, &block_unit, TP_IO_START) >= 0;
	l->why[0] = '\0';
	ops_mark(l);
	status_count_set(&s, COUNT_ATTACHED, func_table_attached(l->env->funcs, LAYER_BLOCK));
	status_count_set(&s, COUNT_NOT_ATTACHED, 0);
	log_emit(&s, "%u request ops timed from %s to completion (%s)%s%s",
		 func_table_attached(l->env->funcs, LAYER_BLOCK),
		 block_settings(l->env->cfg)->queue_time ? "insert" : "issue", backend_name(l->backend),
		 block_settings(l->env->cfg)->disks ? ", disks filtered" : "",
		 l->io_start ? "" :
			       "; no " TP_IO_START " (before Linux 6.5): writes that only "
			       "flush are not seen");
}

static void block_apply(struct layer *l, const struct config *old, struct reload_counts *n)
{
	uint32_t before = func_table_attached(l->env->funcs, LAYER_BLOCK), after;

	if (l->backend == BACKEND_NONE)
		return;
	ops_mark(l);
	after = func_table_attached(l->env->funcs, LAYER_BLOCK);
	if (after > before)
		n->attached += after - before;
	else
		n->detached += before - after;
}

static unsigned int block_detach(struct layer *l, enum func_state why)
{
	unsigned int n = func_table_attached(l->env->funcs, LAYER_BLOCK);

	for (unsigned int i = 0; i < ELEMENTSOF(tracepoints); i++)
		probes_detach_tracepoint(l->env->probes, &block_unit, tracepoints[i]);
	probes_detach_tracepoint(l->env->probes, &block_unit, TP_IO_START);
	l->io_start = false;
	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++)
		if (l->ops[op])
			probes_detach(l->env->probes, l->ops[op], why, NULL);
	l->backend = BACKEND_NONE;
	return n;
}

/* A request (REC_BLOCK): DISK, OP, BYTES, SECTOR, QUEUE_US, and its place. */
static int block_decode(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r)
{
	const struct rec_block *b = (const struct rec_block *)h;
	const char *name = r->func->name;
	char sector[40] = "", queue[40] = "";

	if (size < sizeof(*b))
		return -EINVAL;
	record_add(r, "DISK", "%.*s", BLOCK_DISK_LEN, b->disk[0] ? b->disk : "?");
	/* BLOCK_WRITE -> OP=WRITE; ops this build has no name for keep their number */
	if (strcmp(name, "BLOCK_OTHER") == 0 || strncmp(name, "BLOCK_", 6) != 0)
		record_add(r, "OP", "%u", b->op);
	else
		record_add(r, "OP", "%s", name + 6);
	record_add(r, "BYTES", "%u", b->bytes);
	/* flushes have no sector */
	if (b->sector != UINT64_MAX) {
		record_add(r, "SECTOR", "%llu", (unsigned long long)b->sector);
		snprintf(sector, sizeof(sector), " at sector %llu", (unsigned long long)b->sector);
	}
	if (h->flags & RF_BLOCK_QUEUE) {
		record_add(r, "QUEUE_US", "%llu", (unsigned long long)b->queue_ns / 1000);
		snprintf(queue, sizeof(queue), ", queued %llu.%03llu ms",
			 (unsigned long long)b->queue_ns / 1000000,
			 (unsigned long long)b->queue_ns / 1000 % 1000);
	}
	return record_set_place(r, "%s, %u bytes%s%s", record_field(r, "DISK"), b->bytes, sector, queue);
}

struct swept {
	struct layer *l;
	unsigned int per_op[_BLOCK_OP_MAX];
};

static void on_swept(const void *key, const void *value, void *userdata)
{
	struct swept *w = userdata;
	struct blk_start h;

	memcpy(&h, value, sizeof(h));
	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++)
		if (w->l->ops[op] && w->l->ops[op]->id == h.func_id)
			w->per_op[op]++;
}

/* "BLOCK_WRITE 2, BLOCK_FLUSH 1" */
static void describe_swept(void *userdata, char *buf, size_t size)
{
	const struct swept *w = userdata;
	size_t len = 0;

	for (uint32_t op = 0; op < _BLOCK_OP_MAX && len < size; op++)
		if (w->per_op[op])
			len += snprintf(buf + len, size - len, "%s%s %u", len ? ", " : "",
					w->l->ops[op]->name, w->per_op[op]);
}

/* Entries of requests that never completed go, and are said. */
static void block_watch(struct layer *l)
{
	struct swept w = { .l = l };
	struct inflight_sweep s = { .max_age_ns = STALE_NS, .swept = on_swept, .userdata = &w };

	if (l->backend != BACKEND_NONE)
		layer_sweep(l->env, NAME, probes_skel(l->env->probes)->maps.blk_inflight, &s,
			    "not completed in " STALE_WORDS, describe_swept);
}

static enum layer_state block_state(struct layer *l, const char **why)
{
	if (l->backend != BACKEND_NONE)
		return LAYER_ACTIVE;
	*why = l->why[0] ? l->why : "not attached";
	return l->off ? LAYER_OFF : LAYER_UNAVAILABLE;
}

static int block_prepare(struct layer *l, struct probes_opts *po)
{
	const struct config *c = l->env->cfg;
	int r;

	/* disks= lives in read-only data: enabling the layer takes a restart */
	if (!c->layer[LAYER_BLOCK].enabled || (c->layer[LAYER_BLOCK].automatic && !block_wanted_auto(c)))
		return 0;
	r = block_cfg_build(c, btfs_get(l->env->btfs, NULL), NULL, &l->cfg);
	if (r < 0)
		return r;
	return probes_opts_want(po, &block_unit, l);
}

static uint32_t block_ids_needed(const struct config *c)
{
	return _BLOCK_OP_MAX;
}

/* Its column of --breakdown. */
static const struct breakdown_column block_column = { "block", "BREAKDOWN_BLOCK", 80 };

/* --breakdown without --layers: every disk's requests. */
static int block_breakdown(struct config *c, bool layers_given)
{
	if (!layers_given) {
		c->layer[LAYER_BLOCK].enabled = true;
		c->layer[LAYER_BLOCK].automatic = false;
	}
	return 0;
}

const struct layer_ops block_layer = {
	.columns = &block_column,
	.n_columns = 1,
	.breakdown = block_breakdown,
	.id = LAYER_BLOCK,
	.config = &block_settings_section,
	.traces = "block I/O requests",
	.ids_needed = block_ids_needed,
	.prepare = block_prepare,
	.unit = &block_unit,
	.size = sizeof(struct layer),
	.attach = block_attach,
	.apply = block_apply,
	.detach = block_detach,
	.watch = block_watch,
	.records = REC_BIT(REC_BLOCK),
	.decode = block_decode,
	.state = block_state,
};
