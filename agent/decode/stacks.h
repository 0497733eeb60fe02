/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Counted stacks (bpf/stacks.bpf.h) read back: each time the histogram
 * epoch moves on, the generation of the epoch that ended is drained,
 * symbolized while its processes are likely still there, and kept per
 * function until the next summary takes it. Lines are
 * "COMM;outer;...;inner;FUNCTION", the call counts and latency beside.
 */
#pragma once

#include <stdint.h>

#include "base/folded.h"
#include "decode/event.h"
#include "probes/probes.h"

struct stacks;

/* The tag of a counted stack's folded line: it has user frames, walked as bpf/ustack.h's flags say. */
#define STACKS_TAG_USER (1u << 31)

int stacks_new(struct stacks **ret);
void stacks_free(struct stacks *s);
/* Drains the maps of the generation epoch `ended` filled. */
int stacks_drain(struct stacks *s, struct probes *p, uint64_t ended, const struct decoder *d);
/*
 * What function id counted since the last take: its stacks (handed over to
 * *out, empty when none) and the calls whose stacks did not fit.
 */
void stacks_take(struct stacks *s, uint32_t id, struct folded *out, uint64_t *lost);
