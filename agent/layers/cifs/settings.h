/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The sections of the layers of the cifs module: [smb], which groups of SMB
 * client operations the smb layer traces; [smb2], which servers and
 * sessions the smb2 layer follows, and its connection events.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

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

/* The rest of [smb2] (enabled=, threshold=, ... are struct layer_config's). */
struct smb2_settings {
	char **servers;  /* NULL-terminated server names, NULL: every server */
	char **sessions; /* NULL-terminated session ids as given, NULL: every session */
	bool events;     /* connection_events=: reconnects, session setups, ...; default yes */
};

extern const struct config_section smb2_settings_section;

static inline struct smb2_settings *smb2_settings(const struct config *c)
{
	return config_layer_settings(c, LAYER_SMB2);
}

/* An SMB session id as sessions= takes it (hex 0x..., or decimal); -EINVAL. */
int smb2_session_parse(const char *s, uint64_t *ret);
