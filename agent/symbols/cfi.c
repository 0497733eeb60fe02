// SPDX-License-Identifier: LGPL-2.1-or-later
#include <dwarf.h>
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <elfutils/libdw.h>

#include "base/array.h"
#include "symbols/cfi.h"
#include "symbols/objfile.h"

#define GROW_MIN 1024
/* x86-64's DWARF register numbers */
#define REG_RBP 6
#define REG_RSP 7
#define REG_RIP 16

struct build {
	struct urow *rows;
	size_t n, cap;
	Dwarf_CFI *cfi;
	int error;
};

static bool row_same(const struct urow *a, const struct urow *b)
{
	return a->cfa == b->cfa && a->cfa_off == b->cfa_off && a->fp_at == b->fp_at && a->fp_off == b->fp_off;
}

/* A rule in force from file offset pc on; merged into the one before when it is the same. */
static void push(struct build *b, uint64_t pc, struct urow r)
{
	if (b->error || pc > UINT32_MAX) {
		b->error = b->error ?: -EFBIG;
		return;
	}
	r.pc = (uint32_t)pc;
	if (b->n && row_same(&b->rows[b->n - 1], &r))
		return;
	if (b->n && b->rows[b->n - 1].pc == r.pc) {
		b->rows[b->n - 1] = r;
		return;
	}
	if (array_grow((void **)&b->rows, &b->cap, b->n + 1, sizeof(*b->rows), GROW_MIN) < 0) {
		b->error = -ENOMEM;
		return;
	}
	b->rows[b->n++] = r;
}

/*
 * binutils' CFA of a PLT entry: rsp + 8, + 8 once past the push of the
 * entry's 16 bytes: breg7 8; breg16 0; lit15; and; litN; ge; lit3; shl;
 * plus. N, or -1 for another expression.
 */
static int plt_threshold(const Dwarf_Op *ops, size_t n)
{
	static const uint8_t want[] = { DW_OP_breg7, DW_OP_breg16, DW_OP_lit15, DW_OP_and, 0,
					DW_OP_ge,    DW_OP_lit3,   DW_OP_shl,   DW_OP_plus };

	if (n != sizeof(want) || ops[0].number != 8 || ops[1].number != 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (i != 4 && ops[i].atom != want[i])
			return -1;
	if (ops[4].atom < DW_OP_lit0 || ops[4].atom > DW_OP_lit31)
		return -1;
	return ops[4].atom - DW_OP_lit0;
}

static bool cfa_rule(Dwarf_Frame *f, struct urow *r)
{
	Dwarf_Op *ops;
	size_t n;
	int plt;

	if (dwarf_frame_cfa(f, &ops, &n) < 0 || n == 0)
		return false;
	if (n == 1 && ops[0].atom == DW_OP_bregx && (ops[0].number == REG_RSP || ops[0].number == REG_RBP)) {
		int64_t off = (int64_t)ops[0].number2;

		if (off < INT32_MIN || off > INT32_MAX)
			return false;
		r->cfa = ops[0].number == REG_RSP ? UROW_CFA_SP : UROW_CFA_FP;
		r->cfa_off = (int32_t)off;
		return true;
	}
	plt = plt_threshold(ops, n);
	if (plt < 0)
		return false;
	r->cfa = UROW_CFA_PLT;
	r->cfa_off = plt;
	return true;
}

/* Where a register was saved: 1 at CFA + *off, 0 unchanged (or lost), -1 a rule not followed. */
static int saved_at(Dwarf_Frame *f, int reg, int64_t *off)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	if (dwarf_frame_register(f, reg, mem, &ops, &n) < 0)
		return -1;
	if (n == 0)
		return 0; /* same value (ops NULL), or undefined */
	if (ops[0].atom != DW_OP_call_frame_cfa || n > 2)
		return -1;
	if (n == 2 && ops[1].atom != DW_OP_plus_uconst)
		return -1;
	*off = n == 2 ? (int64_t)ops[1].number : 0;
	return 1;
}

/* The row of the frame state f, x86-64. */
static struct urow classify(Dwarf_Frame *f)
{
	struct urow r = { .cfa = UROW_NONE };
	Dwarf_Op mem[3], *ops;
	int64_t ra = 0, fp = 0;
	bool signal = false;
	size_t n;
	int at;

	if (dwarf_frame_info(f, NULL, NULL, &signal) != REG_RIP || signal)
		return r;
	/* the outermost frame (_start, thread starts) leaves the return address undefined */
	if (dwarf_frame_register(f, REG_RIP, mem, &ops, &n) == 0 && n == 0 && ops == mem) {
		r.cfa = UROW_END;
		return r;
	}
	if (saved_at(f, REG_RIP, &ra) != 1 || ra != -8 || !cfa_rule(f, &r))
		return (struct urow) { .cfa = UROW_NONE };
	at = saved_at(f, REG_RBP, &fp);
	if (at < 0 || fp < INT16_MIN || fp > INT16_MAX)
		return (struct urow) { .cfa = UROW_NONE };
	r.fp_at = at;
	r.fp_off = (int16_t)fp;
	return r;
}

/* One segment of code: each address's rule, from one row's end to the next. */
static int segment(uint64_t offset, uint64_t vaddr, uint64_t size, void *userdata)
{
	struct build *b = userdata;
	uint64_t addr = vaddr, end = vaddr + size;

	while (addr < end && !b->error) {
		Dwarf_Frame *f = NULL;
		Dwarf_Addr start, stop;

		if (dwarf_cfi_addrframe(b->cfi, addr, &f) < 0) {
			/* no CFI here: padding, or code written without it */
			push(b, addr - vaddr + offset, (struct urow) { .cfa = UROW_GAP });
			addr++;
			continue;
		}
		push(b, addr - vaddr + offset, classify(f));
		if (dwarf_frame_info(f, &start, &stop, NULL) < 0 || stop <= addr)
			stop = addr + 1;
		free(f);
		addr = stop < end ? stop : end;
	}
	push(b, end - vaddr + offset, (struct urow) { .cfa = UROW_GAP });
	return b->error;
}

int cfi_compile(struct objfile *o, struct urow **rows, size_t *n)
{
#ifdef __x86_64__
	struct build b = {};
	Dwarf_Addr bias;
	int r;

	b.cfi = dwfl_module_eh_cfi(objfile_module(o), &bias);
	if (!b.cfi)
		b.cfi = dwfl_module_dwarf_cfi(objfile_module(o), &bias);
	if (!b.cfi)
		return -ENOENT;
	r = objfile_exec_segments(o, segment, &b);
	if (r < 0 || b.error) {
		free(b.rows);
		return r < 0 ? r : b.error;
	}
	*rows = b.rows;
	*n = b.n;
	return 0;
#else
	return -EOPNOTSUPP;
#endif
}
