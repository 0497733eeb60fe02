/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Off-CPU stacks (bpf/offcpu.bpf.h) read back: each time the histogram
 * epoch moves on, the generation of the epoch that ended is drained and
 * symbolized, each stack classed by what it waited on (base/waitclass.h),
 * and kept per function until the next summary takes it. Lines are
 * "CLASS;outer;...;inner", the times switched out there and the time off
 * a CPU beside.
 */
#pragma once

#include <stdint.h>

#include "base/folded.h"
#include "decode/event.h"
#include "probes/probes.h"

struct offcpu;

int offcpu_new(struct offcpu **ret);
void offcpu_free(struct offcpu *o);
/* Drains the maps of the generation epoch `ended` filled. */
int offcpu_drain(struct offcpu *o, struct probes *p, uint64_t ended, const struct decoder *d);
/* What function id spent off a CPU since the last take, by stack (handed over to *out). */
void offcpu_take(struct offcpu *o, uint32_t id, struct folded *out);
