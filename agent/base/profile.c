// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdio.h>
#include <time.h>

#include "base/profile.h"
#include "base/clock.h"

static uint64_t spent[_PROF_MAX];

static const char *const names[_PROF_MAX] = {
	[PROF_SYMBOLS] = "kernel symbols", [PROF_BTF] = "BTF",
	[PROF_LOAD] = "BPF load",          [PROF_OPS] = "cifs ops tables",
	[PROF_CLONE] = "fentry clones",    [PROF_LINK] = "attach",
};

uint64_t prof_now_ns(void)
{
	return now_ns();
}

void prof_add(enum prof_phase p, uint64_t since)
{
	spent[p] += now_ns() - since;
}

void prof_format(char *buf, size_t n)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int p = 0; p < _PROF_MAX && len < n; p++) {
		/* under a millisecond says nothing about where the time went */
		if (spent[p] < 1000000)
			continue;
		len += snprintf(buf + len, n - len, "%s%s %.2f s", len ? ", " : "", names[p], spent[p] / 1e9);
	}
}
