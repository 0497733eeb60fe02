/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The journald sink: field names and values of each entry kind, the STACK
 * cap, and a round trip through a real systemd-journald and journalctl.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <syslog.h>
#include <time.h>
#include <unistd.h>

#include "sinks/fields.h"
#include "sinks/journal.h"

#define JOURNALD "/lib/systemd/systemd-journald"

#include "check.h"

struct entry {
	char **v;
	int n;
};

static void entry_free(struct entry *e)
{
	for (int i = 0; i < e->n; i++)
		free(e->v[i]);
	free(e->v);
	*e = (struct entry) {};
}

/* Value of NAME, NULL when absent; fails the test when NAME appears twice. */
static const char *entry_get(const struct entry *e, const char *name)
{
	size_t len = strlen(name);
	const char *found = NULL;

	for (int i = 0; i < e->n; i++)
		if (strncmp(e->v[i], name, len) == 0 && e->v[i][len] == '=') {
			CHECK(!found, "field %s twice", name);
			found = e->v[i] + len + 1;
		}
	return found;
}

static void check_field(const struct entry *e, const char *name, const char *want)
{
	const char *v = entry_get(e, name);

	if (!want) {
		CHECK(!v, "%s should be absent, is \"%s\"", name, v);
		return;
	}
	CHECK(v, "%s missing", name);
	if (v)
		CHECK(strcmp(v, want) == 0, "%s=\"%s\", want \"%s\"", name, v, want);
}

static void check_names_valid(const struct entry *e)
{
	for (int i = 0; i < e->n; i++) {
		char *eq = strchr(e->v[i], '=');

		CHECK(eq, "field without '=': %s", e->v[i]);
		if (!eq)
			continue;
		*eq = '\0';
		CHECK(journal_field_name_valid(e->v[i]), "invalid field name %s", e->v[i]);
		*eq = '=';
	}
}

static struct func fn_unlink = {
	.id = 7,
	.layer = LAYER_SMB,
	.group = GROUP_INODE,
	.name = "INODE_OP_UNLINK",
	.symbol = "cifs_unlink",
	.module = "cifs",
	.kernel = true,
	.cfg = { .threshold_ns = 10000000, .ret_kind = RK_INT },
	.backend = BACKEND_FENTRY,
};

static struct record sample(void)
{
	return (struct record) {
		.func = &fn_unlink,
		.end_realtime_us = 1700000000123456,
		.latency_ns = 16351234,
		.threshold_ns = 10000000,
		.pid = 48782,
		.tid = 48783,
		.uid = 1000,
		.comm = "rm",
		.share = "\\\\srv\\share",
		.file = "a.txt",
		.has_ret = true,
		.ret = -2,
		.err = ENOENT,
		.nargs = 2,
		.args = { 0xffff888012345678, 0x1 },
		.stack = "cifs_unlink+0x0/0x3a0 [cifs]\nvfs_unlink+0x118/0x2e0\ndo_unlinkat+0x1a0/0x2f0",
		.stack_folded = "do_unlinkat;vfs_unlink;cifs_unlink",
	};
}

static void test_field_names(void)
{
	char name[80];

	CHECK(journal_field_name_valid("FUNCTION"), "plain name");
	CHECK(journal_field_name_valid("A"), "one letter");
	CHECK(journal_field_name_valid("P99_US"), "digits inside");
	CHECK(journal_field_name_valid("END_REALTIME_USEC"), "underscores");
	CHECK(!journal_field_name_valid(NULL), "NULL");
	CHECK(!journal_field_name_valid(""), "empty");
	CHECK(!journal_field_name_valid("_PID"), "leading underscore is trusted-field space");
	CHECK(!journal_field_name_valid("9LIVES"), "leading digit");
	CHECK(!journal_field_name_valid("latency"), "lower case");
	CHECK(!journal_field_name_valid("SMB-SHARE"), "dash");
	CHECK(!journal_field_name_valid("A B"), "space");
	CHECK(!journal_field_name_valid("A=B"), "equals sign");
	CHECK(!journal_field_name_valid("ÄPFEL"), "non-ASCII");

	memset(name, 'X', 64);
	name[64] = '\0';
	CHECK(journal_field_name_valid(name), "64 characters are allowed");
	name[64] = 'X';
	name[65] = '\0';
	CHECK(!journal_field_name_valid(name), "65 characters are too many");
}

static void test_event_fields(void)
{
	struct record r = sample();
	struct entry e = {};
	char prio[8];

	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_names_valid(&e);
	snprintf(prio, sizeof(prio), "%d", LOG_WARNING);

	check_field(&e, "MESSAGE",
		    "INODE_OP_UNLINK took 16.351 ms: rm[48782] on \\\\srv\\share file a.txt (error ENOENT)");
	check_field(&e, "MESSAGE_ID", SMBLAT_MID_SLOW);
	check_field(&e, "PRIORITY", prio);
	check_field(&e, "SYSLOG_IDENTIFIER", "smblat");
	check_field(&e, "SYSLOG_FACILITY", "3");
	check_field(&e, "FUNCTION", "INODE_OP_UNLINK");
	check_field(&e, "LAYER", "smb");
	check_field(&e, "KERNEL_FUNCTION", "cifs_unlink");
	check_field(&e, "TARGET", NULL);
	check_field(&e, "LATENCY_US", "16351");
	check_field(&e, "LATENCY_NS", NULL);
	check_field(&e, "THRESHOLD_US", "10000");
	check_field(&e, "REASON", "slow");
	check_field(&e, "END_REALTIME_USEC", "1700000000123456");
	check_field(&e, "PID", "48782");
	check_field(&e, "THREAD_ID", "48783");
	check_field(&e, "TID", NULL);
	check_field(&e, "UID", "1000");
	check_field(&e, "COMM", "rm");
	check_field(&e, "SMB_SHARE", "\\\\srv\\share");
	check_field(&e, "FILE", "a.txt");
	check_field(&e, "ERRNO", "2");
	check_field(&e, "ERRNO_NAME", "ENOENT");
	check_field(&e, "RETVAL", "-2");
	check_field(&e, "ARGS", "0xffff888012345678 0x1");
	check_field(&e, "STACK", r.stack);
	check_field(&e, "STACK_FOLDED", r.stack_folded);
	CHECK(e.n == 24, "%d fields, want 24", e.n);
	entry_free(&e);
}

static void test_event_minimal(void)
{
	struct func fn = {
		.layer = LAYER_SMB,
		.name = "FILE_OP_READ_ITER",
		.symbol = "cifs_loose_read_iter",
		.kernel = true,
		.cfg = { .ret_kind = RK_INT },
	};
	struct record r = {
		.func = &fn,
		.latency_ns = 999999,
		.threshold_ns = 500000,
		.pid = 1,
		.tid = 1,
		.comm = "cat",
	};
	struct entry e = {};

	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_names_valid(&e);
	check_field(&e, "MESSAGE", "FILE_OP_READ_ITER took 0.999 ms: cat[1]");
	check_field(&e, "LATENCY_US", "999");
	check_field(&e, "UID", "0");
	check_field(&e, "SMB_SHARE", NULL);
	check_field(&e, "FILE", NULL);
	check_field(&e, "ERRNO", NULL);
	check_field(&e, "ERRNO_NAME", NULL);
	check_field(&e, "RETVAL", NULL);
	check_field(&e, "ARGS", NULL);
	check_field(&e, "STACK", NULL);
	check_field(&e, "STACK_FOLDED", NULL);
	entry_free(&e);
}

static void test_event_errors(void)
{
	struct func fn = {
		.layer = LAYER_SMB2,
		.name = "SMB2_CREATE",
		.symbol = "SMB2_open",
		.kernel = true,
		.cfg = { .ret_kind = RK_INT },
	};
	struct record r = {
		.func = &fn,
		.latency_ns = 2000000,
		.pid = 5,
		.tid = 6,
		.comm = "ls",
		.share = "\\\\nas\\data",
		.err = EACCES,
		.has_ret = true,
		.ret = -EACCES,
	};
	struct entry e = {};

	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "MESSAGE", "SMB2_CREATE took 2.000 ms: ls[5] on \\\\nas\\data (error EACCES)");
	check_field(&e, "REASON", "slow");
	check_field(&e, "ERRNO", "13");
	check_field(&e, "ERRNO_NAME", "EACCES");
	check_field(&e, "RETVAL", "-13");
	check_field(&e, "LAYER", "smb2");
	entry_free(&e);

	/* an errno without a name still gets a number in MESSAGE and ERRNO */
	r.err = 4000;
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "MESSAGE", "SMB2_CREATE took 2.000 ms: ls[5] on \\\\nas\\data (error 4000)");
	check_field(&e, "ERRNO", "4000");
	check_field(&e, "ERRNO_NAME", NULL);
	entry_free(&e);
	/* under its threshold: logged for the error alone (errors=yes), and says so */
	r.err = EACCES;
	r.threshold_ns = 10000000;
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "MESSAGE", "SMB2_CREATE failed in 2.000 ms: ls[5] on \\\\nas\\data (error EACCES)");
	check_field(&e, "REASON", "error");
	check_field(&e, "THRESHOLD_US", "10000");
	entry_free(&e);

	/* exactly at the threshold is slow, as the probes count it */
	r.latency_ns = r.threshold_ns;
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "REASON", "slow");
	entry_free(&e);
}

/* More fields than a record holds: the rest counted, FIELDS_DROPPED says how many. */
static void test_fields_dropped(void)
{
	struct func fn = { .layer = LAYER_BLOCK, .name = "BLOCK_WRITE", .backend = BACKEND_TP_BTF };
	struct record r = { .func = &fn, .latency_ns = 1000, .pid = 1, .tid = 1, .comm = "dd" };
	struct entry e = {};
	int refused = 0;

	for (int i = 0; i < RECORD_FIELDS_MAX + 5; i++)
		refused += record_add(&r, "FIELD_X", "%d", i) < 0;
	CHECK(refused == 5 && r.n_fields == RECORD_FIELDS_MAX, "%d refused, %u kept", refused, r.n_fields);
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "FIELDS_DROPPED", "5");
	entry_free(&e);
	record_clear(&r);
}

static void test_event_block(void)
{
	struct func fn = { .layer = LAYER_BLOCK, .name = "BLOCK_WRITE", .backend = BACKEND_TP_BTF };
	struct record r = {
		.func = &fn,
		.latency_ns = 1204000,
		.threshold_ns = 0,
		.pid = 4242,
		.tid = 4242,
		.comm = "dd",
	};
	struct entry e = {};

	/* what the block layer's decode adds */
	record_add(&r, "DISK", "loop0");
	record_add(&r, "OP", "WRITE");
	record_add(&r, "BYTES", "65536");
	record_add(&r, "SECTOR", "2048");
	record_set_place(&r, "loop0, 65536 bytes at sector 2048");

	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_names_valid(&e);
	check_field(&e, "MESSAGE",
		    "BLOCK_WRITE took 1.204 ms: dd[4242] on loop0, 65536 bytes at sector 2048");
	check_field(&e, "LAYER", "block");
	check_field(&e, "DISK", "loop0");
	check_field(&e, "OP", "WRITE");
	check_field(&e, "BYTES", "65536");
	check_field(&e, "SECTOR", "2048");
	check_field(&e, "QUEUE_US", NULL);
	check_field(&e, "KERNEL_FUNCTION", NULL);
	check_field(&e, "TARGET", NULL);
	check_field(&e, "RETVAL", NULL);
	entry_free(&e);
	record_clear(&r);

	fn.name = "BLOCK_FLUSH";
	r = (struct record) {
		.func = &fn,
		.latency_ns = 3000000,
		.pid = 10,
		.comm = "kworker/0:1H",
	};
	record_add(&r, "DISK", "sda");
	record_add(&r, "OP", "FLUSH");
	record_add(&r, "BYTES", "0");
	record_add(&r, "QUEUE_US", "1500");
	record_set_place(&r, "sda, 0 bytes");
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "MESSAGE", "BLOCK_FLUSH took 3.000 ms: kworker/0:1H[10] on sda, 0 bytes");
	check_field(&e, "SECTOR", NULL);
	check_field(&e, "BYTES", "0");
	check_field(&e, "QUEUE_US", "1500");
	entry_free(&e);
	record_clear(&r);

	/* not a block record: none of the block fields */
	struct func sfn = {
		.layer = LAYER_FUNC,
		.name = "OPENAT",
		.symbol = "syscall:openat",
		.backend = BACKEND_RAW_TP,
		.cfg = { .ret_kind = RK_LONG },
	};
	r = (struct record) { .func = &sfn, .pid = 1, .comm = "cat", .has_ret = true, .ret = -2, .err = 2 };
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "DISK", NULL);
	check_field(&e, "OP", NULL);
	check_field(&e, "BYTES", NULL);
	check_field(&e, "TARGET", "syscall:openat");
	check_field(&e, "KERNEL_FUNCTION", NULL);
	check_field(&e, "ERRNO_NAME", "ENOENT");
	check_field(&e, "RETVAL", "-2");
	entry_free(&e);
}

static void test_event_targets(void)
{
	struct func kfn = {
		.layer = LAYER_FUNC,
		.name = "VFS_READ",
		.symbol = "vfs_read",
		.kernel = true,
		.cfg = { .ret_kind = RK_PTR },
		.backend = BACKEND_KPROBE,
	};
	struct func ufn = {
		.layer = LAYER_FUNC,
		.name = "MALLOC",
		.symbol = "/usr/lib/x86_64-linux-gnu/libc.so.6:malloc",
		.cfg = { .ret_kind = RK_UINT },
		.backend = BACKEND_UPROBE,
	};
	struct func lfn = {
		.layer = LAYER_FUNC,
		.name = "FREE",
		.symbol = "c:free",
		.backend = BACKEND_UPROBE,
	};
	struct func sfn = {
		.layer = LAYER_SMBD,
		.name = "SMBD_OPENAT",
		.symbol = "smbd:vfswrap_openat",
		.backend = BACKEND_UPROBE,
	};
	struct record r = {
		.func = &kfn,
		.latency_ns = 1000,
		.comm = "a\001b   ",
		.has_ret = true,
		.ret = (int64_t)0xffff888000001000ull,
	};
	struct entry e = {};

	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "KERNEL_FUNCTION", "vfs_read");
	check_field(&e, "TARGET", NULL);
	check_field(&e, "LAYER", "func");
	check_field(&e, "RETVAL", "0xffff888000001000");
	check_field(&e, "COMM", "a\001b"); /* odd bytes kept, padding gone */
	check_field(&e, "MESSAGE", "VFS_READ took 0.001 ms: a\001b[0]");
	entry_free(&e);

	r.func = &ufn;
	r.ret = 4096;
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "KERNEL_FUNCTION", NULL);
	check_field(&e, "TARGET", ufn.symbol);
	check_field(&e, "RETVAL", "4096");
	entry_free(&e);

	r.func = &lfn;
	r.has_ret = false;
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "KERNEL_FUNCTION", NULL);
	check_field(&e, "TARGET", "c:free");
	entry_free(&e);

	r.func = &sfn;
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "TARGET", "smbd:vfswrap_openat");
	check_field(&e, "LAYER", "smbd");
	entry_free(&e);
}

static char *frames_make(unsigned int n, char sep)
{
	size_t len = 0;
	char *s = NULL;
	FILE *f = open_memstream(&s, &len);

	for (unsigned int i = 0; i < n; i++)
		fprintf(f, "%sframe_%03u+0x1a/0x40 [cifs]", i ? (char[]) { sep, 0 } : "", i);
	fclose(f);
	return s;
}

/* STACK: innermost first, so the head is kept and the marker ends it. */
static void test_stack_cap(void)
{
	struct record r = sample();
	struct entry e = {};
	const char *v, *marker;
	char frame[64];
	unsigned int kept = 0, more = 0;

	r.stack = frames_make(300, '\n');
	r.stack_folded = frames_make(300, ';');
	CHECK(strlen(r.stack) > 4096, "the sample stack is long enough");
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		goto out;

	v = entry_get(&e, "STACK");
	CHECK(v, "STACK missing");
	if (!v)
		goto out;
	CHECK(strlen(v) < 4096, "STACK is %zu bytes", strlen(v));
	CHECK(strlen(v) <= JOURNAL_STACK_MAX, "STACK is %zu bytes", strlen(v));
	marker = strrchr(v, '\n');
	CHECK(marker && sscanf(marker, "\n[... %u more frames]", &more) == 1,
	      "no marker line at the end of STACK");
	CHECK(marker && marker[strlen(marker) - 1] == ']', "marker line is the last one");
	for (const char *p = v; marker && p < marker; kept++) {
		const char *nl = strchr(p, '\n');

		snprintf(frame, sizeof(frame), "frame_%03u+0x1a/0x40 [cifs]", kept);
		CHECK((size_t)(nl - p) == strlen(frame) && strncmp(p, frame, strlen(frame)) == 0,
		      "frame %u cut or out of order: %.*s", kept, (int)(nl - p), p);
		p = nl + 1;
	}
	CHECK(kept + more == 300, "kept %u + %u more != 300", kept, more);
	CHECK(kept > 100, "only %u frames kept", kept);

	/* STACK_FOLDED: innermost last, so the tail is kept and the marker leads. */
	v = entry_get(&e, "STACK_FOLDED");
	CHECK(v, "STACK_FOLDED missing");
	if (!v)
		goto out;
	CHECK(strlen(v) <= JOURNAL_STACK_MAX, "STACK_FOLDED is %zu bytes", strlen(v));
	CHECK(sscanf(v, "[... %u more frames];", &more) == 1, "STACK_FOLDED marker: %.40s", v);
	kept = 0;
	for (const char *p = v; (p = strchr(p, ';')); p++)
		kept++;
	snprintf(frame, sizeof(frame), ";frame_%03u+0x1a/0x40 [cifs]", 300 - kept);
	CHECK(strstr(v, frame) == strchr(v, ';'), "first kept folded frame is not %s", frame + 1);
	CHECK(strcmp(v + strlen(v) - strlen("frame_299+0x1a/0x40 [cifs]"), "frame_299+0x1a/0x40 [cifs]") == 0,
	      "innermost folded frame lost");
	CHECK(kept + more == 300, "folded: kept %u + %u more != 300", kept, more);
out:
	entry_free(&e);
	free(r.stack);
	free(r.stack_folded);
}

/* A stack that fits is passed through, minus a trailing separator. */
static void test_stack_small(void)
{
	struct record r = sample();
	struct entry e = {};

	r.stack = "inner+0x1\nouter+0x2\n";
	e.n = journal_event_fields(&r, &e.v);
	CHECK(e.n > 0, "journal_event_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "STACK", "inner+0x1\nouter+0x2");
	entry_free(&e);
}

static void test_summary_fields(void)
{
	struct summary s;
	struct entry e = {};
	char *hist, *report, prio[8];

	hist_init(&s);
	hist_add(&s, 1500000);
	hist_add(&s, 2500000);
	hist_add(&s, 20000000);
	s.slow = 1;

	e.n = journal_summary_fields(&fn_unlink, &s, 60, &e.v);
	CHECK(e.n > 0, "journal_summary_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_names_valid(&e);
	snprintf(prio, sizeof(prio), "%d", LOG_INFO);
	hist = hist_format_compact(&s);
	report = hist_format_report(&fn_unlink, &s, 60);
	check_field(&e, "MESSAGE", report);
	check_field(&e, "MESSAGE_ID", SMBLAT_MID_SUMMARY);
	check_field(&e, "PRIORITY", prio);
	check_field(&e, "SYSLOG_IDENTIFIER", "smblat");
	check_field(&e, "SYSLOG_FACILITY", "3");
	check_field(&e, "FUNCTION", "INODE_OP_UNLINK");
	check_field(&e, "LAYER", "smb");
	check_field(&e, "INTERVAL_S", "60");
	check_field(&e, "COUNT", "3");
	check_field(&e, "TOTAL_US", "24000");
	check_field(&e, "MIN_US", "1500");
	check_field(&e, "AVG_US", "8000");
	check_field(&e, "MAX_US", "20000");
	check_field(&e, "SLOW_COUNT", "1");
	check_field(&e, "HIST", hist);
	CHECK(entry_get(&e, "P50_US"), "P50_US missing");
	CHECK(entry_get(&e, "P90_US"), "P90_US missing");
	CHECK(entry_get(&e, "P99_US"), "P99_US missing");
	free(hist);
	free(report);
	entry_free(&e);

	e.n = journal_summary_fields(&fn_unlink, &s, 59.5, &e.v);
	CHECK(e.n > 0, "journal_summary_fields: %d", e.n);
	if (e.n > 0)
		check_field(&e, "INTERVAL_S", "59.500");
	entry_free(&e);
}

static void test_loss_fields(void)
{
	struct func fn_read = { .name = "FILE_OP_READ_ITER" }, fn_open = { .name = "INODE_OP_CREATE" };
	struct loss l[] = {
		{ .func = &fn_unlink, .ringbuf = 10 },
		{ .func = &fn_open }, /* nothing lost: not listed */
		{ .func = &fn_read, .ringbuf = 1, .suppressed = 3, .write_failed = 2 },
	};
	struct entry e = {};
	char prio[8];

	e.n = journal_loss_fields(l, 3, 0, 60, &e.v);
	CHECK(e.n > 0, "journal_loss_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_names_valid(&e);
	snprintf(prio, sizeof(prio), "%d", LOG_ERR);
	check_field(&e, "MESSAGE",
		    "lost 16 events in 60 s: INODE_OP_UNLINK 10 (ring buffer full), "
		    "FILE_OP_READ_ITER 6 (ring buffer full 1, rate limited 3, journal write failed 2)");
	check_field(&e, "MESSAGE_ID", SMBLAT_MID_LOST);
	check_field(&e, "PRIORITY", prio);
	check_field(&e, "SYSLOG_IDENTIFIER", "smblat");
	check_field(&e, "SYSLOG_FACILITY", "3");
	check_field(&e, "INTERVAL_S", "60");
	check_field(&e, "LOST_RINGBUF", "11");
	check_field(&e, "SUPPRESSED", "3");
	check_field(&e, "WRITE_FAILED", "2");
	check_field(&e, "LOST_FUNCTIONS", "INODE_OP_UNLINK:10/0/0 FILE_OP_READ_ITER:1/3/2");
	entry_free(&e);
}

/* Status entries: a MESSAGE_ID per kind, and codes to match instead of MESSAGE. */
static void test_status_fields(void)
{
	struct status s = {
		.kind = STATUS_LAYER_UNAVAILABLE,
		.priority = LOG_WARNING,
		.layer = "smb",
		.reason = REASON_NO_BACKEND,
		.message = "layer unavailable on this kernel: no kprobes",
	};
	const char *mids[_STATUS_KIND_MAX] = {};
	struct entry e = {};
	char prio[8];

	e.n = journal_status_fields(&s, &e.v);
	CHECK(e.n > 0, "journal_status_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_names_valid(&e);
	snprintf(prio, sizeof(prio), "%d", LOG_WARNING);
	check_field(&e, "MESSAGE", "smb: layer unavailable on this kernel: no kprobes");
	check_field(&e, "MESSAGE_ID", SMBLAT_MID_LAYER_UNAVAILABLE);
	check_field(&e, "PRIORITY", prio);
	check_field(&e, "SYSLOG_FACILITY", "3");
	check_field(&e, "SYSLOG_IDENTIFIER", "smblat");
	check_field(&e, "LAYER", "smb");
	check_field(&e, "LAYER_STATE", "unavailable");
	check_field(&e, "REASON", "no-backend");
	check_field(&e, "FUNCTION", NULL);
	check_field(&e, "ATTACHED", NULL);
	CHECK(e.n == 8, "%d fields, want 8", e.n);
	entry_free(&e);

	/* a probe: FUNCTION, no LAYER_STATE; counts only where set, 0 included */
	s = (struct status) {
		.kind = STATUS_PROBE_WAITING,
		.priority = LOG_NOTICE,
		.layer = "func",
		.function = "EXT4_SYNC",
		.reason = REASON_MODULE_NOT_LOADED,
		.message = "probe EXT4_SYNC: ...",
	};
	status_count_set(&s, COUNT_NOT_ATTACHED, 1);
	status_count_set(&s, COUNT_DETACHED, 0);
	e.n = journal_status_fields(&s, &e.v);
	CHECK(e.n > 0, "journal_status_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "MESSAGE_ID", SMBLAT_MID_PROBE_WAITING);
	check_field(&e, "FUNCTION", "EXT4_SYNC");
	check_field(&e, "LAYER_STATE", NULL);
	check_field(&e, "REASON", "module-not-loaded");
	check_field(&e, "NOT_ATTACHED", "1");
	check_field(&e, "DETACHED", "0");
	check_field(&e, "ATTACHED", NULL);
	entry_free(&e);

	/* the agent: no LAYER, no REASON when there is none */
	s = (struct status) { .kind = STATUS_AGENT_STOP, .priority = LOG_INFO, .message = "stopped" };
	status_count_set(&s, COUNT_ENTRIES_WRITTEN, 12345678901ULL);
	e.n = journal_status_fields(&s, &e.v);
	CHECK(e.n > 0, "journal_status_fields: %d", e.n);
	if (e.n <= 0)
		return;
	check_field(&e, "MESSAGE", "stopped");
	check_field(&e, "MESSAGE_ID", SMBLAT_MID_AGENT_STOP);
	check_field(&e, "LAYER", NULL);
	check_field(&e, "REASON", NULL);
	check_field(&e, "ENTRIES_WRITTEN", "12345678901");
	entry_free(&e);

	/* every kind has an ID of its own, none of the other entries' */
	for (int k = 0; k < _STATUS_KIND_MAX; k++) {
		s = (struct status) { .kind = k, .priority = LOG_INFO, .message = "x" };
		e.n = journal_status_fields(&s, &e.v);
		CHECK(e.n > 0, "kind %d: %d", k, e.n);
		if (e.n <= 0)
			continue;
		mids[k] = strdupa(entry_get(&e, "MESSAGE_ID"));
		CHECK(strlen(mids[k]) == 32, "kind %d: MESSAGE_ID %s", k, mids[k]);
		CHECK(strcmp(mids[k], SMBLAT_MID_SLOW) && strcmp(mids[k], SMBLAT_MID_SUMMARY) &&
			      strcmp(mids[k], SMBLAT_MID_LOST),
		      "kind %d: MESSAGE_ID of another entry", k);
		for (int o = 0; o < k; o++)
			CHECK(!mids[o] || strcmp(mids[o], mids[k]), "kinds %d and %d share %s", o, k,
			      mids[k]);
		check_field(&e, "LAYER_STATE",
			    k >= STATUS_LAYER_ATTACHED && k <= STATUS_LAYER_OFF ? status_layer_state(k) :
										  NULL);
		entry_free(&e);
	}
	s.kind = _STATUS_KIND_MAX;
	CHECK(journal_status_fields(&s, &e.v) == -EINVAL, "an unknown kind is refused");
	for (int r = 1; r < _REASON_MAX; r++)
		CHECK(status_reason_name(r), "reason %d has no name", r);
	CHECK(!status_reason_name(REASON_NONE), "REASON_NONE has a name");
}

/*
 * journald is not running on build machines by default. Start it when its
 * socket does not answer, and leave it running: other tests of the tree may
 * be talking to it concurrently. Its stdio goes to /dev/null so that the
 * test harness does not wait for it to close our pipes.
 */
static int journald_ensure(void)
{
	pid_t pid;
	int status;

	if (journal_probe() == 0)
		return 0;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		int fd = open("/dev/null", O_RDWR | O_CLOEXEC);

		setsid();
		dup2(fd, 0);
		dup2(fd, 1);
		dup2(fd, 2);
		close_range(3, ~0U, 0);
		execl(JOURNALD, JOURNALD, (char *)NULL);
		_exit(127);
	}
	for (int i = 0; i < 200; i++) {
		if (journal_probe() == 0)
			return 0;
		if (waitpid(pid, &status, WNOHANG) == pid) {
			fprintf(stderr, "%s exited with status 0x%x\n", JOURNALD, status);
			return -ECHILD;
		}
		usleep(50000);
	}
	return -ETIMEDOUT;
}

/* The string value of "key" in one line of journalctl -o json, unescaped. */
static char *json_get(const char *json, const char *key)
{
	char pat[128], *out, *o;
	const char *p;

	snprintf(pat, sizeof(pat), "\"%s\":\"", key);
	p = strstr(json, pat);
	if (!p)
		return NULL;
	p += strlen(pat);
	out = o = malloc(strlen(p) + 1);
	for (; *p && *p != '"'; p++) {
		if (*p != '\\') {
			*o++ = *p;
			continue;
		}
		switch (*++p) {
		case 'n':
			*o++ = '\n';
			break;
		case 't':
			*o++ = '\t';
			break;
		case 'u': {
			unsigned int c = 0;

			sscanf(p + 1, "%4x", &c);
			*o++ = (char)c; /* our test values are ASCII */
			p += 4;
			break;
		}
		default:
			*o++ = *p;
			break;
		}
	}
	*o = '\0';
	return out;
}

/* Polls journalctl until an entry matching match shows up; returns its JSON line. */
static char *journalctl_wait(const char *match)
{
	char cmd[512], *line = NULL;
	size_t n = 0;

	snprintf(cmd, sizeof(cmd), "journalctl --no-pager -t smblat -o json %s 2>/dev/null", match);
	for (int i = 0; i < 100; i++) {
		FILE *p = popen(cmd, "r");
		ssize_t k = p ? getline(&line, &n, p) : -1;

		if (p)
			pclose(p);
		if (k > 0)
			return line;
		usleep(100000);
	}
	free(line);
	return NULL;
}

static void check_json(const char *json, const char *key, const char *want)
{
	char *v = json_get(json, key);

	CHECK(v, "journald entry lacks %s", key);
	if (v)
		CHECK(strcmp(v, want) == 0, "journald %s=\"%s\", want \"%s\"", key, v, want);
	free(v);
}

static void test_journald(void)
{
	struct journal *j = NULL;
	struct record r = sample();
	struct entry e = {};
	struct func fn = fn_unlink;
	char name[64], match[128], *json;
	const char *stack;
	int k;

	k = journald_ensure();
	CHECK(k == 0, "journald not reachable at /run/systemd/journal/socket: %s", strerror(-k));
	if (k < 0)
		return;
	CHECK(journal_probe() == 0, "journal_probe");

	/* unique per run, so older entries in a persistent journal never match */
	snprintf(name, sizeof(name), "TEST_JOURNAL_%d_%lld", getpid(), (long long)time(NULL));
	fn.name = name;
	r.func = &fn;
	snprintf(r.comm, sizeof(r.comm), "smbt%d", getpid() % 100000000);
	r.stack = frames_make(300, '\n');
	r.latency_ns = 16351234;

	CHECK(journal_new(&(struct journal_opts) { LOG_WARNING, LOG_INFO, LOG_ERR }, &j) == 0, "journal_new");
	if (!j)
		goto out;
	k = journal_write_event(j, &r);
	CHECK(k == 0, "journal_write_event: %s", strerror(-k));
	CHECK(journal_failed(j) == 0, "journal_failed: %" PRIu64, journal_failed(j));

	e.n = journal_event_fields(&r, &e.v);
	stack = e.n > 0 ? entry_get(&e, "STACK") : NULL;
	CHECK(stack, "no STACK to compare with");

	snprintf(match, sizeof(match), "FUNCTION=%s COMM=%s", name, r.comm);
	json = journalctl_wait(match);
	CHECK(json, "journalctl never showed %s", match);
	if (json) {
		check_json(json, "FUNCTION", name);
		check_json(json, "LATENCY_US", "16351");
		check_json(json, "MESSAGE_ID", SMBLAT_MID_SLOW);
		check_json(json, "SMB_SHARE", "\\\\srv\\share");
		check_json(json, "ERRNO_NAME", "ENOENT");
		check_json(json, "SYSLOG_FACILITY", "3");
		if (stack)
			check_json(json, "STACK", stack);
		free(json);
	}
	CHECK(journal_write_status(j, &(struct status) { .kind = STATUS_AGENT_START,
							 .priority = LOG_NOTICE,
							 .message = "test status" }) == 0,
	      "journal_write_status");
out:
	entry_free(&e);
	free(r.stack);
	journal_free(j);
}

/*
 * The datagram as journald's native protocol reads it: "NAME=value\n", and
 * a value with a newline as "NAME\n" + its length (64-bit little endian) +
 * value + "\n"; parsed back to the same fields; a torn one refused.
 */
static void test_datagram(void)
{
	static const char want[] = "MESSAGE=a b\n"
				   "STACK\n\x07\0\0\0\0\0\0\0f1\nf2\nf\n"
				   "N=-42\n"
				   "EMPTY=\n"
				   "FILE\n\x02\0\0\0\0\0\0\0x\n\n"
				   "ARGS=0x1 0xff\n";
	_cleanup_fields_ struct fields f = {};
	char **v = NULL;
	int n;

	fields_adds(&f, "MESSAGE", "a b");
	fields_open(&f, "STACK");
	fields_cat(&f, "f1\nf2");
	fields_cat(&f, "\nf");
	fields_end(&f);
	fields_addi(&f, "N", -42);
	fields_adds(&f, "EMPTY", "");
	fields_addn(&f, "FILE", "x\n", 2);
	fields_open(&f, "ARGS");
	fields_cat(&f, "0x");
	fields_catx(&f, 1);
	fields_cat(&f, " 0x");
	fields_catx(&f, 255);
	fields_end(&f);
	CHECK(f.error == 0 && f.n == 6, "error %d, %zu fields", f.error, f.n);
	CHECK(f.len == sizeof(want) - 1 && memcmp(f.buf, want, f.len) == 0, "datagram differs (%zu bytes)",
	      f.len);
	n = fields_steal(&f, &v);
	CHECK(n == 6, "%d fields parsed", n);
	if (n == 6) {
		CHECK(strcmp(v[1], "STACK=f1\nf2\nf") == 0, "STACK parsed as \"%s\"", v[1]);
		CHECK(strcmp(v[4], "FILE=x\n") == 0, "FILE parsed as \"%s\"", v[4]);
	}
	for (int i = 0; i < n; i++)
		free(v[i]);
	free(v);
	/* cut anywhere inside a field, it is not a datagram of whole fields */
	for (size_t cut = 1; cut < sizeof(want) - 1; cut++) {
		/* where a field ends: "MESSAGE=a b\n" is 12 bytes, STACK 22, N 6, EMPTY 7, FILE 16 */
		if (cut == 12 || cut == 34 || cut == 40 || cut == 47 || cut == 63)
			continue;
		n = fields_parse(want, cut, &v);
		CHECK(n == -EBADMSG, "cut at %zu: %d", cut, n);
		if (n >= 0) {
			for (int i = 0; i < n; i++)
				free(v[i]);
			free(v);
		}
	}
}

int main(void)
{
	test_datagram();
	test_field_names();
	test_event_fields();
	test_event_minimal();
	test_event_errors();
	test_event_targets();
	test_event_block();
	test_fields_dropped();
	test_stack_cap();
	test_stack_small();
	test_summary_fields();
	test_loss_fields();
	test_status_fields();
	/* package builds run where no journald is to be had (debian/rules) */
	if (getenv("SMBLAT_TEST_NO_JOURNALD"))
		printf("journald round trip: skipped, SMBLAT_TEST_NO_JOURNALD is set\n");
	else
		test_journald();

	return check_done("journal");
}
