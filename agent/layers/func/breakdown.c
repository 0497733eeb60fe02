// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The func layer's part of --breakdown: the file I/O system calls and the
 * VFS entry points they reach, probed for it, and its four columns (system
 * calls, user functions, VFS, other kernel functions).
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/syscalls.h"
#include "layers/func/func.h"

enum column {
	COL_SYSCALL,
	COL_UPROBES, /* user functions, USDT */
	COL_VFS,
	COL_KERNEL, /* other kernel functions given with -f */
	_COL_MAX,
};

const struct breakdown_column func_columns[FUNC_COLUMNS] = {
	[COL_SYSCALL] = { "syscall", "BREAKDOWN_SYSCALL", 10 },
	[COL_UPROBES] = { "uprobes", "BREAKDOWN_UPROBES", 20 },
	[COL_VFS] = { "vfs", "BREAKDOWN_VFS", 30 },
	[COL_KERNEL] = { "kernel", "BREAKDOWN_KERNEL", 40 },
};

_Static_assert(_COL_MAX == FUNC_COLUMNS, "one column each");

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

int func_column_of(const struct func *f)
{
	if (f->backend == BACKEND_TP_BTF || f->backend == BACKEND_RAW_TP)
		return COL_SYSCALL;
	if (f->backend == BACKEND_UPROBE || f->backend == BACKEND_UPROBE_MULTI ||
	    f->backend == BACKEND_UPROBE_SESSION || f->backend == BACKEND_USDT ||
	    (f->symbol && strchr(f->symbol, '/')))
		return COL_UPROBES;
	return f->symbol && is_vfs_function(f->symbol) ? COL_VFS : COL_KERNEL;
}

/* A [probe] on target, named after it, unless -f gave it already. */
static int probe_add(struct config *c, const char *target)
{
	struct probe_config *v = realloc(c->probes, (c->n_probes + 1) * sizeof(*v));
	struct probe_config *p;

	if (!v)
		return -ENOMEM;
	c->probes = v;
	for (unsigned int i = 0; i < c->n_probes; i++)
		if (strcmp(v[i].target, target) == 0)
			return 0;
	p = &v[c->n_probes++];
	*p = (struct probe_config) {
		.label = strdup(target),
		.target = strdup(target),
		.cli = true,
	};
	return p->label && p->target ? 0 : -ENOMEM;
}

int func_breakdown(struct config *c, bool layers_given)
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
	if (r == 0 && !layers_given)
		c->layer[LAYER_FUNC].enabled = true;
	return r;
}
