/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [smb]: which groups of SMB client operations the smb layer traces. */
#pragma once

#include <stdbool.h>

#include "config/config.h"

/* The rest of [smb] (enabled=, threshold=, ... are struct layer_config's). */
struct smb_settings {
	bool group[_GROUP_MAX]; /* enum op_group traced (groups=), all by default */
};

extern const struct config_section smb_settings_section;

static inline struct smb_settings *smb_settings(const struct config *c)
{
	return config_layer_settings(c, LAYER_SMB);
}

/* Whether groups= has g (functions of no group always). */
static inline bool smb_settings_group(const struct config *c, enum op_group g)
{
	return g <= GROUP_NONE || g >= _GROUP_MAX || smb_settings(c)->group[g];
}
