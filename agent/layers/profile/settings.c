// SPDX-License-Identifier: LGPL-2.1-or-later
/* [profile], the section of the CPU profile: its rate and whether only smbd is sampled. */
#include "config/section.h"
#include "layers/profile/settings.h"

static void init(void *settings)
{
	struct profile_settings *s = settings;

	s->frequency = PROFILE_HZ_DEFAULT;
}

static int frequency_check(struct config_parser *p, const char *v, size_t n)
{
	return n ? 0 : config_fail(p, "frequency = %s: at least 1 sample a second", v);
}

static const struct config_key keys[] = {
	CONFIG_KEY("frequency", struct profile_settings, frequency, config_uint, .max = PROFILE_HZ_MAX,
		   .check = frequency_check),
	CONFIG_KEY("smbd", struct profile_settings, smbd, config_bool),
};

/* a timer on every CPU: only when asked for, never by auto */
const struct config_section profile_settings_section = CONFIG_SETTINGS("profile", struct profile_settings,
								       keys, .init = init, .off = true);
