/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Arrays grown one element at a time, as symbol tables and parsed lines are. */
#pragma once

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

/*
 * Makes room for need elements of elem bytes at *p, which has room for *cap.
 * An empty array starts at min (> 0) elements, and the capacity doubles so
 * that appending stays amortized O(1). On -ENOMEM *p and *cap are unchanged.
 */
static inline int array_grow(void **p, size_t *cap, size_t need, size_t elem, size_t min)
{
	size_t n;
	void *q;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : min;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}
