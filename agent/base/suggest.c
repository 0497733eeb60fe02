// SPDX-License-Identifier: LGPL-2.1-or-later
/* "did you mean ...?": the nearest of a list of names to a word given. */
#include <limits.h>
#include <string.h>

#include "base/suggest.h"

/* Levenshtein distance, capped: only used to suggest near misses. */
unsigned suggest_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	unsigned row[65];

	if (la > 64 || lb > 64)
		return UINT_MAX;
	for (size_t j = 0; j <= lb; j++)
		row[j] = (unsigned)j;
	for (size_t i = 1; i <= la; i++) {
		unsigned diag = row[0];

		row[0] = (unsigned)i;
		for (size_t j = 1; j <= lb; j++) {
			unsigned up = row[j], best;

			best = diag + (a[i - 1] != b[j - 1]);
			if (up + 1 < best)
				best = up + 1;
			if (row[j - 1] + 1 < best)
				best = row[j - 1] + 1;
			diag = up;
			row[j] = best;
		}
	}
	return row[lb];
}

const char *suggest_name(const char *word, const char *const *names, size_t n)
{
	const char *best = NULL;
	unsigned best_d = SUGGEST_DISTANCE + 1;

	for (size_t i = 0; i < n; i++) {
		unsigned d;

		if (!names[i])
			continue;
		d = suggest_distance(word, names[i]);
		if (d > 0 && d < best_d) {
			best = names[i];
			best_d = d;
		}
	}
	return best;
}

/* ---- lists ----------------------------------------------------------------- */
