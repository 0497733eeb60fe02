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
#include <strings.h>
#include <syslog.h>
#include <bpf/btf.h>

#include "core/agent-int.h"
#include "layers/block.h"

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
	*ret = major << 20 | minor;
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
	struct block_cfg bc = {
		.rq_arg = rq_arg(vmlinux),
		.queue_time = c->block_queue_time,
	};
	int r;

	for (size_t i = 0; c->block_disks && c->block_disks[i]; i++) {
		if (bc.n_devs == BLOCK_MAX_DISKS)
			return -E2BIG;
		r = disk_dev(sysfs ? sysfs : "/sys", c->block_disks[i], &bc.devs[bc.n_devs]);
		if (r < 0) {
			fprintf(stderr, "smblat: block: disks = %s: no such block device (%s)\n",
				c->block_disks[i], strerror(-r));
			return -ENODEV;
		}
		bc.n_devs++;
	}
	*ret = bc;
	return 0;
}

static bool name_in(char **list, const char *name)
{
	for (; list && *list; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

static bool op_wanted(const struct layer_config *l, const char *name)
{
	if (l->include && l->include[0] && !name_in(l->include, name))
		return false;
	return !name_in(l->exclude, name);
}

/* Every op gets its id, wanted or not, so that excluded ones are still listed. */
static int block_funcs_add(struct agent *a, struct func **fv)
{
	const struct layer_config *l = &a->cfg->layer[LAYER_BLOCK];
	char name[SMBLAT_NAME_LEN];

	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++) {
		struct func *f;
		int id;

		snprintf(name, sizeof(name), "BLOCK_%s", op_names[op]);
		id = func_table_add(&a->funcs, LAYER_BLOCK, GROUP_NONE, name, NULL, NULL);
		if (id < 0)
			return id;
		f = &a->funcs.v[id];
		f->cfg.threshold_ns = config_layer_threshold_ns(a->cfg, LAYER_BLOCK);
		if (op_wanted(l, name))
			f->cfg.flags = FF_ENABLED;
		else
			f->missing = strdup("excluded by [block] include/exclude");
		probes_update(a->probes, f);
		probes_set_block_id(a->probes, op, id);
		fv[op] = f;
	}
	return 0;
}

static void block_fail(struct agent *a, struct func **fv, const char *why)
{
	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++) {
		if (!fv[op] || fv[op]->missing)
			continue;
		fv[op]->missing = strdup(why);
		fv[op]->cfg.flags &= ~FF_ENABLED;
		probes_update(a->probes, fv[op]);
	}
	agent_status(a, LOG_WARNING, "block: layer unavailable: %s", why);
}

void block_attach(struct agent *a)
{
	/* Complete before issue: an issue without its completion would only fill the map. */
	static const char *const tps[] = { "block_rq_complete", "block_rq_issue", "block_rq_insert" };
	struct func *fv[_BLOCK_OP_MAX] = {};
	unsigned int n_tps = a->cfg->block_queue_time ? 3 : 2, n = 0;
	char why[256];
	int be = BACKEND_NONE, r;

	r = block_funcs_add(a, fv);
	if (r < 0) {
		agent_status(a, LOG_WARNING, "block: cannot add functions: %s", strerror(-r));
		return;
	}
	for (unsigned int i = 0; i < n_tps; i++) {
		r = probes_attach_tracepoint(a->probes, tps[i]);
		if (r < 0) {
			const char *tw = probes_tp_btf_why(a->probes);

			snprintf(why, sizeof(why), "%s: %s%s%s", tps[i], strerror(-r),
				 tw ? "; " : "", tw ? tw : "");
			block_fail(a, fv, why);
			return;
		}
		/* raw_tp after a refused tp_btf: the earlier ones stay as they are, both work */
		if (be == BACKEND_NONE || r == BACKEND_RAW_TP)
			be = r;
	}
	for (uint32_t op = 0; op < _BLOCK_OP_MAX; op++) {
		if (fv[op]->missing)
			continue;
		fv[op]->backend = be;
		n++;
	}
	agent_status(a, LOG_INFO, "block: %u request ops timed from %s to completion (%s)%s",
		     n, a->cfg->block_queue_time ? "insert" : "issue", backend_name(be),
		     a->cfg->block_disks ? ", disks filtered" : "");
}
