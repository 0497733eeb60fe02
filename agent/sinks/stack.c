// SPDX-License-Identifier: LGPL-2.1-or-later
/* Stacks cut to a size, saying what was cut. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/stack.h"

/* Room kept for "\n[... N more frames]" when a stack has to be cut. */
#define STACK_MARKER_MAX 40

static size_t frames_count(const char *s, size_t len, char sep)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (s[i] != sep && (i == 0 || s[i - 1] == sep))
			n++;
	return n;
}

/*
 * Keeps the whole frames that fit in max bytes and says how many were left
 * out, so a reader knows the stack is partial rather than shallow. The
 * innermost frames matter most: they lead in STACK (head) and close a
 * folded stack (tail), where the marker then stands in for the outer part.
 */
char *stack_cap(const char *s, char sep, bool keep_tail, size_t max)
{
	size_t len = strlen(s), budget = max - STACK_MARKER_MAX, cut, total, kept;
	char *out;
	int k;

	while (len > 0 && s[len - 1] == sep)
		len--;
	while (len > 0 && s[0] == sep)
		s++, len--;
	if (len <= max)
		return strndup(s, len);

	if (!keep_tail) {
		/* cut: end of the last frame that still fits */
		cut = 0;
		for (size_t i = 1; i <= budget; i++)
			if (s[i] == sep)
				cut = i;
		total = frames_count(s, len, sep);
		kept = frames_count(s, cut, sep);
		k = asprintf(&out, "%.*s%s[... %zu more frames]", (int) cut, s,
			     cut ? (char[]) { sep, '\0' } : "", total - kept);
	} else {
		/* cut: start of the outermost frame that still fits */
		cut = len;
		for (size_t i = len - 1; i >= len - budget; i--)
			if (s[i - 1] == sep)
				cut = i;
		total = frames_count(s, len, sep);
		kept = frames_count(s + cut, len - cut, sep);
		k = asprintf(&out, "[... %zu more frames]%s%.*s", total - kept,
			     cut < len ? (char[]) { sep, '\0' } : "", (int) (len - cut), s + cut);
	}
	return k < 0 ? NULL : out;
}
