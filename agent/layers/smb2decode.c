// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The smb2 parts of an event as fields: a request's header ids, credits
 * and time split, and the requests a VFS call waited on.
 */
#include <stdio.h>

#include "decode/event.h"
#include "decode/record.h"
#include "layers/smb2.h"
#include "layers/smb2proto.h"

/* "SMB2_CREATE:20.4ms,SMB2_CLOSE:20.2ms,...": the requests a call waited on. */
static void wire_list(const struct event *e, char *buf, size_t size)
{
	unsigned int n = e->wire_n < SMBLAT_WIRE_MAX ? e->wire_n : SMBLAT_WIRE_MAX;
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && len < size; i++) {
		const char *name = smb2_command_name(e->wire[i].cmd);

		len += snprintf(buf + len, size - len, "%s%s:%u.%01ums", i ? "," : "", name ? name : "SMB2_?",
				e->wire[i].lat_us / 1000, e->wire[i].lat_us % 1000 / 100);
	}
	if (e->wire_n > n && len < size)
		snprintf(buf + len, size - len, ",...");
}

static void split_add(struct record *r, const struct smb2_split *s)
{
	record_add(r, "SMB2_SEND_US", "%llu", (unsigned long long)s->send_ns / 1000);
	record_add(r, "SMB2_ROUNDTRIP_US", "%llu", (unsigned long long)s->rtt_ns / 1000);
	record_add(r, "SMB2_WAKE_US", "%llu", (unsigned long long)s->wake_ns / 1000);
}

/* The ids of an SMB2 header, as the client sent it or the server received it. */
void smb2_decode_ids(const struct event *e, struct record *r)
{
	record_add(r, "SMB_MID", "%llu", (unsigned long long)e->smb_mid);
	record_add(r, "SMB_SESSION_ID", SMB2_SESSION_FMT, (unsigned long long)e->smb_session);
	if (e->flags & EF_SMB2_ASYNC)
		record_add(r, "SMB_ASYNC_ID", "0x%016llx", (unsigned long long)e->smb_async_id);
	else
		record_add(r, "SMB_TREE_ID", SMB2_TREE_FMT, e->smb_tree);
}

int smb2_decode_event(const struct event *e, struct record *r)
{
	char buf[SMBLAT_WIRE_MAX * 40 + 8];

	if ((e->flags & EF_SMB2) && !(e->flags & EF_SMB_EVENT)) {
		smb2_decode_ids(e, r);
		record_add(r, "SMB_COMPOUND", "%d", !!(e->flags & EF_SMB2_COMPOUND));
		if (e->smb_server[0])
			record_add(r, "SMB_SERVER", "%.*s", SMBLAT_NAME_LEN, e->smb_server);
		if ((e->flags & EF_SMB2_STATUS) && e->smb_status)
			record_add(r, "SMB_STATUS", "%s", smb2_status_name(e->smb_status, buf, sizeof(buf)));
		record_add(r, "SMB_CREDIT_CHARGE", "%u", e->smb_credit_charge);
		record_add(r, "SMB_CREDITS_REQUESTED", "%u", e->smb_credits_requested);
		if (e->flags & EF_SMB2_GRANTED)
			record_add(r, "SMB_CREDITS_GRANTED", "%u", e->smb_credits_granted);
		if (e->flags & EF_SMB2_SPLIT)
			split_add(r, &e->smb_split);
	}
	if ((e->flags & EF_WIRE) && e->wire_n) {
		wire_list(e, buf, sizeof(buf));
		record_add(r, "SMB2_REQUESTS", "%s", buf);
		record_add(r, "SMB2_REQUEST_COUNT", "%u", e->wire_n);
		record_add(r, "SMB2_WIRE_US", "%llu", (unsigned long long)e->wire_ns / 1000);
		split_add(r, &e->smb_split);
	}
	return 0;
}
