/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The block layer: one FUNCTION per request op (BLOCK_READ, BLOCK_WRITE, ...). */
#pragma once

#include <stdint.h>

#include "bpf/block.h"

struct btf;
struct config;

/* "READ", "WRITE", ... for enum block_op; "OTHER" for the rest. */
const char *block_op_name(uint32_t op);

/*
 * The BPF side of [block] before load: disks= resolved to dev_t through
 * /sys/class/block (missing disk: -ENODEV, said on stderr), and where the
 * request sits in the tracepoint arguments of this kernel's BTF.
 */
int block_cfg_build(const struct config *c, const struct btf *vmlinux, const char *sysfs,
		    struct block_cfg *ret);
