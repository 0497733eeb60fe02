/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A file's unwind table for the programs' stack walk (bpf/ustack.h: struct
 * urow), compiled from its call frame information (.eh_frame, else
 * .debug_frame) as elfutils' libdw reads it: row by row, from each
 * address of code on, how to find the caller (x86-64: the CFA from rsp or
 * rbp, or a PLT entry's; where rbp was saved; the return address at
 * CFA - 8). Rows the programs cannot follow (signal frames, other
 * expressions) end a stack; code without CFI is followed by frame pointers.
 */
#pragma once

#include <stddef.h>

#include "bpf/smblat.h"

struct objfile;

/*
 * The rows of o's code sorted by file offset, one row per change of rule,
 * the last one ending the code; *rows malloc'd. -ENOENT when o has no call
 * frame information, -EOPNOTSUPP off x86-64, -ENOMEM.
 */
int cfi_compile(struct objfile *o, struct urow **rows, size_t *n);
