/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The smb2 layer's user-space half: command and NT status names, the
 * decoding of SMB2 events and of the requests a call waited on, and the
 * journal fields made of them.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "layers/cifs/smb2.h"
#include "config/config.h"
#include "core/agent.h"
#include "decode/event.h"
#include "sinks/journal.h"
#include "decode/smb2.h"
#include "layers/smbd/reqlayout.h"
#include "layers/cifs/smbevent.h"
#include "layers/layer.h"
#include "layers/cifs/settings.h"
#include "symbols/mounts.h"

#include "check.h"
#include "base/macro.h"

static const char *field(char **v, int n, const char *name)
{
	size_t len = strlen(name);
	const char *found = NULL;

	for (int i = 0; i < n; i++)
		if (strncmp(v[i], name, len) == 0 && v[i][len] == '=') {
			check(!found, "%s twice", name);
			found = v[i] + len + 1;
		}
	return found;
}

static void check_field(char **v, int n, const char *name, const char *want)
{
	const char *got = field(v, n, name);

	if (!want) {
		check(!got, "%s should be absent, is \"%s\"", name, got);
		return;
	}
	check(got && strcmp(got, want) == 0, "%s=\"%s\", want \"%s\"", name, got ? got : "(absent)", want);
}

static void fields_free(char **v, int n)
{
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

/* A record through the agent's decoding: its head, then its layer's part. */
static int decode(struct decoder *d, struct mounts *m, const void *rec, size_t size, struct record *r)
{
	struct layer_env env = { .dec = d, .mounts = m };

	d->mounts = m;
	return layers_decode(&env, rec, size, r);
}

static void test_names(void)
{
	char buf[16];

	check(strcmp(smb2_command_name(0x00), "SMB2_NEGOTIATE") == 0, "0x00");
	check(strcmp(smb2_command_name(0x05), "SMB2_CREATE") == 0, "0x05");
	check(strcmp(smb2_command_name(0x11), "SMB2_SET_INFO") == 0, "0x11");
	check(strcmp(smb2_command_name(0x12), "SMB2_OPLOCK_BREAK") == 0, "0x12");
	check(smb2_command_name(0x13) == NULL, "0x13 is no SMB2 command");
	check(strcmp(smb2_status_name(0xC0000034, buf, sizeof(buf)), "STATUS_OBJECT_NAME_NOT_FOUND") == 0,
	      "name not found");
	check(strcmp(smb2_status_name(0x80000006, buf, sizeof(buf)), "STATUS_NO_MORE_FILES") == 0,
	      "no more files");
	check(strcmp(smb2_status_name(0xC0009898, buf, sizeof(buf)), "0xC0009898") == 0,
	      "unknown status in hex: %s", buf);
}

/* An SMB2 request as the BPF side sends it, through the decoder and the journal sink. */
static void test_request(void)
{
	struct func fn = { .id = 0, .layer = LAYER_SMB2, .name = "SMB2_CREATE", .module = "cifs" };
	struct func_table t = { .v = &fn, .n = 1, .cap = 1 };
	struct decoder d = { .funcs = &t };
	struct rec_smb2 *e = calloc(1, sizeof(*e));
	struct record r;
	char **v = NULL;
	int n;

	e->h.kind = REC_SMB2_REQ;
	e->h.func_id = 0;
	e->h.latency_ns = 41234567;
	e->h.pid = 300;
	e->h.tid = 301;
	strcpy(e->h.comm, "cat");
	e->h.flags = RF_SMB2_COMPOUND | RF_SMB2_STATUS | RF_SMB2_GRANTED;
	e->ids.mid = 77;
	e->ids.cmd = 5;
	e->ids.status = 0xC0000034;
	e->ids.session = 0x2c00000045ULL;
	e->ids.tree = 0x5;
	e->ids.credit_charge = 1;
	e->ids.credits = 10;
	e->credits_granted = 8;
	e->split = (struct smb2_split) { .send_ns = 1500, .rtt_ns = 40100000, .wake_ns = 1133067 };
	strcpy(e->server, "fs1.example.com");
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check(n > 0, "fields: %d", n);
	check_field(v, n, "FUNCTION", "SMB2_CREATE");
	check_field(v, n, "LAYER", "smb2");
	check_field(v, n, "KERNEL_FUNCTION", NULL);
	check_field(v, n, "LATENCY_US", "41234");
	check_field(v, n, "SMB_MID", "77");
	check_field(v, n, "SMB_COMPOUND", "1");
	check_field(v, n, "SMB_SERVER", "fs1.example.com");
	check_field(v, n, "SMB_STATUS", "STATUS_OBJECT_NAME_NOT_FOUND");
	check_field(v, n, "SMB2_REQUESTS", NULL);
	check_field(v, n, "RETVAL", NULL);
	check_field(v, n, "SMB_SESSION_ID", "0x0000002c00000045");
	check_field(v, n, "SMB_TREE_ID", "0x00000005");
	check_field(v, n, "SMB_ASYNC_ID", NULL);
	check_field(v, n, "SMB_CREDIT_CHARGE", "1");
	check_field(v, n, "SMB_CREDITS_REQUESTED", "10");
	check_field(v, n, "SMB_CREDITS_GRANTED", "8");
	/* the parts, each rounded down: within 2 us of LATENCY_US */
	check_field(v, n, "SMB2_SEND_US", "1");
	check_field(v, n, "SMB2_ROUNDTRIP_US", "40100");
	check_field(v, n, "SMB2_WAKE_US", "1133");
	check_field(v, n, "MESSAGE_ID", SMBLAT_MID_SLOW);
	fields_free(v, n);
	event_record_clear(&r);

	/* an async response: its AsyncId instead of the tree; no grant: none shown */
	e->h.flags = RF_SMB2_ASYNC;
	e->ids.async_id = 0x1f;
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "SMB_ASYNC_ID", "0x000000000000001f");
	check_field(v, n, "SMB_TREE_ID", NULL);
	check_field(v, n, "SMB_CREDITS_GRANTED", NULL);
	fields_free(v, n);
	event_record_clear(&r);

	/* success: no SMB_STATUS; alone: SMB_COMPOUND=0 */
	e->h.flags = RF_SMB2_STATUS;
	e->ids.status = 0;
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "SMB_STATUS", NULL);
	check_field(v, n, "SMB_COMPOUND", "0");
	fields_free(v, n);
	event_record_clear(&r);
	free(e);
}

/* A VFS call that waited on SMB2 requests lists them, the first SMBLAT_WIRE_MAX by name. */
static void test_links(void)
{
	struct func fn = { .id = 0,
			   .layer = LAYER_SMB,
			   .name = "INODE_OP_UNLINK",
			   .symbol = "cifs_unlink",
			   .module = "cifs" };
	struct func_table t = { .v = &fn, .n = 1, .cap = 1 };
	struct decoder d = { .funcs = &t };
	struct rec_vfs_call *e = calloc(1, sizeof(*e));
	struct record r;
	char **v = NULL;
	int n;

	e->c.h.kind = REC_VFS_CALL;
	e->c.h.latency_ns = 70000000;
	e->wire.n = 3;
	e->wire.ns = 60700000;
	e->wire.req[0] = (struct wire_req) { .cmd = 5, .lat_us = 20412 };
	e->wire.req[1] = (struct wire_req) { .cmd = 0x11, .lat_us = 20250 };
	e->wire.req[2] = (struct wire_req) { .cmd = 6, .lat_us = 20038 };
	e->wire.split = (struct smb2_split) { .send_ns = 600000, .rtt_ns = 59000000, .wake_ns = 1100000 };
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "SMB2_REQUESTS", "SMB2_CREATE:20.4ms,SMB2_SET_INFO:20.2ms,SMB2_CLOSE:20.0ms");
	check_field(v, n, "SMB2_REQUEST_COUNT", "3");
	check_field(v, n, "SMB2_WIRE_US", "60700");
	/* the split summed over the requests waited on */
	check_field(v, n, "SMB2_SEND_US", "600");
	check_field(v, n, "SMB2_ROUNDTRIP_US", "59000");
	check_field(v, n, "SMB2_WAKE_US", "1100");
	check_field(v, n, "SMB_SESSION_ID", NULL);
	check_field(v, n, "SMB_MID", NULL);
	fields_free(v, n);
	event_record_clear(&r);

	e->wire.n = SMBLAT_WIRE_MAX + 2;
	for (int i = 0; i < SMBLAT_WIRE_MAX; i++)
		e->wire.req[i] = (struct wire_req) { .cmd = 8, .lat_us = 1000 * i };
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "SMB2_REQUESTS",
		    "SMB2_READ:0.0ms,SMB2_READ:1.0ms,SMB2_READ:2.0ms,"
		    "SMB2_READ:3.0ms,SMB2_READ:4.0ms,SMB2_READ:5.0ms,SMB2_READ:6.0ms,SMB2_READ:7.0ms,...");
	check_field(v, n, "SMB2_REQUEST_COUNT", "10");
	fields_free(v, n);
	event_record_clear(&r);

	/* a call that waited on no request has no list, whatever the rest of the buffer holds */
	e->wire.n = 0;
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "SMB2_REQUESTS", NULL);
	check_field(v, n, "SMB2_REQUEST_COUNT", NULL);
	fields_free(v, n);
	event_record_clear(&r);
	free(e);
}

/* [smb2] errors = is parsed, dumped, and refused elsewhere. */
static void test_config(void)
{
	struct config c;
	char *dump = NULL;
	size_t len = 0;
	FILE *f;
	int r;

	config_init(&c);
	check(c.layer[LAYER_SMB2].automatic && !c.layer[LAYER_SMB2].errors, "defaults: auto, no errors");
	r = config_load_string(&c, "t.conf",
			       "[smb2]\nenabled = yes\nerrors = yes\ninclude = SMB2_CREATE SMB2_CLOSE\n",
			       NULL);
	check(r == 0, "load: %d", r);
	check(c.layer[LAYER_SMB2].enabled && !c.layer[LAYER_SMB2].automatic && c.layer[LAYER_SMB2].errors,
	      "enabled, errors");
	check(c.layer[LAYER_SMB2].include && c.layer[LAYER_SMB2].include[1] &&
		      strcmp(c.layer[LAYER_SMB2].include[1], "SMB2_CLOSE") == 0,
	      "include list");
	f = open_memstream(&dump, &len);
	config_dump(&c, f);
	fclose(f);
	check(dump && strstr(dump, "[smb2]\nenabled = yes\n") && strstr(dump, "errors = yes\n"), "dump: %s",
	      dump);
	free(dump);
	config_free(&c);

	config_init(&c);
	fflush(stderr);
	r = config_load_string(&c, "t.conf", "[block]\nerrors = yes\n", NULL);
	check(r < 0, "errors = in [block] accepted");
	config_free(&c);

	/* filters: names and session ids, at most 4, a session id a number */
	config_init(&c);
	check(smb2_settings(&c)->events && !smb2_settings(&c)->servers && !smb2_settings(&c)->sessions,
	      "defaults: events, no filter");
	r = config_load_string(&c, "t.conf",
			       "[smb2]\nservers = fs1 10.0.0.2\nsessions = 0x2c00000045 "
			       "12345\nconnection_events = no\n",
			       NULL);
	check(r == 0, "load: %d", r);
	check(smb2_settings(&c)->servers && smb2_settings(&c)->servers[1] &&
		      strcmp(smb2_settings(&c)->servers[1], "10.0.0.2") == 0,
	      "servers");
	check(smb2_settings(&c)->sessions && smb2_settings(&c)->sessions[1] &&
		      strcmp(smb2_settings(&c)->sessions[1], "12345") == 0,
	      "sessions");
	check(!smb2_settings(&c)->events, "connection_events = no");
	f = open_memstream(&dump, &len);
	config_dump(&c, f);
	fclose(f);
	check(dump && strstr(dump, "servers = fs1 10.0.0.2\n") &&
		      strstr(dump, "sessions = 0x2c00000045 12345\n") &&
		      strstr(dump, "connection_events = no\n"),
	      "dump: %s", dump);
	free(dump);
	config_free(&c);
	static const char *const bad[] = {
		"[smb2]\nsessions = 0x\n",          "[smb2]\nsessions = -1\n",
		"[smb2]\nsessions = fs1\n",         "[smb2]\nsessions = 0\n",
		"[smb2]\nservers = a b c d e\n",    "[smb]\nservers = a\n",
		"[histogram]\nper_share_max = 0\n",
	};
	for (size_t i = 0; i < ELEMENTSOF(bad); i++) {
		char *err = NULL;

		config_init(&c);
		r = config_load_string(&c, "t.conf", bad[i], &err);
		check(r < 0 && err, "accepted: %s", bad[i]);
		free(err);
		config_free(&c);
	}
}

/* Connection events: their own MESSAGE_ID and MESSAGE, server, session and share. */
static void test_events(void)
{
	struct func fn = { .id = 0,
			   .layer = LAYER_SMB2,
			   .name = "SMB_RECONNECT",
			   .symbol = "smb3_reconnect",
			   .module = "cifs",
			   .backend = BACKEND_RAW_TP };
	struct func_table t = { .v = &fn, .n = 1, .cap = 1 };
	struct decoder d = { .funcs = &t };
	struct rec_smb2 *e = calloc(1, sizeof(*e));
	char mi[] = "/tmp/smblat-test-mountinfo.XXXXXX";
	struct mounts *m = NULL;
	struct record r;
	char **v = NULL;
	FILE *f;
	int n, fd;

	fd = mkstemp(mi);
	f = fdopen(fd, "w");
	fputs("36 25 0:50 / /mnt/a rw - cifs //fs1/a rw\n"
	      "37 25 0:51 / /mnt/b rw - cifs //fs1/b/sub rw\n"
	      "38 25 0:52 / /mnt/c rw - cifs //fs2/c rw\n",
	      f);
	fclose(f);
	check(mounts_new(mi, &m) == 0, "mounts");

	/* a reconnect names its server, the last session seen on it and every share mounted from it */
	e->h.kind = REC_SMB_EVENT;
	e->event = SMB_EV_RECONNECT;
	e->ids.mid = 33;
	e->conn_id = 0x3;
	e->ids.session = 0x99f54b25;
	e->ids.tree = 0xea418690;
	strcpy(e->server, "fs1");
	strcpy(e->h.comm, "cifsd");
	check(decode(&d, m, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "MESSAGE_ID", SMBLAT_MID_SMB_RECONNECT);
	check_field(v, n, "MESSAGE",
		    "SMB_RECONNECT: connection to fs1 lost, reconnecting "
		    "(session 0x0000000099f54b25, \\\\fs1\\a)");
	check_field(v, n, "FUNCTION", "SMB_RECONNECT");
	check_field(v, n, "TARGET", "smb3_reconnect");
	check_field(v, n, "KERNEL_FUNCTION", NULL);
	check_field(v, n, "SMB_SERVER", "fs1");
	check_field(v, n, "SMB_CONN_ID", "0x3");
	check_field(v, n, "SMB_SESSION_ID", "0x0000000099f54b25");
	check_field(v, n, "LATENCY_US", NULL);
	check_field(v, n, "THRESHOLD_US", NULL);
	{
		int shares = 0;

		for (int i = 0; i < n; i++)
			shares += strcmp(v[i], "SMB_SHARE=\\\\fs1\\a") == 0 ||
				  strcmp(v[i], "SMB_SHARE=\\\\fs1\\b") == 0;
		check(shares == 2, "both shares of fs1, not fs2's: %d", shares);
	}
	fields_free(v, n);
	event_record_clear(&r);

	/* a tree connect: the share from its UNC name, its tree id; a failed one its errno */
	e->event = SMB_EV_TREE_CONNECT;
	strcpy(e->name, "\\\\fs2\\c");
	e->server[0] = 0;
	e->conn_id = 0;
	fn.name = "SMB_TREE_CONNECT";
	check(decode(&d, m, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "MESSAGE_ID", SMBLAT_MID_SMB_TREE_CONNECT);
	check_field(v, n, "SMB_SHARE", "\\\\fs2\\c");
	check_field(v, n, "SMB_SERVER", "fs2");
	check_field(v, n, "SMB_TREE_ID", "0xea418690");
	check_field(v, n, "FILE", NULL);
	fields_free(v, n);
	event_record_clear(&r);
	e->event_val[0] = -13;
	check(decode(&d, m, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "ERRNO", "13");
	check_field(v, n, "SMB_TREE_ID", NULL);
	fields_free(v, n);
	event_record_clear(&r);

	/* a session set up: its latency is the request's */
	e->event = SMB_EV_SESSION_SETUP;
	e->h.latency_ns = 43210000;
	strcpy(e->server, "fs2");
	e->name[0] = 0;
	fn.name = "SMB_SESSION_SETUP";
	check(decode(&d, m, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "MESSAGE_ID", SMBLAT_MID_SMB_SESSION_SETUP);
	check_field(v, n, "MESSAGE",
		    "SMB_SESSION_SETUP: session 0x0000000099f54b25 set up with fs2 in 43.210 ms");
	check_field(v, n, "LATENCY_US", "43210");
	check_field(v, n, "SMB_SHARE", "\\\\fs2\\c");
	fields_free(v, n);
	event_record_clear(&r);

	/* a credit stall */
	e->event = SMB_EV_CREDIT_STALL;
	e->h.latency_ns = 0;
	e->ids.session = 0;
	e->event_val[0] = 0;
	e->event_val[1] = 3;
	e->event_val[2] = 0;
	e->event_val[3] = 1;
	fn.name = "SMB_CREDIT_STALL";
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "MESSAGE_ID", SMBLAT_MID_SMB_CREDIT_STALL);
	check_field(v, n, "SMB_CREDITS_NEEDED", "3");
	check_field(v, n, "SMB_STALL", "insufficient");
	check_field(v, n, "SMB_SESSION_ID", NULL);
	fields_free(v, n);
	event_record_clear(&r);

	/* the kernel's slow response: the command by name */
	e->event = SMB_EV_SLOW_RESPONSE;
	e->ids.cmd = 0x11;
	e->h.latency_ns = 1234000000;
	fn.name = "SMB_SLOW_RESPONSE";
	check(decode(&d, NULL, e, sizeof(*e), &r) == 0, "decode");
	n = journal_event_fields(&r, &v);
	check_field(v, n, "MESSAGE_ID", SMBLAT_MID_SMB_SLOW_RESPONSE);
	check_field(v, n, "SMB_COMMAND", "SMB2_SET_INFO");
	check_field(v, n, "SMB_MID", "33");
	check_field(v, n, "LATENCY_US", "1234000");
	fields_free(v, n);
	event_record_clear(&r);

	/* no event, or an unknown kind: refused */
	e->event = _SMB_EV_MAX;
	check(decode(&d, NULL, e, sizeof(*e), &r) == -EINVAL, "unknown kind");
	event_record_clear(&r);
	check(smbevent_message_id(_SMB_EV_MAX) == NULL, "no MESSAGE_ID past the kinds");
	mounts_free(m);
	unlink(mi);
	free(e);
}

/* smbd's request layout from the code of smbd_smb2_is_last_in_compound(). */
static void test_smbd_layout(void)
{
	/* Debian's Samba 4.17: mov 0x9c(%rdi),%eax; add $4,%eax; cmp 0x138(%rdi),%eax; sete; ret */
	static const uint8_t deb[] = { 0x8b, 0x87, 0x9c, 0x00, 0x00, 0x00, 0x83, 0xc0, 0x04, 0x3b,
				       0x87, 0x38, 0x01, 0x00, 0x00, 0x0f, 0x94, 0xc0, 0xc3 };
	/* with endbr64 and 8-bit displacements */
	static const uint8_t cet[] = { 0xf3, 0x0f, 0x1e, 0xfa, 0x8b, 0x47, 0x5c, 0x83, 0xc0,
				       0x04, 0x3b, 0x47, 0x78, 0x0f, 0x94, 0xc0, 0xc3 };
	/* something else: lea instead of add */
	static const uint8_t other[] = { 0x8b, 0x87, 0x9c, 0x00, 0x00, 0x00, 0x8d, 0x40,
					 0x04, 0x3b, 0x87, 0x38, 0x01, 0x00, 0x00, 0xc3 };
	struct smbd_hdr_layout l;

	check(reqlayout_decode(deb, sizeof(deb), &l) == 0 && l.on && l.current_idx == 0x9c &&
		      l.in_vector == 0x130,
	      "Debian: %u %u", l.current_idx, l.in_vector);
	check(reqlayout_decode(cet, sizeof(cet), &l) == 0 && l.current_idx == 0x5c && l.in_vector == 0x70,
	      "endbr64, disp8: %u %u", l.current_idx, l.in_vector);
	check(reqlayout_decode(other, sizeof(other), &l) == -EPROTO, "other code refused");
	check(reqlayout_decode(deb, 8, &l) == -EPROTO, "cut short refused");
}

/* The prototypes cifs had across kernels, in a BTF of our own. */
static void test_hook_args(void)
{
	struct btf *btf = btf__new_empty();
	int i32, kref, mid, hdr, srv, p_kref, p_mid, p_hdr, p_srv, c_hdr, proto;
	uint8_t arg = 9, kr = 9;

	i32 = btf__add_int(btf, "int", 4, BTF_INT_SIGNED);
	kref = btf__add_struct(btf, "kref", 4);
	btf__add_field(btf, "refcount", i32, 0, 0);
	mid = btf__add_struct(btf, "mid_q_entry", 8);
	btf__add_field(btf, "refcount", kref, 32, 0);
	hdr = btf__add_struct(btf, "smb2_hdr", 4);
	btf__add_field(btf, "ProtocolId", i32, 0, 0);
	srv = btf__add_struct(btf, "TCP_Server_Info", 4);
	btf__add_field(btf, "tcpStatus", i32, 0, 0);
	p_kref = btf__add_ptr(btf, kref);
	p_mid = btf__add_ptr(btf, mid);
	p_srv = btf__add_ptr(btf, srv);
	c_hdr = btf__add_const(btf, hdr);
	p_hdr = btf__add_ptr(btf, c_hdr);

	/* smb2_mid_entry_alloc(const struct smb2_hdr *shdr, struct TCP_Server_Info *server) */
	proto = btf__add_func_proto(btf, p_mid);
	btf__add_func_param(btf, "shdr", p_hdr);
	btf__add_func_param(btf, "server", p_srv);
	btf__add_func(btf, "smb2_mid_entry_alloc", BTF_FUNC_STATIC, proto);
	/* 6.1 .. 6.12: __release_mid(struct kref *refcount) */
	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "refcount", p_kref);
	btf__add_func(btf, "__release_mid", BTF_FUNC_GLOBAL, proto);
	/* later: __release_mid(struct TCP_Server_Info *server, struct mid_q_entry *mid) */
	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "server", p_srv);
	btf__add_func_param(btf, "midEntry", p_mid);
	btf__add_func(btf, "release_mid_v2", BTF_FUNC_GLOBAL, proto);
	/* dequeue_mid(struct mid_q_entry *mid, bool malformed) */
	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "mid", p_mid);
	btf__add_func_param(btf, "malformed", i32);
	btf__add_func(btf, "dequeue_mid", BTF_FUNC_GLOBAL, proto);
	/* no mid at all */
	proto = btf__add_func_proto(btf, 0);
	btf__add_func_param(btf, "server", p_srv);
	btf__add_func(btf, "cifs_reconnect", BTF_FUNC_GLOBAL, proto);

	check(smb2_hook_arg(btf, SMB2_HOOK_ALLOC, "smb2_mid_entry_alloc", &arg, &kr) == 0 && arg == 0 &&
		      kr == 0,
	      "alloc: header is argument 0: %u %u", arg, kr);
	check(smb2_hook_arg(btf, SMB2_HOOK_FREE, "__release_mid", &arg, &kr) == 0 && arg == 0 && kr == 1,
	      "free(kref): %u %u", arg, kr);
	check(smb2_hook_arg(btf, SMB2_HOOK_FREE, "release_mid_v2", &arg, &kr) == 0 && arg == 1 && kr == 0,
	      "free(server, mid): %u %u", arg, kr);
	check(smb2_hook_arg(btf, SMB2_HOOK_RESPONSE, "dequeue_mid", &arg, &kr) == 0 && arg == 0 && kr == 0,
	      "dequeue: %u %u", arg, kr);
	check(smb2_hook_arg(btf, SMB2_HOOK_DONE, "cifs_reconnect", &arg, &kr) == -EINVAL,
	      "a function without a mid");
	check(smb2_hook_arg(btf, SMB2_HOOK_DONE, "delete_mid", &arg, &kr) == -ENOENT,
	      "a function not in BTF");
	check(smb2_hook_arg(NULL, SMB2_HOOK_DONE, "delete_mid", &arg, &kr) == -ENOENT, "no BTF");
	btf__free(btf);
}

int main(void)
{
	test_hook_args();
	test_names();
	check(agent_config_register() == 0, "the layers' sections register");
	test_config();
	test_request();
	test_links();
	test_events();
	test_smbd_layout();
	return check_done("smb2");
}
