// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Connection events, decoded: each kind its own MESSAGE_ID (the catalog
 * explains them) and MESSAGE, with the server, session and share it
 * concerns as far as the event or the mount table tells them.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "decode/record.h"
#include "layers/smb2.h"
#include "layers/smb2proto.h"
#include "layers/smbevent.h"
#include "sinks/journal.h"
#include "symbols/mounts.h"

#define SHARES_MAX 8

static const char *const message_ids[_SMB_EV_MAX] = {
	[SMB_EV_RECONNECT] = SMBLAT_MID_SMB_RECONNECT,
	[SMB_EV_SESSION_SETUP] = SMBLAT_MID_SMB_SESSION_SETUP,
	[SMB_EV_LOGOFF] = SMBLAT_MID_SMB_LOGOFF,
	[SMB_EV_SESSION_EXPIRED] = SMBLAT_MID_SMB_SESSION_EXPIRED,
	[SMB_EV_TREE_CONNECT] = SMBLAT_MID_SMB_TREE_CONNECT,
	[SMB_EV_CREDIT_STALL] = SMBLAT_MID_SMB_CREDIT_STALL,
	[SMB_EV_SLOW_RESPONSE] = SMBLAT_MID_SMB_SLOW_RESPONSE,
};

const char *smbevent_message_id(unsigned int k)
{
	return k < _SMB_EV_MAX ? message_ids[k] : NULL;
}

/* "\\server\share" -> "server" into buf; NULL when unc is no UNC name. */
static const char *unc_server(const char *unc, char *buf, size_t size)
{
	size_t n;

	if (strncmp(unc, "\\\\", 2) != 0)
		return NULL;
	n = strcspn(unc + 2, "\\");
	if (!n || n >= size)
		return NULL;
	memcpy(buf, unc + 2, n);
	buf[n] = '\0';
	return buf;
}

/*
 * SMB_SHARE: the event's own share (its device), else every share mounted
 * from its server, the first as the record's share, the others added.
 * Returns the first, for MESSAGE; NULL when none is known.
 */
static const char *shares_add(struct record *r, const char *server, struct mounts *m)
{
	const char *v[SHARES_MAX];
	size_t n;

	if (r->share || !m || !server || !*server)
		return r->share;
	n = mounts_server_shares(m, server, v, SHARES_MAX);
	if (!n)
		return NULL;
	r->share = v[0];
	for (size_t i = 1; i < n; i++)
		record_add(r, "SMB_SHARE", "%s", v[i]);
	return r->share;
}

static void server_add(struct record *r, const char *server, uint64_t conn_id)
{
	if (server && *server)
		record_add(r, "SMB_SERVER", "%s", server);
	if (conn_id)
		record_add(r, "SMB_CONN_ID", "0x%llx", (unsigned long long)conn_id);
}

/* " (session 0x..., \\srv\share)": who the event is about, as far as known. */
static void about(char *buf, size_t size, const struct event *e, const char *share)
{
	char ses[32] = "";

	if (e->smb_session)
		snprintf(ses, sizeof(ses), "session " SMB2_SESSION_FMT, (unsigned long long)e->smb_session);
	if (*ses && share)
		snprintf(buf, size, " (%s, %s)", ses, share);
	else if (*ses || share)
		snprintf(buf, size, " (%s)", *ses ? ses : share);
	else
		buf[0] = '\0';
}

static const char *command(const struct event *e)
{
	const char *c = smb2_command_name(e->smb_cmd);

	return c ? c : "SMB2_?";
}

static void server_event(const struct event *e, struct record *r, struct mounts *m)
{
	const char *server = e->smb_server, *share;
	char who[256];

	server_add(r, server, e->smb_conn_id);
	if (e->smb_session)
		smb2_decode_ids(e, r);
	share = shares_add(r, server, m);
	about(who, sizeof(who), e, share);
	switch (e->smb_event) {
	case SMB_EV_RECONNECT:
		record_set_message(r, message_ids[e->smb_event], "SMB_RECONNECT: connection to %s "
				   "lost, reconnecting%s", *server ? server : "?", who);
		break;
	case SMB_EV_CREDIT_STALL:
		record_add(r, "SMB_CREDITS", "%d", e->smb_event_val[0]);
		record_add(r, "SMB_CREDITS_NEEDED", "%d", e->smb_event_val[1]);
		record_add(r, "SMB_IN_FLIGHT", "%d", e->smb_event_val[2]);
		record_add(r, "SMB_STALL", "%s", e->smb_event_val[3] ? "insufficient" : "timeout");
		record_set_message(r, message_ids[e->smb_event], "SMB_CREDIT_STALL: %s: %d credits "
				   "for %d needed, %d in flight%s%s", *server ? server : "?",
				   e->smb_event_val[0], e->smb_event_val[1], e->smb_event_val[2],
				   e->smb_event_val[3] ? ", none to wait for" : ", timed out waiting",
				   who);
		break;
	}
}

static void session_event(const struct event *e, struct record *r, struct mounts *m)
{
	const char *server = e->smb_server, *share;
	uint64_t us = e->latency_ns / 1000;
	char who[256];

	server_add(r, server, e->smb_conn_id);
	smb2_decode_ids(e, r);
	share = shares_add(r, server, m);
	about(who, sizeof(who), e, share);
	switch (e->smb_event) {
	case SMB_EV_SESSION_SETUP:
		record_set_message(r, message_ids[e->smb_event], "SMB_SESSION_SETUP: session "
				   SMB2_SESSION_FMT " set up with %s in %llu.%03llu ms",
				   (unsigned long long)e->smb_session, *server ? server : "?",
				   (unsigned long long)us / 1000, (unsigned long long)us % 1000);
		break;
	case SMB_EV_LOGOFF:
		record_set_message(r, message_ids[e->smb_event], "SMB_LOGOFF: session "
				   SMB2_SESSION_FMT " logged off from %s%s",
				   (unsigned long long)e->smb_session, *server ? server : "?", who);
		break;
	case SMB_EV_SESSION_EXPIRED:
		record_add(r, "SMB_COMMAND", "%s", command(e));
		record_set_message(r, message_ids[e->smb_event], "SMB_SESSION_EXPIRED: session "
				   SMB2_SESSION_FMT " expired (%s mid %llu)",
				   (unsigned long long)e->smb_session, command(e),
				   (unsigned long long)e->smb_mid);
		break;
	}
}

static void tree_event(const struct event *e, struct record *r)
{
	char unc[SMBLAT_NAME_LEN + 1], server[SMBLAT_NAME_LEN];
	int rc = e->smb_event_val[0];

	snprintf(unc, sizeof(unc), "%.*s", SMBLAT_NAME_LEN, e->name);
	server_add(r, unc_server(unc, server, sizeof(server)), 0);
	if (*unc)
		record_add(r, "SMB_SHARE", "%s", unc);
	record_add(r, "SMB_SESSION_ID", SMB2_SESSION_FMT, (unsigned long long)e->smb_session);
	if (rc == 0) {
		record_add(r, "SMB_TREE_ID", SMB2_TREE_FMT, e->smb_tree);
		record_set_message(r, message_ids[e->smb_event], "SMB_TREE_CONNECT: %s connected, "
				   "tree " SMB2_TREE_FMT " of session " SMB2_SESSION_FMT, unc, e->smb_tree,
				   (unsigned long long)e->smb_session);
		return;
	}
	r->err = rc < 0 && rc >= -4095 ? -rc : 0;
	record_set_message(r, message_ids[e->smb_event], "SMB_TREE_CONNECT: %s failed (%d) in "
			   "session " SMB2_SESSION_FMT, unc, rc, (unsigned long long)e->smb_session);
}

static void slow_response_event(const struct event *e, struct record *r, struct mounts *m)
{
	uint64_t us = e->latency_ns / 1000;
	char who[256];
	const char *share;

	server_add(r, e->smb_server, e->smb_conn_id);
	record_add(r, "SMB_COMMAND", "%s", command(e));
	if (e->smb_session)
		smb2_decode_ids(e, r);
	else
		record_add(r, "SMB_MID", "%llu", (unsigned long long)e->smb_mid);
	share = shares_add(r, e->smb_server, m);
	about(who, sizeof(who), e, share);
	if (us)
		record_set_message(r, message_ids[e->smb_event], "SMB_SLOW_RESPONSE: cifs saw %s "
				   "mid %llu of %s answered slowly, %llu.%03llu ms%s", command(e),
				   (unsigned long long)e->smb_mid, *e->smb_server ? e->smb_server : "?",
				   (unsigned long long)us / 1000, (unsigned long long)us % 1000, who);
	else
		record_set_message(r, message_ids[e->smb_event], "SMB_SLOW_RESPONSE: cifs saw %s "
				   "mid %llu answered slowly", command(e), (unsigned long long)e->smb_mid);
}

int smbevent_decode(const struct event *e, struct record *r, struct mounts *m)
{
	if (!(e->flags & EF_SMB_EVENT) || e->smb_event >= _SMB_EV_MAX)
		return -EINVAL;
	switch (e->smb_event) {
	case SMB_EV_RECONNECT:
	case SMB_EV_CREDIT_STALL:
		server_event(e, r, m);
		break;
	case SMB_EV_SESSION_SETUP:
	case SMB_EV_LOGOFF:
	case SMB_EV_SESSION_EXPIRED:
		session_event(e, r, m);
		break;
	case SMB_EV_TREE_CONNECT:
		tree_event(e, r);
		break;
	case SMB_EV_SLOW_RESPONSE:
		slow_response_event(e, r, m);
		break;
	}
	return r->message ? 0 : -ENOMEM;
}
