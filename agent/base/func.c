// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/func.h"

/* The one table of layer names: FUNCTION entries, [sections], --layers. */
const char *const layer_names[_LAYER_MAX] = {
	[LAYER_SMB] = "smb",         [LAYER_SMB2] = "smb2", [LAYER_BLOCK] = "block",
	[LAYER_FUNC] = "func",       [LAYER_SMBD] = "smbd", [LAYER_SYSCALLS] = "syscalls",
	[LAYER_PROFILE] = "profile",
};

static const char *const backend_names[_BACKEND_MAX] = {
	[BACKEND_NONE] = "none",
	[BACKEND_FENTRY] = "fentry",
	[BACKEND_KPROBE_MULTI] = "kprobe-multi",
	[BACKEND_KPROBE] = "kprobe",
	[BACKEND_UPROBE] = "uprobe",
	[BACKEND_USDT] = "usdt",
	[BACKEND_TRACEPOINT] = "tracepoint",
	[BACKEND_TP_BTF] = "tp_btf",
	[BACKEND_RAW_TP] = "raw_tp",
	[BACKEND_UPROBE_MULTI] = "uprobe-multi",
	[BACKEND_UPROBE_SESSION] = "uprobe-session",
	[BACKEND_PERF_EVENT] = "perf-event",
};

/* [smb] groups=, --inode/--file/...; GROUP_NONE is no group one could select. */
const char *const op_group_names[_GROUP_MAX] = {
	[GROUP_INODE] = "inode",
	[GROUP_FILE] = "file",
	[GROUP_ADSPACE] = "adspace",
	[GROUP_SUPER] = "super",
};

const char *layer_name(enum layer_id l)
{
	return l < _LAYER_MAX ? layer_names[l] : "?";
}

int layer_from_name(const char *s)
{
	for (int i = 0; i < _LAYER_MAX; i++)
		if (strcmp(s, layer_names[i]) == 0)
			return i;
	return -EINVAL;
}

const char *backend_name(enum backend b)
{
	return b < _BACKEND_MAX ? backend_names[b] : "?";
}

const char *group_name(enum op_group g)
{
	return g > GROUP_NONE && g < _GROUP_MAX ? op_group_names[g] : "none";
}

int group_from_name(const char *s)
{
	for (int i = GROUP_NONE + 1; i < _GROUP_MAX; i++)
		if (strcmp(s, op_group_names[i]) == 0)
			return i;
	return -EINVAL;
}

int func_table_add(struct func_table *t, enum layer_id layer, enum op_group group, const char *name,
		   const char *symbol, const char *module)
{
	struct func *f;

	if (t->n >= SMBLAT_MAX_FUNCS)
		return -E2BIG;
	/*
	 * Allocated once at full size: callers keep struct func pointers while
	 * adding more (late cifs attach), so the table must never move.
	 */
	if (!t->v) {
		t->v = calloc(SMBLAT_MAX_FUNCS, sizeof(*t->v));
		if (!t->v)
			return -ENOMEM;
		t->cap = SMBLAT_MAX_FUNCS;
	}
	f = &t->v[t->n];
	*f = (struct func) {
		.id = t->n,
		.layer = layer,
		.group = group,
		.name = strdup(name),
		.symbol = symbol ? strdup(symbol) : NULL,
		.module = module ? strdup(module) : NULL,
	};
	if (!f->name || (symbol && !f->symbol) || (module && !f->module)) {
		free(f->name);
		free(f->symbol);
		free(f->module);
		return -ENOMEM;
	}
	return t->n++;
}

struct func *func_table_find_symbol(struct func_table *t, const char *symbol)
{
	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].symbol && strcmp(t->v[i].symbol, symbol) == 0)
			return &t->v[i];
	return NULL;
}

void func_table_free(struct func_table *t)
{
	for (uint32_t i = 0; i < t->n; i++) {
		free(t->v[i].name);
		free(t->v[i].symbol);
		free(t->v[i].module);
		free(t->v[i].detail);
	}
	free(t->v);
	*t = (struct func_table) {};
}

static const char *const state_texts[_FUNC_STATE_MAX] = {
	[FUNC_PENDING] = "not attached yet",
	[FUNC_ATTACHED] = "attached",
	[FUNC_FAILED] = "attach failed",
	[FUNC_NO_BACKEND] = "no backend on this kernel",
	[FUNC_NOT_FOUND] = "not found",
	[FUNC_UNLOADED] = "module unloaded",
	[FUNC_DISABLED] = "disabled by reload",
	[FUNC_REMOVED] = "removed by reload",
	[FUNC_EXCLUDED] = "excluded by include/exclude",
	[FUNC_UNUSABLE] = "not usable",
	[FUNC_DUPLICATE] = "traced by another probe",
};

void func_set_state(struct func *f, enum func_state s, const char *fmt, ...)
{
	va_list ap;

	free(f->detail);
	f->detail = NULL;
	f->state = s;
	if (s != FUNC_ATTACHED)
		f->backend = BACKEND_NONE;
	if (!fmt)
		return;
	va_start(ap, fmt);
	if (vasprintf(&f->detail, fmt, ap) < 0)
		f->detail = NULL;
	va_end(ap);
}

void func_set_attached(struct func *f, enum backend b)
{
	func_set_state(f, FUNC_ATTACHED, NULL);
	f->backend = b;
}

const char *func_state_text(const struct func *f, char *buf, size_t size)
{
	const char *s = f->state < _FUNC_STATE_MAX ? state_texts[f->state] : "?";

	if (!f->detail)
		return s;
	/* the detail alone when it says it all ("kprobe: No such file or directory") */
	if (f->state == FUNC_FAILED || f->state == FUNC_NO_BACKEND || f->state == FUNC_UNUSABLE ||
	    f->state == FUNC_DUPLICATE || f->state == FUNC_NOT_FOUND || f->state == FUNC_UNLOADED ||
	    f->state == FUNC_PENDING)
		snprintf(buf, size, "%s", f->detail);
	else
		snprintf(buf, size, "%s: %s", s, f->detail);
	return buf;
}

uint32_t func_table_attached(const struct func_table *t, int l)
{
	uint32_t n = 0;

	for (uint32_t i = 0; i < t->n; i++)
		n += func_attached(&t->v[i]) && (l < 0 || t->v[i].layer == (enum layer_id)l);
	return n;
}

struct func *func_table_find_or_add(struct func_table *t, enum layer_id layer, const char *name,
				    const char *symbol, const char *module)
{
	int id;

	for (uint32_t i = 0; i < t->n; i++)
		if (t->v[i].layer == layer && strcmp(t->v[i].name, name) == 0 &&
		    strcmp(t->v[i].symbol ? t->v[i].symbol : "", symbol ? symbol : "") == 0)
			return &t->v[i];
	id = func_table_add(t, layer, GROUP_NONE, name, symbol, module);
	return id < 0 ? NULL : &t->v[id];
}
