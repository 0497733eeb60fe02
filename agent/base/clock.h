/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Reading the clocks: one helper for every clock the agent uses. */
#pragma once

#include <stdint.h>
#include <time.h>

#include "base/macro.h"

/* Nanoseconds on clock id (CLOCK_MONOTONIC for intervals, CLOCK_BOOTTIME like BPF's events). */
static inline uint64_t clock_ns(clockid_t id)
{
	struct timespec ts;

	clock_gettime(id, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

/* Monotonic nanoseconds: the agent's clock for intervals and ages. */
static inline uint64_t now_ns(void)
{
	return clock_ns(CLOCK_MONOTONIC);
}
