/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The table of probed functions: one id per FUNCTION, shared by every layer. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/smblat.h"

enum layer_id {
	LAYER_SMB,      /* cifs.ko VFS operations */
	LAYER_SMB2,     /* SMB2 wire requests of the cifs client */
	LAYER_BLOCK,    /* block I/O */
	LAYER_FUNC,     /* any kernel/user function, USDT, syscall */
	LAYER_SMBD,     /* Samba server VFS via uprobes */
	LAYER_SYSCALLS, /* every syscall of chosen processes, accounted */
	LAYER_PROFILE,  /* on-CPU stacks, sampled */
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
	BACKEND_TP_BTF, /* block, syscall: BTF-typed raw tracepoint */
	BACKEND_RAW_TP,
	BACKEND_UPROBE_MULTI,   /* smbd layer: uprobe.multi links */
	BACKEND_UPROBE_SESSION, /* user functions: uprobe.session links */
	BACKEND_PERF_EVENT,     /* profile: a clock event per CPU */
	_BACKEND_MAX,
};

/* smb layer op groups, as bcc's smbvfsslower --inode/--file/--adspace/--super */
enum op_group {
	GROUP_NONE,
	GROUP_INODE,
	GROUP_FILE,
	GROUP_ADSPACE,
	GROUP_SUPER,
	_GROUP_MAX,
};

/* Where a function stands; detail says more for the states that need it. */
enum func_state {
	FUNC_PENDING, /* in the table, not attached yet */
	FUNC_ATTACHED,
	FUNC_FAILED,     /* the kernel refused the attach: detail */
	FUNC_NO_BACKEND, /* this kernel offers no way to attach it: detail */
	FUNC_NOT_FOUND,  /* no such function, probe, file or module: detail */
	FUNC_UNLOADED,   /* its module went away; attached again when it is back */
	FUNC_DISABLED,   /* its layer disabled, or deselected, by a reload */
	FUNC_REMOVED,    /* its [probe] section removed by a reload */
	FUNC_EXCLUDED,   /* left out by include=/exclude= */
	FUNC_UNUSABLE,   /* attachable, but what it counted would be wrong: detail */
	FUNC_DUPLICATE,  /* another probe traces it already: detail */
	_FUNC_STATE_MAX,
};

struct func {
	uint32_t id;
	enum layer_id layer;
	enum op_group group;
	char *name;           /* FUNCTION field: INODE_OP_UNLINK, ... */
	char *symbol;         /* kernel function (cifs_unlink) or PATH:symbol */
	char *module;         /* kernel module owning symbol, NULL for vmlinux */
	bool kernel;          /* symbol names kernel code (KERNEL_FUNCTION), else a target (TARGET) */
	struct func_cfg cfg;  /* what BPF sees for this id */
	enum backend backend; /* how it is attached, BACKEND_NONE if not */
	enum func_state state;
	char *detail; /* malloc'd, for the states that carry one */
};

/* Sets the state, with a detail (printf format, NULL for none). */
void func_set_state(struct func *f, enum func_state s, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Attached through backend b. */
void func_set_attached(struct func *f, enum backend b);
/* "attached", "cifs module unloaded", "kprobe: Invalid argument": what --list-probes says. */
const char *func_state_text(const struct func *f, char *buf, size_t size);
static inline bool func_attached(const struct func *f)
{
	return f->state == FUNC_ATTACHED;
}

extern const char *const layer_names[_LAYER_MAX];
extern const char *const op_group_names[_GROUP_MAX];

const char *layer_name(enum layer_id l);
int layer_from_name(const char *s); /* -EINVAL when unknown */
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
int func_table_add(struct func_table *t, enum layer_id layer, enum op_group group, const char *name,
		   const char *symbol, const char *module);
struct func *func_table_find_symbol(struct func_table *t, const char *symbol);
/*
 * The function of layer named name with symbol (either may be NULL), added
 * when there is none: ids are never reused. NULL without room.
 */
struct func *func_table_find_or_add(struct func_table *t, enum layer_id layer, const char *name,
				    const char *symbol, const char *module);
/* Functions of layer l attached now. */
uint32_t func_table_attached(const struct func_table *t, int l);
void func_table_free(struct func_table *t);
