/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* [profile]: the CPU profile's rate and whom it samples (frequency=, smbd=, --profile[=HZ]). */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "config/config.h"

#define PROFILE_HZ_DEFAULT 99 /* as bpftrace's profile:hz:99: off the kernel's timer tick */
#define PROFILE_HZ_MAX 10000

struct profile_settings {
	uint32_t frequency; /* samples per second and CPU */
	bool smbd;          /* only smbd processes (beside [agent]'s pid=, comm=, cgroup=) */
};

extern const struct config_section profile_settings_section;

static inline struct profile_settings *profile_settings(const struct config *c)
{
	return config_layer_settings(c, LAYER_PROFILE);
}
