/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Decoding ring buffer events into records: names, share, symbolized stacks. */
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

/* -EINVAL for a short or unknown event; r must be cleared with event_record_clear(). */
int event_decode(const struct decoder *d, const void *data, size_t size, struct record *r);
void event_record_clear(struct record *r);
