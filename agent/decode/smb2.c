// SPDX-License-Identifier: LGPL-2.1-or-later
/* SMB2 protocol names, and the SMB2 parts of records as fields (decode/smb2.h). */
#include <stdio.h>

#include "decode/record.h"
#include "decode/smb2.h"
#include "base/macro.h"

static const char *const commands[] = {
	"SMB2_NEGOTIATE",
	"SMB2_SESSION_SETUP",
	"SMB2_LOGOFF",
	"SMB2_TREE_CONNECT",
	"SMB2_TREE_DISCONNECT",
	"SMB2_CREATE",
	"SMB2_CLOSE",
	"SMB2_FLUSH",
	"SMB2_READ",
	"SMB2_WRITE",
	"SMB2_LOCK",
	"SMB2_IOCTL",
	"SMB2_CANCEL",
	"SMB2_ECHO",
	"SMB2_QUERY_DIRECTORY",
	"SMB2_CHANGE_NOTIFY",
	"SMB2_QUERY_INFO",
	"SMB2_SET_INFO",
	"SMB2_OPLOCK_BREAK",
};

/* The statuses a file client meets in practice. */
static const struct {
	uint32_t code;
	const char *name;
} statuses[] = {
	{ 0x00000000, "STATUS_SUCCESS" },
	{ 0x00000103, "STATUS_PENDING" },
	{ 0x0000010C, "STATUS_NOTIFY_ENUM_DIR" },
	{ 0x80000005, "STATUS_BUFFER_OVERFLOW" },
	{ 0x80000006, "STATUS_NO_MORE_FILES" },
	{ 0x8000002D, "STATUS_STOPPED_ON_SYMLINK" },
	{ 0xC0000008, "STATUS_INVALID_HANDLE" },
	{ 0xC000000D, "STATUS_INVALID_PARAMETER" },
	{ 0xC000000F, "STATUS_NO_SUCH_FILE" },
	{ 0xC0000010, "STATUS_INVALID_DEVICE_REQUEST" },
	{ 0xC0000011, "STATUS_END_OF_FILE" },
	{ 0xC0000016, "STATUS_MORE_PROCESSING_REQUIRED" },
	{ 0xC0000017, "STATUS_NO_MEMORY" },
	{ 0xC0000022, "STATUS_ACCESS_DENIED" },
	{ 0xC0000033, "STATUS_OBJECT_NAME_INVALID" },
	{ 0xC0000034, "STATUS_OBJECT_NAME_NOT_FOUND" },
	{ 0xC0000035, "STATUS_OBJECT_NAME_COLLISION" },
	{ 0xC000003A, "STATUS_OBJECT_PATH_NOT_FOUND" },
	{ 0xC0000043, "STATUS_SHARING_VIOLATION" },
	{ 0xC0000044, "STATUS_QUOTA_EXCEEDED" },
	{ 0xC0000054, "STATUS_FILE_LOCK_CONFLICT" },
	{ 0xC0000055, "STATUS_LOCK_NOT_GRANTED" },
	{ 0xC0000056, "STATUS_DELETE_PENDING" },
	{ 0xC000006D, "STATUS_LOGON_FAILURE" },
	{ 0xC000007E, "STATUS_RANGE_NOT_LOCKED" },
	{ 0xC000007F, "STATUS_DISK_FULL" },
	{ 0xC000009A, "STATUS_INSUFFICIENT_RESOURCES" },
	{ 0xC00000A2, "STATUS_MEDIA_WRITE_PROTECTED" },
	{ 0xC00000B5, "STATUS_IO_TIMEOUT" },
	{ 0xC00000BA, "STATUS_FILE_IS_A_DIRECTORY" },
	{ 0xC00000BB, "STATUS_NOT_SUPPORTED" },
	{ 0xC00000C3, "STATUS_INVALID_NETWORK_RESPONSE" },
	{ 0xC00000C9, "STATUS_NETWORK_NAME_DELETED" },
	{ 0xC00000CC, "STATUS_BAD_NETWORK_NAME" },
	{ 0xC00000D0, "STATUS_REQUEST_NOT_ACCEPTED" },
	{ 0xC00000E5, "STATUS_INTERNAL_ERROR" },
	{ 0xC0000101, "STATUS_DIRECTORY_NOT_EMPTY" },
	{ 0xC0000103, "STATUS_NOT_A_DIRECTORY" },
	{ 0xC0000120, "STATUS_CANCELLED" },
	{ 0xC0000121, "STATUS_CANNOT_DELETE" },
	{ 0xC0000128, "STATUS_FILE_CLOSED" },
	{ 0xC000013B, "STATUS_LOCAL_DISCONNECT" },
	{ 0xC000013C, "STATUS_REMOTE_DISCONNECT" },
	{ 0xC000014B, "STATUS_PIPE_BROKEN" },
	{ 0xC0000185, "STATUS_IO_DEVICE_ERROR" },
	{ 0xC0000203, "STATUS_USER_SESSION_DELETED" },
	{ 0xC000020C, "STATUS_CONNECTION_DISCONNECTED" },
	{ 0xC000020D, "STATUS_CONNECTION_RESET" },
	{ 0xC0000225, "STATUS_NOT_FOUND" },
	{ 0xC0000241, "STATUS_CONNECTION_ABORTED" },
	{ 0xC000035C, "STATUS_NETWORK_SESSION_EXPIRED" },
};

const char *smb2_command_name(unsigned int cmd)
{
	return cmd < ELEMENTSOF(commands) ? commands[cmd] : NULL;
}

const char *smb2_status_name(uint32_t status, char *buf, size_t len)
{
	for (size_t i = 0; i < ELEMENTSOF(statuses); i++)
		if (statuses[i].code == status)
			return statuses[i].name;
	snprintf(buf, len, "0x%08X", status);
	return buf;
}

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
