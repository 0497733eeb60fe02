/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The func layer's files: the layer (func.c) and its --breakdown part (breakdown.c). */
#pragma once

#include "layers/layer.h"

#define FUNC_COLUMNS 4
/* syscall, uprobes, vfs, kernel */
extern const struct breakdown_column func_columns[FUNC_COLUMNS];
/* Which of func_columns f is in. */
int func_column_of(const struct func *f);
/* --breakdown: the file I/O syscalls and their VFS entry points probed. */
int func_breakdown(struct config *c, bool layers_given);

/* The sched_switch programs of off-CPU time (bpf/offcpu.bpf.c). */
extern const struct prog_unit offcpu_unit;
/* Off-CPU time (offcpu.c): its programs asked for, before the object loads. */
int offcpu_want(struct probes_opts *po);
/* sched_switch attached (once); negative errno, why (n bytes) saying why. */
int offcpu_attach(struct probes *p, char *why, size_t n);
