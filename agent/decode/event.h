/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Decoding ring buffer records (bpf/record.h) into struct record: the
 * head every record begins with, and the parts several kinds share (a
 * call's return value and arguments, stacks). The rest of a kind is its
 * layer's (layers_decode() dispatches by kind).
 */
#pragma once

#include <stddef.h>

#include "base/func.h"
#include "symbols/ksyms.h"
#include "symbols/mounts.h"
#include "decode/record.h"
#include "symbols/usyms.h"

struct decoder {
	const struct func_table *funcs;
	const struct ksyms *ks; /* may be NULL: raw addresses */
	struct usyms *us;       /* may be NULL */
	struct mounts *mounts;  /* may be NULL */
	int64_t boot_to_realtime_ns;
};

/* CLOCK_REALTIME - CLOCK_BOOTTIME, refreshed by the caller now and then. */
int64_t event_clock_offset(void);

/*
 * The head of the record of size bytes at data into r (cleared first):
 * its function, end time, task. -EINVAL for a record too short or of an
 * unknown function; r must be cleared with event_record_clear() either way.
 */
int event_decode_head(const struct decoder *d, const void *data, size_t size, struct record *r);
/*
 * A call's part (struct rec_call of REC_CALL, and of every kind that
 * begins with one): return value, errno, arguments, stacks. size is the
 * whole record's; -EINVAL when it is shorter than a call.
 */
int event_decode_call(const struct decoder *d, const struct rec_call *c, size_t size, struct record *r);
/*
 * Stacks of the record's task into r->stack and r->stack_folded; a user
 * stack of a process gone is read with the mappings of fallback_pid (its
 * parent: the same after a fork), 0: none. -ENOMEM.
 */
int event_decode_stacks(const struct decoder *d, const struct rec_head *h, const struct rec_stacks *st,
			uint32_t fallback_pid, struct record *r);

/*
 * The share (r->share, by the device of its mount: RF_HAS_DEV) and the
 * file (RF_HAS_NAME) of an SMB record. -ENOMEM.
 */
int event_decode_file(const struct decoder *d, uint32_t flags, uint32_t dev, const char *name,
		      struct record *r);

void event_record_clear(struct record *r);
