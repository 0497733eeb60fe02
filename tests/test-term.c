/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The terminal sink: exact header and row layout, CSV quoting, funcslower extras. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "sinks/term.h"

#include "check.h"

static struct func fn_unlink = {
	.layer = LAYER_SMB,
	.name = "INODE_OP_UNLINK",
	.symbol = "cifs_unlink",
	.cfg = { .ret_kind = RK_INT },
};

static struct func fn_lookup = {
	.layer = LAYER_FUNC,
	.name = "D_LOOKUP",
	.symbol = "d_lookup",
	.cfg = { .ret_kind = RK_PTR },
};

/* 2023-11-14 22:13:20.123456 UTC */
static struct record sample(void)
{
	return (struct record) {
		.func = &fn_unlink,
		.end_realtime_us = 1700000000123456,
		.latency_ns = 16351234,
		.pid = 48782,
		.tid = 48783,
		.comm = "rm",
		.has_ret = true,
		.ret = -2,
		.err = 2,
		.nargs = 2,
		.args = { 0xffff888012345678, 0x1 },
		.stack = "cifs_unlink+0x0/0x3a0 [cifs]\nvfs_unlink+0x118/0x2e0\n",
		.stack_folded = "do_unlinkat;vfs_unlink;cifs_unlink",
	};
}

typedef void (*print_fn)(FILE *out, const struct term_opts *o, const struct record *r);

static void header_adapter(FILE *out, const struct term_opts *o, const struct record *r)
{
	term_print_header(out, o);
}

static void check_output(const char *what, print_fn fn, const struct term_opts *o, const struct record *r,
			 const char *want)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	fn(f, o, r);
	fclose(f);
	CHECK(strcmp(buf, want) == 0, "%s:\n got: \"%s\"\nwant: \"%s\"", what, buf, want);
	free(buf);
}

static void test_text(void)
{
	struct term_opts o = { .format = TERM_TEXT };
	struct record r = sample();

	check_output("text header", header_adapter, &o, NULL,
		     "ENDTIME  TASK             PID     FUNCTION                 LATENCY(ms)\n");
	check_output("text row", term_print_event, &o, &r,
		     "22:13:20 rm               48782   INODE_OP_UNLINK               16.351\n");

	r.latency_ns = 1234567890123; /* 20 minutes: the column grows, nothing is cut */
	strcpy(r.comm, "kworker/u16:2-ev");
	check_output("long text row", term_print_event, &o, &r,
		     "22:13:20 kworker/u16:2-ev 48782   INODE_OP_UNLINK          1234567.890\n");

	/* control bytes in a comm must not reach the terminal */
	strcpy(r.comm, "ev\033[2Jil   ");
	r.latency_ns = 999;
	check_output("escaped comm", term_print_event, &o, &r,
		     "22:13:20 ev\\x1b[2Jil      48782   INODE_OP_UNLINK                0.000\n");
}

static void test_text_extras(void)
{
	struct term_opts o = { .format = TERM_TEXT, .show_ret = true, .show_args = true };
	struct record r = sample();

	check_output("extras header", header_adapter, &o, NULL,
		     "ENDTIME  TASK             PID     FUNCTION                 LATENCY(ms) "
		     "RVAL               ARGS\n");
	check_output("extras row", term_print_event, &o, &r,
		     "22:13:20 rm               48782   INODE_OP_UNLINK               16.351 "
		     "-2                 0xffff888012345678 0x1\n");

	o.show_args = false;
	check_output("ret header", header_adapter, &o, NULL,
		     "ENDTIME  TASK             PID     FUNCTION                 LATENCY(ms) RVAL\n");
	r.func = &fn_lookup;
	r.ret = (int64_t)0xffff888000001000ull;
	check_output("pointer ret", term_print_event, &o, &r,
		     "22:13:20 rm               48782   D_LOOKUP                      16.351 "
		     "0xffff888000001000\n");
	r.has_ret = false;
	check_output("no ret", term_print_event, &o, &r,
		     "22:13:20 rm               48782   D_LOOKUP                      16.351 -\n");

	o = (struct term_opts) { .format = TERM_TEXT, .show_stack = true };
	r = sample();
	check_output("stack", term_print_event, &o, &r,
		     "22:13:20 rm               48782   INODE_OP_UNLINK               16.351\n"
		     "    cifs_unlink+0x0/0x3a0 [cifs]\n"
		     "    vfs_unlink+0x118/0x2e0\n");
	r.stack = NULL;
	check_output("no stack", term_print_event, &o, &r,
		     "22:13:20 rm               48782   INODE_OP_UNLINK               16.351\n");
}

static void test_csv(void)
{
	struct term_opts o = { .format = TERM_CSV };
	struct record r = sample();

	check_output("csv header", header_adapter, &o, NULL, "ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us\n");
	check_output("csv row", term_print_event, &o, &r,
		     "1700000000123456,rm,48782,INODE_OP_UNLINK,16351\n");

	strcpy(r.comm, "a,b");
	check_output("csv comma", term_print_event, &o, &r,
		     "1700000000123456,\"a,b\",48782,INODE_OP_UNLINK,16351\n");
	strcpy(r.comm, "say \"hi\"");
	check_output("csv quotes", term_print_event, &o, &r,
		     "1700000000123456,\"say \"\"hi\"\"\",48782,INODE_OP_UNLINK,16351\n");
	strcpy(r.comm, "tab\there");
	check_output("csv control", term_print_event, &o, &r,
		     "1700000000123456,tab\\x09here,48782,INODE_OP_UNLINK,16351\n");

	o.show_ret = o.show_args = true;
	r = sample();
	check_output("csv extras header", header_adapter, &o, NULL,
		     "ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us,RVAL,ARGS\n");
	check_output("csv extras row", term_print_event, &o, &r,
		     "1700000000123456,rm,48782,INODE_OP_UNLINK,16351,-2,0xffff888012345678 0x1\n");
	/* -K, -U: the stack in one column, folded (outermost first), so that a row stays a row */
	o.show_stack = true;
	check_output("csv stack header", header_adapter, &o, NULL,
		     "ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us,RVAL,ARGS,STACK\n");
	check_output("csv stack row", term_print_event, &o, &r,
		     "1700000000123456,rm,48782,INODE_OP_UNLINK,16351,-2,0xffff888012345678 0x1,"
		     "do_unlinkat;vfs_unlink;cifs_unlink\n");
	r.stack_folded = NULL;
	check_output("csv no stack", term_print_event, &o, &r,
		     "1700000000123456,rm,48782,INODE_OP_UNLINK,16351,-2,0xffff888012345678 0x1,\n");
}

static void test_folded(void)
{
	struct term_opts o = { .format = TERM_TEXT, .folded = true };
	struct record r = sample();

	check_output("folded header", header_adapter, &o, NULL, "");
	check_output("folded", term_print_event, &o, &r,
		     "rm;do_unlinkat;vfs_unlink;cifs_unlink;INODE_OP_UNLINK 16351\n");
	r.stack_folded = NULL;
	strcpy(r.comm, "a;b");
	check_output("folded without stack", term_print_event, &o, &r, "a_b;INODE_OP_UNLINK 16351\n");
	o.format = TERM_CSV;
	check_output("folded wins over csv", term_print_event, &o, &r, "a_b;INODE_OP_UNLINK 16351\n");
}

static void test_block(void)
{
	struct term_opts o = { .format = TERM_TEXT };
	struct func fn = { .layer = LAYER_BLOCK, .name = "BLOCK_WRITE" };
	struct record r = {
		.func = &fn,
		.end_realtime_us = 1700000000123456,
		.latency_ns = 1204000,
		.pid = 4242,
		.comm = "dd",
		.place = "loop0, 65536 bytes at sector 2048",
	};

	/* the layer's place follows the columns */
	check_output("block row", term_print_event, &o, &r,
		     "22:13:20 dd               4242    BLOCK_WRITE                    1.204 on loop0, 65536 "
		     "bytes at sector 2048\n");
}

/*
 * A name longer than the FUNCTION column widens it, header and rows alike
 * (issue 25 item 21: the latency of SMBD_SMB2_QUERY_DIRECTORY's lines
 * stood two columns right of the others').
 */
static void test_long_name(void)
{
	struct func fn = { .layer = LAYER_SMBD, .name = "SMBD_SMB2_QUERY_DIRECTORY" };
	struct term_opts o = { .format = TERM_TEXT, .name_width = 25 };
	struct record r = sample();

	check_output("wide header", header_adapter, &o, NULL,
		     "ENDTIME  TASK             PID     FUNCTION                  LATENCY(ms)\n");
	check_output("short name, wide column", term_print_event, &o, &r,
		     "22:13:20 rm               48782   INODE_OP_UNLINK                16.351\n");
	r.func = &fn;
	check_output("long name", term_print_event, &o, &r,
		     "22:13:20 rm               48782   SMBD_SMB2_QUERY_DIRECTORY      16.351\n");
}

/* An event that is no call says what happened, not what it worked "on" (issue 25 item 21). */
static void test_event_place(void)
{
	struct term_opts o = { .format = TERM_TEXT };
	struct func fn = { .layer = LAYER_SMBD, .name = "SMBD_EXIT" };
	struct record r = {
		.func = &fn,
		.end_realtime_us = 1700000000123456,
		.latency_ns = 2500000000,
		.pid = 4242,
		.comm = "smbd",
		.place = "exited",
		.message_id = "3aefbceff9ca401c9d1fb860c0bd08d8",
	};

	check_output("exit row", term_print_event, &o, &r,
		     "22:13:20 smbd             4242    SMBD_EXIT                   2500.000: exited\n");
}

/* -f: funcslower's columns, the function last */
static void test_funcslower(void)
{
	struct term_opts o = { .format = TERM_FUNCSLOWER, .show_args = true };
	struct record r = sample();

	check_output("funcslower header", header_adapter, &o, NULL,
		     "TIME     COMM             PID        LAT(ms)             RVAL FUNC ARGS\n");
	check_output("funcslower row", term_print_event, &o, &r,
		     "22:13:20 rm               48782       16.351               -2 INODE_OP_UNLINK "
		     "0xffff888012345678 0x1\n");
	o.show_args = false;
	o.show_stack = true;
	r.func = &fn_lookup;
	r.ret = (int64_t)0xffff888000001000ull;
	r.latency_ns = 1234567890123;
	check_output("funcslower header without args", header_adapter, &o, NULL,
		     "TIME     COMM             PID        LAT(ms)             RVAL FUNC\n");
	check_output("funcslower pointer, long latency, stack", term_print_event, &o, &r,
		     "22:13:20 rm               48782   1234567.890 0xffff888000001000 D_LOOKUP\n"
		     "    cifs_unlink+0x0/0x3a0 [cifs]\n"
		     "    vfs_unlink+0x118/0x2e0\n");
	r.has_ret = false;
	o.show_stack = false;
	check_output("funcslower no return value", term_print_event, &o, &r,
		     "22:13:20 rm               48782   1234567.890                - D_LOOKUP\n");
}

int main(void)
{
	/* ENDTIME is local time; pin the zone so the rows are predictable */
	setenv("TZ", "UTC", 1);
	tzset();

	test_text();
	test_text_extras();
	test_csv();
	test_folded();
	test_block();
	test_funcslower();
	test_long_name();
	test_event_place();

	return check_done("term");
}
