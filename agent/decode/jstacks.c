// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <systemd/sd-journal.h>

#include "decode/jstacks.h"
#include "base/messages.h"

/* The value of field NAME of the current entry, NUL-terminated in buf; NULL when absent. */
static const char *field(sd_journal *j, const char *name, char *buf, size_t n)
{
	size_t len, pre = strlen(name) + 1;
	const void *d;

	if (sd_journal_get_data(j, name, &d, &len) < 0 || len < pre)
		return NULL;
	len -= pre;
	if (len >= n)
		len = n - 1;
	memcpy(buf, (const char *)d + pre, len);
	buf[len] = '\0';
	return buf;
}

static uint64_t number(sd_journal *j, const char *name)
{
	char buf[32];

	return field(j, name, buf, sizeof(buf)) ? strtoull(buf, NULL, 10) : 0;
}

static int matches(sd_journal *j, const struct jstacks_query *q, const char *mid)
{
	char m[128];
	int r;

	sd_journal_flush_matches(j);
	r = sd_journal_add_match(j, "SYSLOG_IDENTIFIER=smblat", 0);
	snprintf(m, sizeof(m), "MESSAGE_ID=%s", mid);
	if (r >= 0)
		r = sd_journal_add_match(j, m, 0);
	for (const char *const *f = q->functions; r >= 0 && f && *f; f++) {
		char fm[128];

		snprintf(fm, sizeof(fm), "FUNCTION=%s", *f);
		r = sd_journal_add_match(j, fm, 0);
	}
	if (r >= 0)
		r = q->since_us ? sd_journal_seek_realtime_usec(j, q->since_us) : sd_journal_seek_head(j);
	return r;
}

/* One pass over the entries of MESSAGE_ID mid; slow: one call per slow-call entry. */
static int pass(sd_journal *j, const struct jstacks_query *q, bool slow, struct folded *out,
		struct jstacks_result *res)
{
	char stack[8192], comm[64], fn[128], *line = NULL;
	int r = matches(j, q, slow ? SMBLAT_MID_SLOW : SMBLAT_MID_STACKS);
	uint64_t t;

	while (r >= 0 && (r = sd_journal_next(j)) > 0) {
		if (sd_journal_get_realtime_usec(j, &t) < 0 || (q->until_us && t > q->until_us))
			break;
		if (!field(j, "STACK_FOLDED", stack, sizeof(stack)))
			continue;
		if (slow) {
			if (!field(j, "COMM", comm, sizeof(comm)) || !field(j, "FUNCTION", fn, sizeof(fn)))
				continue;
			for (char *c = comm; *c; c++)
				if (*c == ';')
					*c = '_';
			if (asprintf(&line, "%s;%s;%s", comm, stack, fn) < 0)
				return -ENOMEM;
			r = folded_add(out, line, 1, number(j, "LATENCY_US") * 1000);
			free(line);
		} else {
			r = folded_add(out, stack, number(j, "COUNT"), number(j, "TOTAL_US") * 1000);
		}
		if (!res->entries++)
			res->first_us = t;
		res->last_us = t;
	}
	return r < 0 ? r : 0;
}

int jstacks_read(const struct jstacks_query *q, struct folded *out, struct jstacks_result *res)
{
	sd_journal *j = NULL;
	int r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);

	*res = (struct jstacks_result) {};
	if (r < 0)
		return r;
	r = pass(j, q, false, out, res);
	if (r == 0 && !res->entries) {
		res->slow_calls = true;
		r = pass(j, q, true, out, res);
	}
	sd_journal_close(j);
	return r;
}
