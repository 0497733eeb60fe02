// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one table of layers: adding a layer is its module and one entry here. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/log.h"
#include "layers/layer.h"
#include "probes/inflight.h"

extern const struct layer_ops smb_layer, smb2_layer, block_layer, func_layer, smbd_layer,
	syscalls_layer;

const struct layer_ops *const layer_table[_LAYER_MAX] = {
	[LAYER_SMB] = &smb_layer,
	[LAYER_SMB2] = &smb2_layer,
	[LAYER_BLOCK] = &block_layer,
	[LAYER_FUNC] = &func_layer,
	[LAYER_SMBD] = &smbd_layer,
	[LAYER_SYSCALLS] = &syscalls_layer,
};

const char *layer_unavailable(const char *layer, char *buf, size_t size, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	log_layer(layer, LOG_WARNING, "layer unavailable: %s", buf);
	return buf;
}

void layer_list_row(FILE *out, const char *function, enum layer_id l, const char *target,
		    const char *backend, const char *status)
{
	fprintf(out, "%-28s %-6s %-36s %-13s %s\n", function, layer_name(l), target, backend, status);
}

struct layer *layer_new(enum layer_id id, const struct layer_env *env)
{
	const struct layer_ops *ops = layer_table[id];
	struct layer *l = calloc(1, ops->size);

	if (!l)
		return NULL;
	/* every struct layer begins with its env */
	*(const struct layer_env **)l = env;
	if (ops->init && ops->init(l) < 0) {
		free(l);
		return NULL;
	}
	return l;
}

void layer_free(enum layer_id id, struct layer *l)
{
	if (!l)
		return;
	if (layer_table[id]->free)
		layer_table[id]->free(l);
	free(l);
}

int layer_sweep(const struct layer_env *env, const char *layer, enum inflight_table t,
		struct inflight_sweep *s, const char *why,
		void (*describe)(void *userdata, char *buf, size_t size))
{
	char detail[512] = "";
	int n;

	s->now_ns = inflight_now();
	n = probes_sweep(env->probes, t, s);
	if (n < 0) {
		log_layer(layer, LOG_WARNING, "cannot sweep the requests in flight: %s", strerror(-n));
		return n;
	}
	if (n == 0)
		return 0;
	if (describe)
		describe(s->userdata, detail, sizeof(detail));
	log_layer(layer, LOG_WARNING, "%d request%s dropped from the in-flight table, %s%s%s", n,
		  n == 1 ? "" : "s", why, detail[0] ? ": " : "", detail);
	return n;
}
