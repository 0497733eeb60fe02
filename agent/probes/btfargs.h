/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* What BTF says about a kernel function's arguments and return value. */
#pragma once

#include <bpf/btf.h>

#include "base/func.h"

/* vmlinux and module BTF, loaded once each, on demand. */
struct btfs;

int btfs_new(struct btfs **ret);
void btfs_free(struct btfs *b);
/* NULL module: vmlinux. NULL when the kernel has no BTF for it. */
struct btf *btfs_get(struct btfs *b, const char *module);
/*
 * The id of function name in the BTF of module (NULL: vmlinux), that BTF in
 * *btf; -ENOENT when there is no such function or no BTF. Indexed: a
 * look-up costs a hash probe, not a walk over every type.
 */
int btfs_func(struct btfs *b, const char *module, const char *name, const struct btf **btf);
/*
 * Lets go of every BTF loaded (vmlinux's alone is several MiB), once
 * attaching is over; btfs_get() loads again when asked. Pointers from
 * btfs_get() and btfs_func() die with it. true: it let go of something.
 */
bool btfs_trim(struct btfs *b);
/* Drops module's cached BTF, for a module unloaded and maybe loaded again. */
void btfs_forget(struct btfs *b, const char *module);
/* A file descriptor of the kernel's BTF object for module (for fentry attach), or -errno. */
int btfs_module_fd(struct btfs *b, const char *module);

/* Kind of object a parameter of this BTF type points to. */
enum arg_kind btfargs_kind(const struct btf *btf, uint32_t type_id);

/*
 * Fills sb_arg/sb_kind, name_arg/name_kind, ret_kind and the argument
 * count of cfg from the BTF prototype of func. -ENOENT: not in this BTF,
 * or btf NULL (no BTF for that module).
 */
int btfargs_fill(const struct btf *btf, const char *func, struct func_cfg *cfg, unsigned int *nparams);
/* The same for the function of BTF id id (btfs_func()). */
int btfargs_fill_id(const struct btf *btf, int id, struct func_cfg *cfg, unsigned int *nparams);
/* btfargs_fill() of function func of module (NULL: vmlinux), looked up in b's index. */
int btfs_fill(struct btfs *b, const char *module, const char *func, struct func_cfg *cfg);
/*
 * The same from a prototype (BTF_KIND_FUNC_PROTO id): a function pointer
 * member's, for a function whose module has no BTF. -EINVAL: not one.
 */
int btfargs_fill_proto(const struct btf *btf, uint32_t proto_id, struct func_cfg *cfg, unsigned int *nparams);
