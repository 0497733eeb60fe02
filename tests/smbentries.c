// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entries of the smb and smb2 layers for the shipper tests (tests/host/elk.sh,
 * rsyslog.sh, journal-remote.sh) on a machine without cifs.ko: records as the
 * decoder makes them from the BPF side's events, formatted by the journal
 * sink itself (journal_event_fields()) and sent to journald. The fields are
 * the agent's; only the kernel that would have timed the calls is missing.
 *   smbentries LABEL   FUNCTION names are LABEL_UNLINK and LABEL_CREATE
 */
#define SD_JOURNAL_SUPPRESS_LOCATION   /* as the agent: no CODE_FILE, CODE_LINE, CODE_FUNC */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include "journal.h"

static int send(const struct record *r)
{
	char **v = NULL;
	int n = journal_event_fields(r, &v), k;
	struct iovec *iov;

	if (n <= 0) {
		fprintf(stderr, "smbentries: journal_event_fields: %d\n", n);
		return 1;
	}
	iov = calloc(n, sizeof(*iov));
	for (int i = 0; iov && i < n; i++)
		iov[i] = (struct iovec) { .iov_base = v[i], .iov_len = strlen(v[i]) };
	k = iov ? sd_journal_sendv(iov, n) : -1;
	if (k < 0)
		fprintf(stderr, "smbentries: sd_journal_sendv: %s\n", strerror(-k));
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	free(iov);
	return k < 0;
}

int main(int argc, char **argv)
{
	char unlink_name[64], create_name[64];
	struct timespec now;
	uint64_t now_us;

	if (argc != 2) {
		fprintf(stderr, "usage: smbentries LABEL\n");
		return 2;
	}
	snprintf(unlink_name, sizeof(unlink_name), "%s_UNLINK", argv[1]);
	snprintf(create_name, sizeof(create_name), "%s_CREATE", argv[1]);
	clock_gettime(CLOCK_REALTIME, &now);
	now_us = now.tv_sec * 1000000ULL + now.tv_nsec / 1000;

	struct func unlink = {
		.id = 1, .layer = LAYER_SMB, .group = GROUP_INODE, .name = unlink_name,
		.symbol = "cifs_unlink", .module = "cifs", .backend = BACKEND_FENTRY,
		.cfg = { .threshold_ns = 10000000, .ret_kind = RK_INT },
	};
	struct func create = { .id = 2, .layer = LAYER_SMB2, .name = create_name, .module = "cifs" };
	/* a slow unlink that failed, after three SMB2 requests */
	struct record u = {
		.func = &unlink, .end_realtime_us = now_us, .latency_ns = 61234567,
		.threshold_ns = 10000000, .pid = 48782, .tid = 48783, .uid = 1000, .comm = "rm",
		.share = "\\\\srv\\share", .file = "a.txt", .has_ret = true, .ret = -13, .err = 13,
		.stack = "cifs_unlink+0x4e [cifs]\nvfs_unlink+0x118\ndo_unlinkat+0x1a0",
		.stack_folded = "do_unlinkat;vfs_unlink;cifs_unlink",
		.wire_n = 3, .wire_ns = 60700000,
		.wire = { { .cmd = 5, .lat_us = 20412 }, { .cmd = 0x11, .lat_us = 20250 },
			  { .cmd = 6, .lat_us = 20038 } },
	};
	/* one of them: a compound CREATE the server refused */
	struct record c = {
		.func = &create, .end_realtime_us = now_us - 40000, .latency_ns = 20412000,
		.threshold_ns = 10000000, .pid = 48782, .tid = 48783, .uid = 1000, .comm = "rm",
		.share = "\\\\srv\\share", .file = "a.txt",
		.smb2 = true, .smb_compound = true, .smb_has_status = true, .smb_cmd = 5,
		.smb_status = 0xC0000022, .smb_mid = 77, .smb_server = "srv.example.com",
	};

	return send(&c) | send(&u);
}
