// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one table of layers: adding a layer is its module and one entry here. */
#include <stdarg.h>
#include <stdlib.h>
#include <syslog.h>

#include "base/log.h"
#include "layers/layer.h"

extern const struct layer_ops smb_layer, smb2_layer, block_layer, func_layer, smbd_layer;

const struct layer_ops *const layer_table[_LAYER_MAX] = {
	[LAYER_SMB] = &smb_layer,
	[LAYER_SMB2] = &smb2_layer,
	[LAYER_BLOCK] = &block_layer,
	[LAYER_FUNC] = &func_layer,
	[LAYER_SMBD] = &smbd_layer,
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
