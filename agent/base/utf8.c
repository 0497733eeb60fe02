// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"

/* Bytes of the valid UTF-8 sequence at s (RFC 3629: no overlong form, no surrogate, up to U+10FFFF), 0 if none. */
static size_t utf8_valid(const unsigned char *s)
{
	uint32_t c;
	size_t len, i;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		len = 2, c = s[0] & 0x1f;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		len = 3, c = s[0] & 0x0f;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		len = 4, c = s[0] & 0x07;
	else
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	return len;
}

char *utf8_escape(char *out, size_t n, const char *in)
{
	const unsigned char *s = (const unsigned char *)in;
	size_t k = 0;

	if (!n)
		return out;
	while (*s) {
		size_t len = utf8_valid(s);
		bool raw = len > 1 || (len == 1 && (*s >= 0x20 || *s == '\t') && *s != 0x7f);

		if (raw) {
			if (k + len >= n)
				break;
			memcpy(out + k, s, len);
			k += len;
			s += len;
			continue;
		}
		if (k + 4 >= n)
			break;
		snprintf(out + k, n - k, "\\x%02x", *s++);
		k += 4;
	}
	out[k] = '\0';
	return out;
}
