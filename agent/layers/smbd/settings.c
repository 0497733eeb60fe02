// SPDX-License-Identifier: LGPL-2.1-or-later
/* [smbd], the section of the smbd layer: binary= and the switches of its views. */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/smbd/settings.h"
#include "base/macro.h"

static const char *const smbd_paths[] = {
	"/usr/sbin/smbd",
	"/usr/local/samba/sbin/smbd",
	"/usr/local/sbin/smbd",
};

char *smbd_settings_binary(const struct config *c)
{
	const char *path = getenv("PATH"), *binary = smbd_settings(c)->binary;
	char buf[PATH_MAX];

	if (binary)
		return strdup(binary);
	for (const char *p = path; p && *p; p += strcspn(p, ":"), p += *p == ':') {
		size_t n = strcspn(p, ":");

		if (n == 0 || p[0] != '/')
			continue;
		snprintf(buf, sizeof(buf), "%.*s/smbd", (int)n, p);
		if (access(buf, X_OK) == 0)
			return strdup(buf);
	}
	for (size_t i = 0; i < ELEMENTSOF(smbd_paths); i++)
		if (access(smbd_paths[i], X_OK) == 0)
			return strdup(smbd_paths[i]);
	return NULL;
}

/* binary=: the smbd whose libraries are probed; empty: the one found on PATH. */
static int binary_check(struct config_parser *p, const char *v, size_t n)
{
	if (*v && (v[0] != '/' || values_has_control(v)))
		return config_fail(p, "binary = %s must be an absolute path", v);
	return 0;
}

static void init(void *settings)
{
	struct smbd_settings *s = settings;

	s->exits = true;
	s->breaks = true;
}

static const struct config_key keys[] = {
	/* the layer probes the libraries it found at start */
	CONFIG_KEY("binary", struct smbd_settings, binary, config_string, .check = binary_check,
		   .flags = CONFIG_KEY_RESTART),
	CONFIG_KEY("vfs", struct smbd_settings, vfs, config_bool),
	CONFIG_KEY("exits", struct smbd_settings, exits, config_bool),
	CONFIG_KEY("exit_errors", struct smbd_settings, exit_errors, config_bool),
	CONFIG_KEY("breaks", struct smbd_settings, breaks, config_bool),
	CONFIG_KEY("time_split", struct smbd_settings, split, config_bool),
};

const struct config_section smbd_settings_section = CONFIG_SETTINGS(
	"smbd", struct smbd_settings, keys, .init = init, .also = CONFIG_LAYER_STACKS);
