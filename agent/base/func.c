// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/func.h"

static const char *const layer_names[_LAYER_MAX] = {
	[LAYER_SMB] = "smb",
	[LAYER_SMB2] = "smb2",
	[LAYER_BLOCK] = "block",
	[LAYER_FUNC] = "func",
	[LAYER_SMBD] = "smbd",
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
};

static const char *const group_names[] = {
	[GROUP_NONE] = "none",
	[GROUP_INODE] = "inode",
	[GROUP_FILE] = "file",
	[GROUP_ADSPACE] = "adspace",
	[GROUP_SUPER] = "super",
};

const char *layer_name(enum layer l)
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
	return g <= GROUP_SUPER ? group_names[g] : "?";
}

int group_from_name(const char *s)
{
	for (int i = GROUP_INODE; i <= GROUP_SUPER; i++)
		if (strcmp(s, group_names[i]) == 0)
			return i;
	return -EINVAL;
}

int func_table_add(struct func_table *t, enum layer layer, enum op_group group,
		   const char *name, const char *symbol, const char *module)
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
		free(t->v[i].missing);
	}
	free(t->v);
	*t = (struct func_table) {};
}
