// SPDX-License-Identifier: LGPL-2.1-or-later
/* [smb2], the section of the smb2 layer: servers=, sessions= and connection_events=. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/section.h"
#include "config/values.h"
#include "layers/smb2-settings.h"
#include "base/macro.h"

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

static void init(void *settings)
{
	struct smb2_settings *s = settings;

	s->events = true;
}

static const struct config_key keys[] = {
	CONFIG_KEY("servers", struct smb2_settings, servers, config_list, .check = server_check,
		   .item_len = SMBLAT_NAME_LEN + 1),
	CONFIG_KEY("sessions", struct smb2_settings, sessions, config_list, .check = session_check,
		   .item_len = SMBLAT_NAME_LEN + 1),
	CONFIG_KEY("connection_events", struct smb2_settings, events, config_bool),
};

const struct config_section smb2_settings_section = CONFIG_SETTINGS(
	"smb2", struct smb2_settings, keys, .init = init, .also = CONFIG_LAYER_ERRORS);
