/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The table of probed functions: one id per FUNCTION, shared by every layer. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "bpf/smblat.h"

enum layer {
	LAYER_SMB,      /* cifs.ko VFS operations */
	LAYER_SMB2,     /* SMB2 wire requests of the cifs client */
	LAYER_BLOCK,    /* block I/O */
	LAYER_FUNC,     /* any kernel/user function, USDT, syscall */
	LAYER_SMBD,     /* Samba server VFS via uprobes */
	_LAYER_MAX,
};

enum backend {
	BACKEND_NONE,
	BACKEND_FENTRY,
	BACKEND_KPROBE_MULTI,
	BACKEND_KPROBE,
	BACKEND_UPROBE,
	BACKEND_USDT,
	BACKEND_TRACEPOINT,
	BACKEND_TP_BTF,         /* block, syscall: BTF-typed raw tracepoint */
	BACKEND_RAW_TP,
	BACKEND_UPROBE_MULTI,   /* smbd layer: uprobe.multi links */
	_BACKEND_MAX,
};

/* smb layer op groups, as bcc's smbvfsslower --inode/--file/--adspace/--super */
enum op_group {
	GROUP_NONE,
	GROUP_INODE,
	GROUP_FILE,
	GROUP_ADSPACE,
	GROUP_SUPER,
};

struct func {
	uint32_t id;
	enum layer layer;
	enum op_group group;
	char *name;             /* FUNCTION field: INODE_OP_UNLINK, ... */
	char *symbol;           /* kernel function (cifs_unlink) or PATH:symbol */
	char *module;           /* kernel module owning symbol, NULL for vmlinux */
	struct func_cfg cfg;    /* what BPF sees for this id */
	enum backend backend;   /* how it is attached, BACKEND_NONE if not */
	char *missing;          /* why it is not attached, NULL when attached */
};

const char *layer_name(enum layer l);
int layer_from_name(const char *s);          /* -EINVAL when unknown */
const char *backend_name(enum backend b);
const char *group_name(enum op_group g);
int group_from_name(const char *s);

/* The function table; ids are indexes, never reused, and entries never move. */
struct func_table {
	struct func *v;
	uint32_t n;
	uint32_t cap;
};

/* Adds a function; returns its id or negative errno. */
int func_table_add(struct func_table *t, enum layer layer, enum op_group group,
		   const char *name, const char *symbol, const char *module);
struct func *func_table_find_symbol(struct func_table *t, const char *symbol);
void func_table_free(struct func_table *t);
