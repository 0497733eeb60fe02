// SPDX-License-Identifier: LGPL-2.1-or-later
/* [smb] groups= and [smb2] servers=, sessions=, connection_events=: the sections of the cifs layers. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/cifs/settings.h"
#include "base/macro.h"

/* ---- [smb] ---- */

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
		hint = suggest_name(e, op_group_names, _GROUP_MAX);
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

static void smb_init(void *settings)
{
	struct smb_settings *s = settings;

	for (size_t g = 0; g < ELEMENTSOF(s->group); g++)
		s->group[g] = true;
}

static const struct config_key smb_keys[] = {
	CONFIG_KEY("groups", struct smb_settings, group, groups_type),
};

const struct config_section smb_settings_section = CONFIG_SETTINGS("smb", struct smb_settings, smb_keys,
								   .init = smb_init);

/* ---- [smb2] ---- */

int smb2_session_parse(const char *s, uint64_t *ret)
{
	char *end;
	unsigned long long v;

	if (!*s || *s == '-' || *s == '+')
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v == 0)
		return -EINVAL;
	*ret = v;
	return 0;
}

/* The BPF side compares against a fixed array of each. */
static int filter_full(struct config_parser *p, size_t n)
{
	if (n == SMB2_FILTER_MAX)
		return config_fail(p, "%s lists more than %d", config_parser_key(p), SMB2_FILTER_MAX);
	return 0;
}

/* servers=: requests and events of these servers only (their name as mounted). */
static int server_check(struct config_parser *p, const char *v, size_t n)
{
	if (!*v || strlen(v) >= SMBLAT_NAME_LEN || values_has_control(v))
		return config_fail(p, "invalid server name, expected a host name or address \"%s\" in %s", v,
				   config_parser_key(p));
	return filter_full(p, n);
}

/* sessions=: requests and events of these SMB session ids only. */
static int session_check(struct config_parser *p, const char *v, size_t n)
{
	uint64_t id;

	if (smb2_session_parse(v, &id) < 0)
		return config_fail(
			p,
			"invalid session id, expected a number such as 0x2c00000001 (SMB_SESSION_ID) "
			"\"%s\" in %s",
			v, config_parser_key(p));
	return filter_full(p, n);
}

static void smb2_init(void *settings)
{
	struct smb2_settings *s = settings;

	s->events = true;
}

static const struct config_key smb2_keys[] = {
	CONFIG_KEY("servers", struct smb2_settings, servers, config_list, .check = server_check,
		   .item_len = SMBLAT_NAME_LEN + 1),
	CONFIG_KEY("sessions", struct smb2_settings, sessions, config_list, .check = session_check,
		   .item_len = SMBLAT_NAME_LEN + 1),
	CONFIG_KEY("connection_events", struct smb2_settings, events, config_bool),
};

const struct config_section smb2_settings_section = CONFIG_SETTINGS(
	"smb2", struct smb2_settings, smb2_keys, .init = smb2_init, .also = CONFIG_LAYER_ERRORS);
