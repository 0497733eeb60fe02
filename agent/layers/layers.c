// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one table of layers: adding a layer is its module and one entry here. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "base/log.h"
#include "decode/event.h"
#include "layers/layer.h"
#include "probes/inflight.h"
#include "symbols/kmodules.h"
#include "base/clock.h"

extern const struct layer_ops smb_layer, smb2_layer, block_layer, func_layer, smbd_layer, syscalls_layer,
	profile_layer;

const struct layer_ops *const layer_table[_LAYER_MAX] = {
	[LAYER_SMB] = &smb_layer,         [LAYER_SMB2] = &smb2_layer, [LAYER_BLOCK] = &block_layer,
	[LAYER_FUNC] = &func_layer,       [LAYER_SMBD] = &smbd_layer, [LAYER_SYSCALLS] = &syscalls_layer,
	[LAYER_PROFILE] = &profile_layer,
};

int layers_decode(const struct layer_env *env, const void *data, size_t size, struct record *r)
{
	const struct rec_head *h = data;
	int err = event_decode_head(env->dec, data, size, r);

	if (err < 0)
		return err;
	if (h->kind >= _REC_KIND_MAX)
		return -EINVAL;
	if (h->kind == REC_CALL)
		return event_decode_call(env->dec, data, size, r);
	for (int l = 0; l < _LAYER_MAX; l++)
		if (layer_table[l]->records & REC_BIT(h->kind))
			return layer_table[l]->decode(env, h, size, r);
	return -EINVAL;
}

/* A warning when enabled, a notice when auto: the machine lacks what it traces. */
const char *layer_say(const char *layer, enum status_kind kind, enum status_reason why, char *buf,
		      size_t size, const char *fmt, ...)
{
	bool off = kind == STATUS_LAYER_OFF;
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, size, fmt, ap);
	va_end(ap);
	log_layer(layer, kind, why, off ? LOG_NOTICE : LOG_WARNING, "%s: %s",
		  off ? "layer off (enabled = auto)" : "layer unavailable", buf);
	return buf;
}

const char *layer_cifs_missing(const char *layer, const struct layer_env *env, char *buf, size_t size)
{
	const char *backend_why = NULL;
	bool none;

	if (kmodule_known("cifs"))
		return NULL;
	none = probes_kernel_backend(env->probes, &backend_why) == BACKEND_NONE;
	return layer_off(layer, REASON_NO_MODULE, buf, size,
			 "no cifs module on this kernel (loaded or in /lib/modules)%s%s",
			 none ? "; no backend for kernel functions either: " : "",
			 none && backend_why ? backend_why : "");
}

enum status_reason layer_func_reason(const struct func *f)
{
	switch (f->state) {
	case FUNC_PENDING:
		return REASON_MODULE_NOT_LOADED;
	case FUNC_ATTACHED:
		return REASON_NONE;
	case FUNC_NO_BACKEND:
		return REASON_NO_BACKEND;
	case FUNC_NOT_FOUND:
		return REASON_NOT_FOUND;
	case FUNC_UNLOADED:
		return REASON_MODULE_UNLOADED;
	case FUNC_DISABLED:
	case FUNC_REMOVED:
	case FUNC_EXCLUDED:
		return REASON_DISABLED;
	case FUNC_DUPLICATE:
		return REASON_CONFIG_INVALID;
	case FUNC_FAILED:
	case FUNC_UNUSABLE:
	default:
		return REASON_ATTACH_FAILED;
	}
}

void layer_list_row(FILE *out, const char *function, enum layer_id l, const char *target, const char *backend,
		    const char *status)
{
	fprintf(out, "%-28s %-6s %-36s %-14s %s\n", function, layer_name(l), target, backend, status);
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

int layer_sweep(const struct layer_env *env, const char *layer, struct bpf_map *table,
		struct inflight_sweep *s, const char *why,
		void (*describe)(void *userdata, char *buf, size_t size))
{
	char detail[512] = "";
	int n;

	s->now_ns = now_ns();
	n = probes_sweep(table, s);
	if (n < 0) {
		log_layer(layer, STATUS_AGENT_DEGRADED, REASON_SYSTEM, LOG_WARNING,
			  "cannot sweep the requests in flight: %s", strerror(-n));
		return n;
	}
	if (n == 0)
		return 0;
	if (describe)
		describe(s->userdata, detail, sizeof(detail));
	log_layer(layer, STATUS_AGENT_DEGRADED, REASON_SYSTEM, LOG_WARNING,
		  "%d request%s dropped from the in-flight table, %s%s%s", n, n == 1 ? "" : "s", why,
		  detail[0] ? ": " : "", detail);
	return n;
}
