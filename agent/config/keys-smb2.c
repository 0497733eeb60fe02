// SPDX-License-Identifier: LGPL-2.1-or-later
/* The [smb2] keys that take lists: servers= and sessions=. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config-int.h"
#include "config/values.h"

/* A list of up to max words, each checked by valid (what says what it wants). */
static int set_words(struct loader *l, const char *v, bool append, size_t max, bool (*valid)(const char *),
		     const char *what, char ***ret)
{
	char buf[SMBLAT_NAME_LEN + 1], **list = NULL;
	const char *p = v, *e;
	size_t n = 0;

	if (append) {
		list = *ret;
		*ret = NULL;
	}
	while (list && list[n])
		n++;
	while ((e = values_list_next(&p, buf, sizeof(buf)))) {
		if (!valid(e)) {
			values_strv_free(list);
			return loader_fail(l, -EINVAL, "invalid %s \"%s\" in %s", what, e, l->key);
		}
		if (values_strv_contains(list, e))
			continue;
		/* BPF compares against a fixed array */
		if (n++ == max) {
			values_strv_free(list);
			return loader_fail(l, -EINVAL, "%s lists more than %zu", l->key, max);
		}
		if (values_strv_push(&list, e) < 0) {
			values_strv_free(list);
			return loader_oom(l);
		}
	}
	values_strv_free(*ret);
	*ret = list;
	return 0;
}

static bool server_name_valid(const char *s)
{
	return *s && strlen(s) < SMBLAT_NAME_LEN && !values_has_control(s);
}

int config_parse_session(const char *s, uint64_t *ret)
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

static bool session_id_valid(const char *s)
{
	uint64_t id;

	return config_parse_session(s, &id) == 0;
}

/* [smb2] servers=: requests and events of these servers only (their name as mounted). */
int keys_smb2_servers(struct loader *l, const char *v, bool append)
{
	if (l->layer != LAYER_SMB2)
		return loader_fail(l, -EINVAL, "servers = is a key of [smb2] only");
	return set_words(l, v, append, SMB2_FILTER_MAX, server_name_valid,
			 "server name, expected a host name or address", &l->c->smb2_servers);
}

/* [smb2] sessions=: requests and events of these SMB session ids only. */
int keys_smb2_sessions(struct loader *l, const char *v, bool append)
{
	if (l->layer != LAYER_SMB2)
		return loader_fail(l, -EINVAL, "sessions = is a key of [smb2] only");
	return set_words(l, v, append, SMB2_FILTER_MAX, session_id_valid,
			 "session id, expected a number such as 0x2c00000001 (SMB_SESSION_ID)",
			 &l->c->smb2_sessions);
}
