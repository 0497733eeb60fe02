// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The SMB2 parts of records as fields: a request's header ids, credits and
 * time split (smb2 and smbd layers), and the requests a VFS call waited on
 * (smb layer).
 */
#include <stdio.h>

#include "decode/record.h"
#include "layers/smb2.h"
#include "layers/smb2proto.h"

/* "SMB2_CREATE:20.4ms,SMB2_CLOSE:20.2ms,...": the requests a call waited on. */
static void wire_list(const struct rec_wire *w, char *buf, size_t size)
{
	unsigned int n = w->n < SMBLAT_WIRE_MAX ? w->n : SMBLAT_WIRE_MAX;
	size_t len = 0;

	buf[0] = '\0';
	for (unsigned int i = 0; i < n && len < size; i++) {
		const char *name = smb2_command_name(w->req[i].cmd);

		len += snprintf(buf + len, size - len, "%s%s:%u.%01ums", i ? "," : "", name ? name : "SMB2_?",
				w->req[i].lat_us / 1000, w->req[i].lat_us % 1000 / 100);
	}
	if (w->n > n && len < size)
		snprintf(buf + len, size - len, ",...");
}

static void split_add(struct record *r, const struct smb2_split *s)
{
	record_add(r, "SMB2_SEND_US", "%llu", (unsigned long long)s->send_ns / 1000);
	record_add(r, "SMB2_ROUNDTRIP_US", "%llu", (unsigned long long)s->rtt_ns / 1000);
	record_add(r, "SMB2_WAKE_US", "%llu", (unsigned long long)s->wake_ns / 1000);
}

void smb2_decode_ids(const struct smb2_ids *ids, uint32_t flags, struct record *r)
{
	record_add(r, "SMB_MID", "%llu", (unsigned long long)ids->mid);
	record_add(r, "SMB_SESSION_ID", SMB2_SESSION_FMT, (unsigned long long)ids->session);
	if (flags & RF_SMB2_ASYNC)
		record_add(r, "SMB_ASYNC_ID", "0x%016llx", (unsigned long long)ids->async_id);
	else
		record_add(r, "SMB_TREE_ID", SMB2_TREE_FMT, ids->tree);
}

void smb2_decode_credits(const struct smb2_ids *ids, struct record *r)
{
	record_add(r, "SMB_CREDIT_CHARGE", "%u", ids->credit_charge);
	record_add(r, "SMB_CREDITS_REQUESTED", "%u", ids->credits);
}

int smb2_decode_request(const struct rec_smb2 *e, struct record *r)
{
	char buf[16];

	smb2_decode_ids(&e->ids, e->h.flags, r);
	record_add(r, "SMB_COMPOUND", "%d", !!(e->h.flags & RF_SMB2_COMPOUND));
	if (e->server[0])
		record_add(r, "SMB_SERVER", "%.*s", SMBLAT_NAME_LEN, e->server);
	if ((e->h.flags & RF_SMB2_STATUS) && e->ids.status)
		record_add(r, "SMB_STATUS", "%s", smb2_status_name(e->ids.status, buf, sizeof(buf)));
	smb2_decode_credits(&e->ids, r);
	if (e->h.flags & RF_SMB2_GRANTED)
		record_add(r, "SMB_CREDITS_GRANTED", "%u", e->credits_granted);
	split_add(r, &e->split);
	return 0;
}

void smb2_decode_wire(const struct rec_wire *w, struct record *r)
{
	char buf[SMBLAT_WIRE_MAX * 40 + 8];

	if (!w->n)
		return;
	wire_list(w, buf, sizeof(buf));
	record_add(r, "SMB2_REQUESTS", "%s", buf);
	record_add(r, "SMB2_REQUEST_COUNT", "%u", w->n);
	record_add(r, "SMB2_WIRE_US", "%llu", (unsigned long long)w->ns / 1000);
	split_add(r, &w->split);
}
