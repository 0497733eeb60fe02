/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [block]: which disks the block layer times, and from where. */
#pragma once

#include <stdbool.h>

#include "config/config.h"

/* The rest of [block] (enabled=, threshold=, ... are struct layer_config's). */
struct block_settings {
	char **disks;    /* NULL-terminated disk names, NULL: every disk */
	bool queue_time; /* time from block_rq_insert, default no */
};

extern const struct config_section block_settings_section;

static inline struct block_settings *block_settings(const struct config *c)
{
	return config_layer_settings(c, LAYER_BLOCK);
}
