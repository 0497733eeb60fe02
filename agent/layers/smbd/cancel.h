/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* SMBD_SMB2_CANCEL, the SMB2 command without an exported handler or a reply (cancel.c). */
#pragma once

#include <stdbool.h>

#include "layers/layer.h"

/*
 * Attached on lib's smbd_smb2_request_dispatch when want (the layer times
 * SMB2 requests and knows their header) and the configuration keeps it,
 * else detached; counts what it attached and detached.
 */
void smbd_cancel_sync(const struct layer_env *env, const char *lib, bool want, unsigned int *attached,
		      unsigned int *detached);
/* Detached, left in state why; returns 1 when it was attached. */
unsigned int smbd_cancel_detach(const struct layer_env *env, enum func_state why);
