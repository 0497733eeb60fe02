/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Where smbd keeps a request's inbound SMB2 header. Samba ships neither
 * BTF nor a stable struct smbd_smb2_request, and Debian's debug info is a
 * separate package; but the library exports smbd_smb2_is_last_in_compound(),
 * whose whole body compares req->current_idx + 4 with req->in.vector_count:
 * its code gives both offsets, and in.vector sits just before the count.
 */
#pragma once

#include <stddef.h>
#include <stdint.h>

#include "bpf/smblat.h"
#include "bpf/smbd.h"

struct usyms;

#define SMBDREQ_FUNCTION "smbd_smb2_is_last_in_compound"

/*
 * The layout from the machine code of SMBDREQ_FUNCTION (x86-64: load,
 * add 4, compare, from %rdi); -EPROTO for code of another shape.
 */
int reqlayout_decode(const uint8_t *code, size_t n, struct smbd_hdr_layout *ret);

/*
 * The layout from lib (the library defining SMBDREQ_FUNCTION): -ENOENT
 * without the function, -EPROTO for code not understood, else -errno.
 */
int reqlayout_read(struct usyms *us, const char *lib, struct smbd_hdr_layout *ret);
