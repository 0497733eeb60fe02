/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The smb2 layer: SMB2 requests of the cifs client, timed through its mid hooks. */
#pragma once

#include <stdint.h>
#include <bpf/btf.h>

#include "bpf/smblat.h"

struct ksyms;

/*
 * Which argument of symbol holds what hook h needs: the SMB2 header at
 * allocation, else the mid or (*kref set) its refcount. -ENOENT: no such
 * function in btf; -EINVAL: a prototype without such an argument.
 */
int smb2_hook_arg(const struct btf *btf, enum smb2_hook h, const char *symbol, uint8_t *arg, uint8_t *kref);

/*
 * The function for hook h on this cifs (btf: its BTF, NULL where it has
 * none), its argument layout filled into ctl; NULL when it has none.
 */
const char *smb2_hook_resolve(const struct btf *btf, const struct ksyms *ks, enum smb2_hook h,
			      struct smb2_ctl *ctl);

/* The newest name of hook h's function, for messages. */
const char *smb2_hook_name(enum smb2_hook h);
