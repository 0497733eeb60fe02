// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <systemd/sd-id128.h>
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

/*
 * The system journal, persistent or volatile, where journald puts the
 * entries of system services: -EACCES when it is there but closed to us
 * (not in the systemd-journal or adm group), its path in res.
 */
static int system_journal_access(struct jstacks_result *res)
{
	static const char *const dirs[] = { "/var/log/journal", "/run/log/journal" };
	char id[SD_ID128_STRING_MAX], path[128];
	sd_id128_t machine;
	int fd;

	if (sd_id128_get_machine(&machine) < 0)
		return 0; /* cannot tell: sd-journal will read what it can */
	sd_id128_to_string(machine, id);
	for (size_t i = 0; i < sizeof(dirs) / sizeof(*dirs); i++) {
		snprintf(path, sizeof(path), "%s/%s/system.journal", dirs[i], id);
		fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY);
		if (fd >= 0) {
			close(fd);
			return 0;
		}
		if ((errno == EACCES || errno == EPERM) && !res->unreadable[0])
			snprintf(res->unreadable, sizeof(res->unreadable), "%s", path);
	}
	return res->unreadable[0] ? -EACCES : 0;
}

int jstacks_read(const struct jstacks_query *q, struct folded *out, struct jstacks_result *res)
{
	sd_journal *j = NULL;
	int r;

	*res = (struct jstacks_result) {};
	r = system_journal_access(res);
	if (r == 0)
		r = sd_journal_open(&j, SD_JOURNAL_LOCAL_ONLY);
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
