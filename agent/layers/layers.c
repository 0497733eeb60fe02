// SPDX-License-Identifier: LGPL-2.1-or-later
/* The one table of layers: adding a layer is its module and one entry here. */
#include "layers/layer.h"

extern const struct layer_ops smb_layer, smb2_layer, block_layer, func_layer, smbd_layer;

const struct layer_ops *const layer_table[_LAYER_MAX] = {
	[LAYER_SMB] = &smb_layer,
	[LAYER_SMB2] = &smb2_layer,
	[LAYER_BLOCK] = &block_layer,
	[LAYER_FUNC] = &func_layer,
	[LAYER_SMBD] = &smbd_layer,
};

void layer_list_row(FILE *out, const char *function, enum layer_id l, const char *target,
		    const char *backend, const char *status)
{
	fprintf(out, "%-28s %-6s %-36s %-13s %s\n", function, layer_name(l), target, backend, status);
}
