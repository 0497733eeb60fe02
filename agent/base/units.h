/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Durations as text: truncated to the digits shown, as the _US fields are
 * (whole microseconds, truncated), so that a message's "min 3.140 ms" and
 * its MIN_US=3140 agree: one way of rounding everywhere.
 */
#pragma once

#include <stdint.h>
#include <stdio.h>

/* ns in milliseconds with decimals (0 to 6) digits after the point: "3.140". */
static inline const char *units_ms(char *buf, size_t n, uint64_t ns, int decimals)
{
	uint64_t unit = 1, scale = 1;

	for (int i = decimals; i < 6; i++)
		unit *= 10;
	for (int i = 0; i < decimals; i++)
		scale *= 10;
	if (decimals > 0)
		snprintf(buf, n, "%llu.%0*llu", (unsigned long long)(ns / unit / scale), decimals,
			 (unsigned long long)(ns / unit % scale));
	else
		snprintf(buf, n, "%llu", (unsigned long long)(ns / unit));
	return buf;
}

/* ns in seconds with 3 decimals: "12.345". */
static inline const char *units_s(char *buf, size_t n, uint64_t ns)
{
	return units_ms(buf, n, ns / 1000, 3);
}
