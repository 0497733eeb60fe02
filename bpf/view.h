/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/* Views: the calls of a FUNCTION counted again under a label (per SMB share). */
#ifndef SMBLAT_VIEW_H
#define SMBLAT_VIEW_H

#include "smblat.h"

/* Labels the share view holds (FUNCTION and share pairs); more are counted, not kept. */
#define SMBLAT_SHARE_VIEW_MAX 1024

struct share_key {
	uint32_t func_id;
	uint32_t dev; /* super_block s_dev of the share's mount */
};
SMBLAT_SIZE(share_key, 8);

/* What the agent sets, at any time. */
struct view_ctl {
	uint32_t share_on; /* count calls per share */
	uint32_t pad;
};
SMBLAT_SIZE(view_ctl, 8);

#endif
