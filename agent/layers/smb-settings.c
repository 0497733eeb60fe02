// SPDX-License-Identifier: LGPL-2.1-or-later
/* [smb], the section of the smb layer: groups=. */
#include <errno.h>
#include <string.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/smb-settings.h"
#include "base/macro.h"

/* groups=: inode, file, adspace, super; a new assignment replaces, indented lines add. */
static int groups_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			bool append)
{
	bool *now = config_value(k, base), group[_GROUP_MAX];
	char buf[32];
	const char *at = v, *e;

	memcpy(group, now, sizeof(group));
	if (!append)
		for (size_t g = GROUP_NONE + 1; g < ELEMENTSOF(group); g++)
			group[g] = false;
	while ((e = values_list_next(&at, buf, sizeof(buf)))) {
		int g = values_name_index(e, op_group_names, _GROUP_MAX);
		const char *hint;

		if (g > GROUP_NONE) {
			group[g] = true;
			continue;
		}
		hint = values_suggest(e, op_group_names, _GROUP_MAX);
		return config_fail(p, "unknown group \"%s\"%s%s%s, use inode, file, adspace or super", e,
				   hint ? ", did you mean \"" : "", hint ?: "", hint ? "\"?" : "");
	}
	memcpy(now, group, sizeof(group));
	return 0;
}

static void groups_print(FILE *f, const struct config_key *k, const void *base)
{
	const bool *group = config_value_const(k, base);

	fprintf(f, "%s =", k->name);
	for (int g = GROUP_NONE + 1; g <= GROUP_SUPER; g++)
		if (group[g])
			fprintf(f, " %s", group_name(g));
	fputc('\n', f);
}

static const struct config_type groups_type = {
	.parse = groups_parse,
	.print = groups_print,
	.list = true,
	.examples = (const char *const[]) { "file", NULL },
};

static void init(void *settings)
{
	struct smb_settings *s = settings;

	for (size_t g = 0; g < ELEMENTSOF(s->group); g++)
		s->group[g] = true;
}

static const struct config_key keys[] = {
	CONFIG_KEY("groups", struct smb_settings, group, groups_type),
};

const struct config_section smb_settings_section = CONFIG_SETTINGS("smb", struct smb_settings, keys,
								   .init = init);
