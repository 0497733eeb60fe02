/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Stacks read back from the journal, for a flame graph after the fact: the
 * counted-stack entries (MESSAGE_ID stacks: STACK_FOLDED with COUNT and
 * TOTAL_US) of some FUNCTIONs over a time range, or, where none were
 * counted, the slow-call entries' STACK_FOLDED (one call each).
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/folded.h"

struct jstacks_query {
	const char *const *functions; /* FUNCTION values, NULL-terminated; NULL or empty: all */
	uint64_t since_us;            /* CLOCK_REALTIME, 0: from the start */
	uint64_t until_us;            /* 0: to the end */
};

struct jstacks_result {
	char unreadable[128];       /* with -EACCES: the system journal this user cannot read */
	unsigned int entries;       /* entries read */
	bool slow_calls;            /* from slow-call entries, no counted stacks were there */
	uint64_t first_us, last_us; /* their times */
};

/*
 * Adds what the journal has to out. -EACCES when the system journal, where
 * the agent's entries are, is there but not readable to the caller (sd-journal
 * would silently read the caller's own journal alone); -errno from sd-journal.
 */
int jstacks_read(const struct jstacks_query *q, struct folded *out, struct jstacks_result *res);
