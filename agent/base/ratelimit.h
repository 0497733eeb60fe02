/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * How many slow calls are written: a token bucket over all of them, sized to
 * what journald takes. Alone it lets a flood of one FUNCTION hide the rare
 * slow call of another, so a key (FUNCTION) whose calls come at under a tenth
 * of the rate is written even with the bucket empty: it runs the bucket into
 * debt, at most a quarter of the burst, which the flood then waits out. Over
 * time no more than the rate is written; at once, the burst and that quarter.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

struct ratelimit;

/* Keys 0..nkeys-1; no limit until ratelimit_set(). */
int ratelimit_new(unsigned int nkeys, struct ratelimit **ret);
void ratelimit_free(struct ratelimit *rl);
/* Calls per second and how many at once (rate 0: no limit); a new bucket
 * starts full, a running one keeps what it has, up to the new burst. */
void ratelimit_set(struct ratelimit *rl, uint32_t rate, uint32_t burst, uint64_t now_ns);
/* Whether a call of key may be written now; a yes is charged to the bucket. */
bool ratelimit_allows(struct ratelimit *rl, unsigned int key, uint64_t now_ns);
