/* SPDX-License-Identifier: (LGPL-2.1 OR BSD-2-Clause) */
/*
 * User stacks as the programs take them (ustack.bpf.h): each frame is told
 * by the file it lies in and its offset there, looked up in the kernel at
 * the moment of the stack, so the agent needs neither the process (gone)
 * nor the right to read its /proc/PID/maps (dropped). Files get an index
 * the first time a stack meets them, and a note to the agent with their
 * path; where the agent has given a file its unwind table, frames are
 * unwound by it, else by frame pointers.
 */
#ifndef SMBLAT_USTACK_H
#define SMBLAT_USTACK_H

#define SMBLAT_UFILES 4096        /* files frames can be told in */
#define SMBLAT_UFILE_PATH 256     /* bytes of a file's path in its note */
#define SMBLAT_UNWIND_ROWS 262144 /* unwind table rows, all files together (default) */
#define SMBLAT_UNWIND_PAGES 16384 /* 64 KiB pages of code with rows (default) */
#define SMBLAT_UNWIND_PAGE_SHIFT 16

/*
 * A user frame: in a file (bit 63; the file's index, its offset there), or
 * a raw address (code mapped from no file: JIT, [vdso]; kernels where the
 * kernel walked the stack).
 */
#define UFRAME_IN_FILE (1ull << 63)
#define UFRAME_INDEX_SHIFT 40
#define UFRAME_INDEX_MASK 0x7fffffull
#define UFRAME_OFFSET_MASK ((1ull << UFRAME_INDEX_SHIFT) - 1)

static inline uint64_t uframe_make(uint32_t index, uint64_t offset)
{
	return UFRAME_IN_FILE | ((uint64_t)(index & UFRAME_INDEX_MASK) << UFRAME_INDEX_SHIFT) |
	       (offset & UFRAME_OFFSET_MASK);
}

static inline uint32_t uframe_index(uint64_t f)
{
	return (uint32_t)((f >> UFRAME_INDEX_SHIFT) & UFRAME_INDEX_MASK);
}

static inline uint64_t uframe_offset(uint64_t f)
{
	return f & UFRAME_OFFSET_MASK;
}

/* How a user stack was walked (bits), and why it ended where it did (US_END_*). */
enum ustack_flags {
	US_DWARF = 1u << 0,  /* steps by a file's unwind table */
	US_FP = 1u << 1,     /* steps by frame pointers */
	US_KERNEL = 1u << 2, /* walked by the kernel (frame pointers), raw addresses */
};
#define US_END_SHIFT 4
#define US_END_MASK (0xfu << US_END_SHIFT)
enum ustack_end {
	US_END_OUTERMOST = 0, /* the outermost frame, or the stack cut at the depth */
	US_END_NOT_CODE,      /* a return address outside every executable mapping */
	US_END_UNREADABLE,    /* the stack's memory could not be read */
	US_END_PENDING,       /* the file's unwind table was not ready yet */
	US_END_NO_INFO,       /* no unwind rule there, and no frame pointer to follow */
	US_END_LOCKED,        /* the address space was locked: no mapping could be looked up */
	US_END_NO_ROOM,       /* no index left for another file */
	US_END_LOOP,          /* the stack pointer did not move outward */
};

/* The files map: which index a file (the kernel's dev_t and inode number) has. */
struct ufile_key {
	uint64_t ino;
	uint32_t dev;
	uint32_t pad;
};
SMBLAT_SIZE(ufile_key, 16);

enum ufile_state {
	UFILE_NEW = 0,   /* the agent has not answered yet */
	UFILE_TABLE = 1, /* its unwind table is loaded */
	UFILE_FP = 2,    /* no unwind table: frame pointers are followed */
};

struct ufile_val {
	uint32_t index;
	uint32_t state; /* enum ufile_state, set by the agent */
};
SMBLAT_SIZE(ufile_val, 8);

/* A file met in a stack for the first time, to the agent (the ufile_notes ring buffer). */
struct ufile_note {
	uint64_t ino;
	uint32_t dev;
	uint32_t index;
	uint32_t tgid;     /* a process that maps it */
	uint32_t path_off; /* the path is path[path_off..], NUL-terminated; SMBLAT_UFILE_PATH: none */
	char path[SMBLAT_UFILE_PATH];
};
SMBLAT_SIZE(ufile_note, 24 + SMBLAT_UFILE_PATH);

/*
 * One row of a file's unwind table (x86-64): from file offset pc on, until
 * the next row's, the caller's frame is found so. The return address is at
 * CFA - 8, as the x86-64 ABI has it everywhere.
 */
enum urow_cfa {
	UROW_CFA_SP = 1, /* CFA = rsp + cfa_off */
	UROW_CFA_FP,     /* CFA = rbp + cfa_off */
	UROW_CFA_PLT,    /* CFA = rsp + 8, + 8 from byte cfa_off of the 16-byte PLT entry on */
	UROW_END,        /* no caller: the outermost frame (return address undefined) */
	UROW_NONE,       /* a rule the programs do not follow: the stack ends */
	UROW_GAP,        /* no call frame information here: frame pointers are followed */
};

struct urow {
	uint32_t pc;
	uint8_t cfa;   /* enum urow_cfa */
	uint8_t fp_at; /* 1: the caller's rbp saved at CFA + fp_off; 0: rbp unchanged */
	int16_t fp_off;
	int32_t cfa_off;
};
SMBLAT_SIZE(urow, 12);

/* Which rows cover a 64 KiB page of a file's code (the row in force at its start included). */
struct upage_key {
	uint32_t index;
	uint32_t page; /* file offset >> SMBLAT_UNWIND_PAGE_SHIFT */
};
SMBLAT_SIZE(upage_key, 8);

struct upage_val {
	uint32_t first; /* index in unwind_rows */
	uint32_t n;
};
SMBLAT_SIZE(upage_val, 8);

#endif
