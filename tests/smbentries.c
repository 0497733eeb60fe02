// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Entries of the smb and smb2 layers for the shipper tests (tests/host/elk.sh,
 * rsyslog.sh, journal-remote.sh) on a machine without cifs.ko: events as the
 * BPF side sends them (bpf/record.h), decoded by the agent's decoding and
 * the layers owning them (layers_decode()), formatted by the journal sink
 * (journal_event_fields()) and sent to journald. Only the kernel that would
 * have timed the calls is missing; the share, which the decoder finds in the
 * mount table, is set by hand. Then the connection events of each kind,
 * the views' summaries: per share, per server, per
 * layer (journal_write_view_summary()), and a loss entry of requests the
 * smb2 layer could not time (UNTIMED). Also the smbd layer's views that
 * need an smbd in trouble (exits, breaks) or at work (its time split),
 * through the same decoding and its entry builders.
 *   smbentries LABEL   FUNCTION names begin with LABEL_
 */
#define SD_JOURNAL_SUPPRESS_LOCATION /* as the agent: no CODE_FILE, CODE_LINE, CODE_FUNC */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/uio.h>
#include <systemd/sd-journal.h>
#include <time.h>

#include <arpa/inet.h>
#include <netinet/in.h>

#include "decode/event.h"
#include "decode/smb2.h"
#include "layers/smbd/views.h"
#include "layers/cifs/smbevent.h"
#include "layers/layer.h"
#include "sinks/journal.h"

static int send_fields(char **v, int n)
{
	struct iovec *iov;
	int k;

	if (n <= 0) {
		fprintf(stderr, "smbentries: no fields: %d\n", n);
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

static int record_send(struct record *r)
{
	char **v = NULL;
	int n = journal_event_fields(r, &v); /* before v is read */

	return send_fields(v, n);
}

/*
 * A record through the agent's decoding, then to journald; share: the
 * share the decoder would have found in the mount table, or NULL.
 */
static int decode_send_dropped(const struct decoder *d, const void *rec, size_t size, const char *share,
			       unsigned int dropped)
{
	struct layer_env env = { .dec = d };
	struct record r = {};
	int k;

	if (layers_decode(&env, rec, size, &r) < 0) {
		fprintf(stderr, "smbentries: decoding failed\n");
		event_record_clear(&r);
		return 1;
	}
	/* as a record whose layer had more fields than it holds says it (FIELDS_DROPPED) */
	r.fields_dropped = dropped;
	if (share)
		r.share = share;
	k = record_send(&r);
	if (share)
		r.share = NULL;
	event_record_clear(&r);
	return k;
}

static int decode_send(const struct decoder *d, const void *rec, size_t size, const char *share)
{
	return decode_send_dropped(d, rec, size, share, 0);
}

/* The head of a record of smbd 4242. */
static struct rec_head smbd_head(enum rec_kind kind, uint32_t id, uint64_t end_ns, uint64_t lat)
{
	struct rec_head h = { .kind = kind, .func_id = id, .end_ns = end_ns, .latency_ns = lat };

	h.pid = h.tid = 4242;
	strcpy(h.comm, "smbd");
	return h;
}

/* smbd 4242's exits (after exit_server, killed, strings unread), breaks and time split; exit_id: SMBD_EXIT's, the lease break's next. */
static int smbd_views(const struct decoder *d, uint64_t now_ns, uint32_t exit_id)
{
	struct sockaddr_in peer = { .sin_family = AF_INET, .sin_port = htons(50376) };
	struct smbd_split_entry s = {
		.pid = 4242,
		.interval_s = 60,
		.threads = 1,
		.wall_ns = 60000000000ULL,
		.phase_ns = { 1000000000ULL, 50000000000ULL, 500000000ULL, 300000000ULL, 7000000000ULL,
			      1200000000ULL, 0 },
		.n = { 2000, 10, 300, 0, 2200, 0, 2100, 2200 },
		.syscall_ns = 6500000000ULL,
		.syscalls = 90000,
		.read_ns = 2000000000ULL,
		.reads = 1500,
		.write_ns = 3000000000ULL,
		.writes = 1400,
		.client = "192.0.2.7:50376",
	};
	struct rec_smbd_exit *x = calloc(1, sizeof(*x));
	struct rec_smbd_break b = {};
	char **v = NULL;
	int k, n;

	if (!x)
		return 1;
	inet_pton(AF_INET, "192.0.2.7", &peer.sin_addr);
	x->h = smbd_head(REC_SMBD_EXIT, exit_id, now_ns, 93000000000ULL);
	strcpy(x->reason, "NT_STATUS_NO_MEMORY");
	strcpy(x->location, "../../source3/smbd/smb2_server.c:5054");
	x->status = 0xC0000017;
	memcpy(x->peer, &peer, sizeof(peer));
	x->last_err_nr = 20 + 1; /* writev */
	x->last_err = ENOMEM;
	x->ppid = 4000;
	x->exit_how = 2;
	x->last_err_ago_ns = 300000;
	k = decode_send(d, x, sizeof(*x), NULL);
	/* killed: a signal, no reason */
	x->reason[0] = x->location[0] = '\0';
	x->status = 0;
	x->exit_code = 9;
	x->last_err_nr = 0;
	x->last_err = 0;
	k |= decode_send(d, x, sizeof(*x), NULL);
	/* on a kernel without sleepable uprobes: smbd's strings were not in memory */
	x->status = 0xC000020C; /* STATUS_CONNECTION_DISCONNECTED */
	x->exit_code = 0;
	x->unread = SMBD_STR_REASON | SMBD_STR_LOCATION;
	k |= decode_send(d, x, sizeof(*x), NULL);
	free(x);
	/* a lease break answered */
	b.h = smbd_head(REC_SMBD_BREAK, exit_id + 1, now_ns, 2500000);
	b.from = 7; /* RWH */
	b.to = 1;   /* R */
	b.key[0] = 0x0123456789abcdefULL;
	b.key[1] = 0xfedcba9876543210ULL;
	k |= decode_send(d, &b, sizeof(b), NULL);
	n = smbd_split_fields(&s, &v); /* before v is read */
	k |= send_fields(v, n);
	return k;
}

/* One connection event of kind k by function id, about srv.example.com. */
static int event_send(const struct decoder *d, uint32_t id, enum smb_event k, uint64_t end_ns)
{
	struct rec_smb2 e = { .h = { .kind = REC_SMB_EVENT, .func_id = id, .end_ns = end_ns } };

	e.h.pid = 812;
	e.h.tid = 812;
	strcpy(e.h.comm, "cifsd");
	e.event = k;
	e.ids.mid = 91;
	e.ids.session = 0x2c00000045ULL;
	e.ids.tree = 5;
	e.conn_id = 0x3;
	strcpy(e.server, "srv.example.com");
	switch (k) {
	case SMB_EV_SESSION_SETUP:
		e.h.latency_ns = 40200000;
		break;
	case SMB_EV_SESSION_EXPIRED:
		e.ids.cmd = 5;
		break;
	case SMB_EV_TREE_CONNECT:
		strcpy(e.name, "\\\\srv.example.com\\share");
		break;
	case SMB_EV_CREDIT_STALL:
		e.event_val[1] = 3;
		e.event_val[2] = 12;
		break;
	case SMB_EV_SLOW_RESPONSE:
		e.ids.cmd = 8;
		e.h.latency_ns = 1203000000;
		break;
	default:
		break;
	}
	return decode_send(d, &e, sizeof(e), NULL);
}

/* The views' summaries: per share and per server (smb2 layer), per layer (breakdown). */
static int views_send(const char *label)
{
	char fn[64];
	struct summary s;
	struct journal *j;
	int k = 0;

	if (journal_new(NULL, &j) < 0)
		return 1;
	hist_init(&s);
	hist_add(&s, 20100000);
	hist_add(&s, 41000000);
	s.slow = 1;
	snprintf(fn, sizeof(fn), "%s_CREATE", label);
	k |= journal_write_view_summary(
		     j, fn, LAYER_SMB2, &s, 60,
		     (struct record_field[]) { { "SMB_SHARE", "\\\\srv\\share" }, { "SMB_SERVER", "srv" } },
		     2, SMBLAT_MID_SHARE_SUMMARY) < 0;
	k |= journal_write_view_summary(j, fn, LAYER_SMB2, &s, 60,
					(struct record_field[]) { { "SMB_SERVER", "srv" } }, 1,
					SMBLAT_MID_SERVER_SUMMARY) < 0;
	k |= journal_write_view_summary(j, "BREAKDOWN_SMB2", LAYER_SMB2, &s, 60,
					(struct record_field[]) { { "BREAKDOWN_LAYER", "smb2" } }, 1,
					SMBLAT_MID_BREAKDOWN) < 0;
	journal_free(j);
	if (k)
		fprintf(stderr, "smbentries: a view summary was not written\n");
	return k;
}

int main(int argc, char **argv)
{
	static const char *const kinds[_SMB_EV_MAX] = {
		"RECONNECT",    "SESSION_SETUP", "LOGOFF",        "SESSION_EXPIRED",
		"TREE_CONNECT", "CREDIT_STALL",  "SLOW_RESPONSE",
	};
	char names[2 + _SMB_EV_MAX][64];
	struct func fns[4 + _SMB_EV_MAX];
	struct rec_vfs_call *v = calloc(1, sizeof(*v));
	const char *share = "\\\\srv\\share";
	struct rec_smb2 q = {};
	uint64_t end;
	int k;

	if (argc != 2) {
		fprintf(stderr, "usage: smbentries LABEL\n");
		return 2;
	}
	if (!v)
		return 1;
	snprintf(names[0], sizeof(names[0]), "%s_UNLINK", argv[1]);
	snprintf(names[1], sizeof(names[1]), "%s_CREATE", argv[1]);
	fns[0] = (struct func) { .id = 0,
				 .layer = LAYER_SMB,
				 .group = GROUP_INODE,
				 .name = names[0],
				 .symbol = "cifs_unlink",
				 .kernel = true,
				 .module = "cifs",
				 .backend = BACKEND_FENTRY,
				 .cfg = { .threshold_ns = 10000000, .ret_kind = RK_INT } };
	fns[1] = (struct func) { .id = 1,
				 .layer = LAYER_SMB2,
				 .name = names[1],
				 .module = "cifs",
				 .cfg = { .threshold_ns = 10000000 } };
	for (int i = 0; i < _SMB_EV_MAX; i++) {
		snprintf(names[2 + i], sizeof(names[2 + i]), "%s_%s", argv[1], kinds[i]);
		fns[2 + i] = (struct func) { .id = 2 + i,
					     .layer = LAYER_SMB2,
					     .name = names[2 + i],
					     .symbol = "smb3_tracepoint",
					     .module = "cifs",
					     .backend = BACKEND_RAW_TP };
	}
	fns[2 + _SMB_EV_MAX] = (struct func) {
		.id = 2 + _SMB_EV_MAX,
		.layer = LAYER_SMBD,
		.name = "SMBD_EXIT",
		.symbol = "/usr/lib/x86_64-linux-gnu/samba/libsmbd-base-samba4.so.0:smbd_exit_server"
	};
	fns[3 + _SMB_EV_MAX] = (struct func) {
		.id = 3 + _SMB_EV_MAX,
		.layer = LAYER_SMBD,
		.name = "SMBD_LEASE_BREAK",
		.symbol =
			"/usr/lib/x86_64-linux-gnu/samba/libsmbd-base-samba4.so.0:smbd_smb2_send_lease_break"
	};
	struct func_table t = { .v = fns, .n = 4 + _SMB_EV_MAX, .cap = 4 + _SMB_EV_MAX };
	struct decoder d = { .funcs = &t, .boot_to_realtime_ns = event_clock_offset() };
	struct timespec now;

	clock_gettime(CLOCK_BOOTTIME, &now);
	end = now.tv_sec * 1000000000ULL + now.tv_nsec;
	/* one of the requests below: a compound CREATE the server refused */
	q.h = (struct rec_head) { .kind = REC_SMB2_REQ,
				  .func_id = 1,
				  .end_ns = end - 40000000,
				  .latency_ns = 20412000,
				  .pid = 48782,
				  .tid = 48783,
				  .uid = 1000 };
	strcpy(q.h.comm, "rm");
	strcpy(q.name, "a.txt");
	q.h.flags = RF_HAS_NAME | RF_SMB2_COMPOUND | RF_SMB2_STATUS | RF_SMB2_GRANTED;
	q.ids.mid = 77;
	q.ids.cmd = 5;
	q.ids.status = 0xC0000022;
	q.ids.session = 0x2c00000045ULL;
	q.ids.tree = 5;
	q.ids.credit_charge = 1;
	q.ids.credits = 10;
	q.credits_granted = 10;
	q.split = (struct smb2_split) { .send_ns = 12000, .rtt_ns = 20300000, .wake_ns = 100000 };
	strcpy(q.server, "srv.example.com");
	k = decode_send(&d, &q, sizeof(q), share);
	/* the same answered asynchronously: its async id instead of the tree */
	q.h.flags = RF_HAS_NAME | RF_SMB2_ASYNC;
	q.ids.mid = 78;
	q.ids.async_id = 0x1f;
	k |= decode_send(&d, &q, sizeof(q), share);
	/* a slow unlink that failed, after three SMB2 requests */
	v->c.h = (struct rec_head) { .kind = REC_VFS_CALL,
				     .func_id = 0,
				     .end_ns = end,
				     .latency_ns = 61234567,
				     .pid = 48782,
				     .tid = 48783,
				     .uid = 1000 };
	strcpy(v->c.h.comm, "rm");
	strcpy(v->name, "a.txt");
	v->c.h.flags = RF_HAS_NAME | RF_HAS_RET;
	v->c.ret = (uint64_t)-EACCES;
	v->wire.n = 3;
	v->wire.ns = 60700000;
	v->wire.req[0] = (struct wire_req) { .cmd = 5, .lat_us = 20412 };
	v->wire.req[1] = (struct wire_req) { .cmd = 0x11, .lat_us = 20250 };
	v->wire.req[2] = (struct wire_req) { .cmd = 6, .lat_us = 20038 };
	v->wire.split = (struct smb2_split) { .send_ns = 36000, .rtt_ns = 60364000, .wake_ns = 300000 };
	k |= decode_send(&d, v, sizeof(*v), share);
	/* the same, as if two of its fields had found no room */
	k |= decode_send_dropped(&d, v, sizeof(*v), share, 2);
	free(v);
	for (int i = 0; i < _SMB_EV_MAX; i++)
		k |= event_send(&d, 2 + i, i, end);
	k |= views_send(argv[1]);
	k |= smbd_views(&d, end, 2 + _SMB_EV_MAX);
	/* requests the smb2 layer could not time, runs the kernel skipped: a loss entry with UNTIMED and RECURSION_MISSES */
	{
		struct loss l = { .func = &fns[1], .untimed = 2 };
		char **v = NULL;
		int n = journal_loss_fields(&l, 1, 3, 60, &v);

		k |= send_fields(v, n);
	}
	return k;
}
