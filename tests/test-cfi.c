/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Unwind tables compiled from call frame information (symbols/cfi.c), on
 * tests/chainprog (-O2 -fomit-frame-pointer): the rows the walk follows
 * in its functions, in its PLT and at _start, and symbols by file offset
 * (symbols/objfile.c) where the rows are.
 *
 *   test-cfi CHAINPROG
 */
#include <errno.h>
#include <stdbool.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "symbols/cfi.h"
#include "symbols/objfile.h"
#include "symbols/usyms.h"

#include "check.h"

static const struct urow *row_at(const struct urow *rows, size_t n, uint64_t off)
{
	const struct urow *r = NULL;

	for (size_t i = 0; i < n && rows[i].pc <= off; i++)
		r = &rows[i];
	return r;
}

/*
 * Whether a row starting in [lo, hi] has its CFA at rsp+16 or more (the
 * stack moved: the instruction offsets differ by compiler and version),
 * and with saved_fp the caller's rbp saved below the CFA.
 */
static bool row_within(const struct urow *rows, size_t n, uint64_t lo, uint64_t hi, bool saved_fp)
{
	for (size_t i = 0; i < n; i++)
		if (rows[i].pc >= lo && rows[i].pc <= hi && rows[i].cfa == UROW_CFA_SP &&
		    rows[i].cfa_off >= 16 && (!saved_fp || (rows[i].fp_at && rows[i].fp_off < 0)))
			return true;
	return false;
}

static uint64_t offset_of(struct usyms *u, const char *prog, const char *fn)
{
	uint64_t off = 0;

	CHECK(usyms_resolve(u, prog, fn, &off) == 0, "no offset of %s", fn);
	return off;
}

int main(int argc, char **argv)
{
	struct objfile *o = NULL;
	struct urow *rows = NULL;
	struct usyms *u = NULL;
	const struct urow *r;
	const char *name;
	uint64_t off, delta;
	size_t n = 0;
	int fd;

	CHECK(argc == 2, "usage: test-cfi CHAINPROG");
	fd = open(argv[1], O_RDONLY | O_CLOEXEC);
	CHECK(fd >= 0, "cannot open %s: %m", argv[1]);
	CHECK(usyms_new(&u) == 0, "usyms_new");
	CHECK(objfile_open(fd, argv[1], "", &o) == 0, "objfile_open %s", argv[1]);
	close(fd);
	CHECK(cfi_compile(o, &rows, &n) == 0, "no table compiled");
	CHECK(n > 10, "only %zu rows", n);
	for (size_t i = 1; i < n; i++)
		CHECK(rows[i].pc > rows[i - 1].pc, "rows not sorted at %zu", i);

	/* c calls leaf: at entry the return address is at rsp; before the call the stack moved */
	off = offset_of(u, argv[1], "c");
	r = row_at(rows, n, off);
	CHECK(r && r->cfa == UROW_CFA_SP && r->cfa_off == 8 && !r->fp_at, "c+0: want CFA rsp+8");
	CHECK(row_within(rows, n, off + 1, off + 32, false), "c: no row with CFA rsp+16 or more");
#ifndef __clang__
	/* gcc keeps a1's n in rbp: once pushed, the caller's rbp is saved below the CFA */
	off = offset_of(u, argv[1], "a1");
	CHECK(row_within(rows, n, off + 1, off + 64, true), "a1: no row with rbp saved below the CFA");
#endif
	/* symbols by file offset */
	off = offset_of(u, argv[1], "c");
	CHECK(objfile_symbol(o, off + 1, &name, &delta) == 0 && strcmp(name, "c") == 0 && delta == 1,
	      "c+1 not named c+1");

	/* _start: the outermost frame */
	r = row_at(rows, n, offset_of(u, argv[1], "_start") + 1);
	CHECK(r && r->cfa == UROW_END, "_start: want the outermost row");

	/* the PLT's expression */
	for (size_t i = 0; i < n; i++)
		if (rows[i].cfa == UROW_CFA_PLT) {
			CHECK(rows[i].cfa_off == 10 || rows[i].cfa_off == 11, "PLT threshold %d",
			      rows[i].cfa_off);
			off = 1;
		}
	CHECK(off == 1, "no PLT row");

	/* the code ends with a row of no information: past it, frame pointers */
	CHECK(rows[n - 1].cfa == UROW_GAP, "the last row is no gap");
	free(rows);
	objfile_free(o);
	usyms_free(u);
	return check_done("test-cfi");
}
