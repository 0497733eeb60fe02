// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The per-layer breakdown (as IOStackBreakdown): every FUNCTION's calls of
 * an interval merged by the layer of the I/O stack it belongs to, from
 * system calls down to block requests, as log2 histograms side by side on
 * the terminal or one BREAKDOWN summary per layer in the journal. It reads
 * the function table's summaries; nothing of its own is counted in BPF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/syscalls.h"
#include "core/agent-int.h"
#include "base/macro.h"

/* The layers of the stack, top down: the columns. */
enum column {
	COL_SYSCALL,
	COL_UPROBES, /* user functions, USDT */
	COL_VFS,
	COL_KERNEL, /* other kernel functions given with -f */
	COL_SMB,
	COL_SMB2,
	COL_SMBD,
	COL_BLOCK,
	_COL_MAX,
};

static const char *const column_names[_COL_MAX] = {
	[COL_SYSCALL] = "syscall", [COL_UPROBES] = "uprobes", [COL_VFS] = "vfs",   [COL_KERNEL] = "kernel",
	[COL_SMB] = "smb",         [COL_SMB2] = "smb2",       [COL_SMBD] = "smbd", [COL_BLOCK] = "block",
};

static const char *const functions[_COL_MAX] = {
	[COL_SYSCALL] = "BREAKDOWN_SYSCALL", [COL_UPROBES] = "BREAKDOWN_UPROBES",
	[COL_VFS] = "BREAKDOWN_VFS",         [COL_KERNEL] = "BREAKDOWN_KERNEL",
	[COL_SMB] = "BREAKDOWN_SMB",         [COL_SMB2] = "BREAKDOWN_SMB2",
	[COL_SMBD] = "BREAKDOWN_SMBD",       [COL_BLOCK] = "BREAKDOWN_BLOCK",
};

/* The system calls of file I/O, where the architecture has them. */
static const char *const io_syscalls[] = {
	"read",  "write",     "pread64",    "pwrite64", "readv",      "writev",   "openat",    "close",
	"fsync", "fdatasync", "newfstatat", "statx",    "getdents64", "unlinkat", "renameat2", "mkdirat",
};

/* The VFS entry points those reach, in every kernel since 5.10. */
static const char *const vfs_functions[] = {
	"vfs_read",        "vfs_write",  "vfs_open",   "vfs_getattr", "iterate_dir",
	"vfs_fsync_range", "vfs_unlink", "vfs_rename", "vfs_mkdir",
};

static bool is_vfs_function(const char *symbol)
{
	for (size_t i = 0; i < ELEMENTSOF(vfs_functions); i++)
		if (strcmp(symbol, vfs_functions[i]) == 0)
			return true;
	return false;
}

static int column_of(const struct func *f)
{
	switch (f->layer) {
	case LAYER_SMB:
		return COL_SMB;
	case LAYER_SMB2:
		return COL_SMB2;
	case LAYER_BLOCK:
		return COL_BLOCK;
	case LAYER_SMBD:
		return COL_SMBD;
	case LAYER_FUNC:
		if (f->backend == BACKEND_TP_BTF || f->backend == BACKEND_RAW_TP)
			return COL_SYSCALL;
		if (f->backend == BACKEND_UPROBE || f->backend == BACKEND_UPROBE_MULTI ||
		    f->backend == BACKEND_UPROBE_SESSION || f->backend == BACKEND_USDT ||
		    (f->symbol && strchr(f->symbol, '/')))
			return COL_UPROBES;
		return f->symbol && is_vfs_function(f->symbol) ? COL_VFS : COL_KERNEL;
	default:
		return -1;
	}
}

static int probe_add(struct config *c, const char *target)
{
	struct probe_config *v = realloc(c->probes, (c->n_probes + 1) * sizeof(*v));
	struct probe_config *p;

	if (!v)
		return -ENOMEM;
	c->probes = v;
	for (unsigned int i = 0; i < c->n_probes; i++)
		if (strcmp(v[i].target, target) == 0)
			return 0; /* given with -f already */
	p = &v[c->n_probes++];
	*p = (struct probe_config) {
		.label = strdup(target),
		.target = strdup(target),
		.cli = true,
	};
	return p->label && p->target ? 0 : -ENOMEM;
}

int breakdown_configure(struct config *c, bool layers_given)
{
	char target[64];
	int r = 0;

	for (size_t i = 0; r == 0 && i < ELEMENTSOF(io_syscalls); i++) {
		if (syscalls_nr(io_syscalls[i]) < 0)
			continue;
		snprintf(target, sizeof(target), "syscall:%s", io_syscalls[i]);
		r = probe_add(c, target);
	}
	for (size_t i = 0; r == 0 && i < ELEMENTSOF(vfs_functions); i++)
		r = probe_add(c, vfs_functions[i]);
	if (r < 0 || layers_given)
		return r;
	c->layer[LAYER_FUNC].enabled = true;
	/* the SMB client where this kernel has one (auto), every disk's requests */
	for (int l = LAYER_SMB; l <= LAYER_SMB2; l++)
		if (!c->layer[l].enabled)
			c->layer[l].enabled = c->layer[l].automatic = true;
	c->layer[LAYER_BLOCK].enabled = true;
	c->layer[LAYER_BLOCK].automatic = false;
	return 0;
}

/* Whether a column's layer traces anything now: shown even without calls. */
static void columns_on(const struct agent *a, bool *on)
{
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		int c = column_of(&a->funcs.v[i]);

		if (c >= 0 && func_attached(&a->funcs.v[i]))
			on[c] = true;
	}
}

void breakdown_emit(struct agent *a, const struct summary *acc, double interval_s, FILE *table)
{
	struct summary col[_COL_MAX];
	const struct summary *cols[_COL_MAX];
	const char *names[_COL_MAX];
	bool on[_COL_MAX] = {};
	unsigned int n = 0;

	for (int c = 0; c < _COL_MAX; c++)
		hist_init(&col[c]);
	for (uint32_t i = 0; i < a->funcs.n; i++) {
		int c = column_of(&a->funcs.v[i]);

		if (c >= 0 && acc[i].count) {
			hist_merge(&col[c], &acc[i]);
			on[c] = true;
		}
	}
	columns_on(a, on);
	for (int c = 0; c < _COL_MAX; c++) {
		if (!on[c])
			continue;
		if (a->journal) {
			struct record_field f = { "BREAKDOWN_LAYER", (char *)column_names[c] };
			const struct func *any = NULL;

			for (uint32_t i = 0; i < a->funcs.n && !any; i++)
				if (column_of(&a->funcs.v[i]) == c)
					any = &a->funcs.v[i];
			journal_write_view_summary(a->journal, functions[c], any ? any->layer : LAYER_FUNC,
						   &col[c], interval_s, &f, 1, SMBLAT_MID_BREAKDOWN);
		}
		names[n] = column_names[c];
		cols[n++] = &col[c];
	}
	if (a->journal || !n)
		return;
	fprintf(table, "\nper layer, %.1f s:\n", interval_s);
	hist_print_columns(table, names, cols, n);
	fflush(table);
}
