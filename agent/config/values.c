/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Single values of smblat.conf and the command line: parsing, formatting
 * back and the small helpers for names and lists. Parsers return a plain
 * negative errno; the loader in config.c turns it into a FILE:LINE message.
 */

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>

#include "config/values.h"
#include "base/macro.h"

#define WHITESPACE " \t\n\r\v\f"

const char *const values_priority_names[8] = {
	"emerg", "alert", "crit", "err", "warning", "notice", "info", "debug",
};

const char *const values_backend_names[_CHOICE_MAX] = {
	[CHOICE_AUTO] = "auto",
	[CHOICE_FENTRY] = "fentry",
	[CHOICE_KPROBE_MULTI] = "kprobe-multi",
	[CHOICE_KPROBE] = "kprobe",
};

const char *const values_thread_state_names[_TSTATE_MAX] = {
	[TSTATE_AUTO] = "auto",
	[TSTATE_TASK_STORAGE] = "task-storage",
	[TSTATE_HASH] = "hash",
};

/* ---- numbers --------------------------------------------------------------- */

int parse_duration_ns(const char *s, uint64_t *ns)
{
	/* smbvfsslower's min_ms habit */
	return values_parse_duration(s, NSEC_PER_MSEC, ns);
}

int values_parse_duration(const char *s, uint64_t bare_ns, uint64_t *ns)
{
	const struct {
		const char *suffix;
		uint64_t mult;
	} units[] = {
		{ "", bare_ns },         { "ns", 1 },
		{ "us", NSEC_PER_USEC }, { "µs", NSEC_PER_USEC },
		{ "ms", NSEC_PER_MSEC }, { "s", NSEC_PER_SEC },
		{ "sec", NSEC_PER_SEC }, { "m", NSEC_PER_MIN },
		{ "min", NSEC_PER_MIN }, { "h", NSEC_PER_HOUR },
	};
	unsigned __int128 whole = 0, frac = 0, scale = 1, total;
	const char *p = s;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		whole = whole * 10 + (unsigned)(*p - '0');
		if (whole > UINT64_MAX)
			return -ERANGE;
	}
	if (*p == '.') {
		p++;
		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		for (; isdigit((unsigned char)*p); p++) {
			/* digits past 10^-18 of anything cannot add a nanosecond, unless
			 * they are not zero, which the remainder check below rejects */
			if (scale >= 1000000000000000000ULL) {
				if (*p != '0')
					return -EINVAL;
				continue;
			}
			frac = frac * 10 + (unsigned)(*p - '0');
			scale *= 10;
		}
	}
	p += strspn(p, " \t");

	for (size_t i = 0; i < ELEMENTSOF(units); i++) {
		if (strcmp(p, units[i].suffix) != 0)
			continue;
		/* a sub-nanosecond remainder would not survive config_dump() */
		if (frac * units[i].mult % scale != 0)
			return -EINVAL;
		total = whole * units[i].mult + frac * units[i].mult / scale;
		if (total > UINT64_MAX)
			return -ERANGE;
		*ns = (uint64_t)total;
		return 0;
	}
	return -EINVAL;
}

/* Largest unit that keeps the value exact, so parse_duration_ns() gives it back. */
const char *format_duration_ns(char *buf, size_t size, uint64_t ns)
{
	static const struct {
		const char *suffix;
		uint64_t div;
	} units[] = {
		{ "s", NSEC_PER_SEC },
		{ "ms", NSEC_PER_MSEC },
		{ "us", NSEC_PER_USEC },
		{ "ns", 1 },
	};

	if (ns == 0) {
		snprintf(buf, size, "0");
		return buf;
	}
	for (size_t i = 0; i < ELEMENTSOF(units); i++)
		if (ns % units[i].div == 0) {
			snprintf(buf, size, "%llu%s", (unsigned long long)(ns / units[i].div),
				 units[i].suffix);
			break;
		}
	return buf;
}

int parse_size(const char *s, uint64_t *bytes)
{
	unsigned __int128 v = 0;
	unsigned shift = 0;
	const char *p = s;

	if (!s || !isdigit((unsigned char)*p))
		return -EINVAL;
	for (; isdigit((unsigned char)*p); p++) {
		v = v * 10 + (unsigned)(*p - '0');
		if (v > UINT64_MAX)
			return -ERANGE;
	}
	switch (*p) {
	case '\0':
		break;
	case 'K':
	case 'k':
		shift = 10;
		break;
	case 'M':
	case 'm':
		shift = 20;
		break;
	case 'G':
	case 'g':
		shift = 30;
		break;
	default:
		return -EINVAL;
	}
	if (shift > 0) {
		p++;
		if (*p && strcmp(p, "iB") != 0)
			return -EINVAL;
	}
	v <<= shift;
	if (v > UINT64_MAX)
		return -ERANGE;
	*bytes = (uint64_t)v;
	return 0;
}

const char *values_format_size(char *buf, size_t size, uint64_t bytes)
{
	static const char suffixes[] = "GMK";

	for (unsigned i = 0; i < 3; i++) {
		uint64_t unit = 1ULL << (10 * (3 - i));

		if (bytes != 0 && bytes % unit == 0) {
			snprintf(buf, size, "%llu%c", (unsigned long long)(bytes / unit), suffixes[i]);
			return buf;
		}
	}
	snprintf(buf, size, "%llu", (unsigned long long)bytes);
	return buf;
}

int parse_bool(const char *s, bool *b)
{
	static const char *const yes[] = { "yes", "true", "on", "1" };
	static const char *const no[] = { "no", "false", "off", "0" };

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < ELEMENTSOF(yes); i++) {
		if (strcasecmp(s, yes[i]) == 0) {
			*b = true;
			return 0;
		}
		if (strcasecmp(s, no[i]) == 0) {
			*b = false;
			return 0;
		}
	}
	return -EINVAL;
}

/* Plain decimal: strtoul() would take signs, blanks and hex. */
int values_parse_uint(const char *s, uint64_t max, uint64_t *ret)
{
	uint64_t v = 0;

	if (!*s)
		return -EINVAL;
	for (const char *p = s; *p; p++) {
		unsigned d = (unsigned)(*p - '0');

		if (!isdigit((unsigned char)*p))
			return -EINVAL;
		if (d > max || v > (max - d) / 10)
			return -ERANGE;
		v = v * 10 + d;
	}
	*ret = v;
	return 0;
}

int values_name_index(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (names[i] && strcmp(s, names[i]) == 0)
			return (int)i;
	return -EINVAL;
}

/* ---- names ----------------------------------------------------------------- */

int config_priority_from_name(const char *s)
{
	uint64_t v;
	int i;

	if (!s)
		return -EINVAL;
	if (values_parse_uint(s, LOG_DEBUG, &v) >= 0)
		return (int)v;
	i = values_name_index(s, values_priority_names, ELEMENTSOF(values_priority_names));
	if (i >= 0)
		return i;
	/* spellings people carry over from other tools */
	if (strcmp(s, "error") == 0)
		return LOG_ERR;
	if (strcmp(s, "warn") == 0)
		return LOG_WARNING;
	return -EINVAL;
}

const char *config_priority_name(int priority)
{
	if (priority < 0 || (size_t)priority >= ELEMENTSOF(values_priority_names))
		return NULL;
	return values_priority_names[priority];
}

int config_backend_from_name(const char *s)
{
	if (!s)
		return -EINVAL;
	return values_name_index(s, values_backend_names, ELEMENTSOF(values_backend_names));
}

const char *config_backend_name(enum backend_choice b)
{
	if ((unsigned)b >= ELEMENTSOF(values_backend_names))
		return NULL;
	return values_backend_names[b];
}

const char *const values_errors_names[_ERRORS_MAX] = {
	[ERRORS_NO] = "no",         [ERRORS_YES] = "yes",   [ERRORS_NEGATIVE] = "negative",
	[ERRORS_MINUS1] = "minus1", [ERRORS_NULL] = "null",
};

int config_errors_from_name(const char *s)
{
	bool b;

	if (!s)
		return -EINVAL;
	if (parse_bool(s, &b) == 0)
		return b ? ERRORS_YES : ERRORS_NO;
	return values_name_index(s, values_errors_names, ELEMENTSOF(values_errors_names));
}

const char *config_thread_state_name(enum thread_state_choice t)
{
	if ((unsigned)t >= ELEMENTSOF(values_thread_state_names))
		return NULL;
	return values_thread_state_names[t];
}

/* FUNCTION values: [probe NAME] labels and include=/exclude= entries. */
bool values_label_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= VALUES_LABEL_MAX &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:-") == n;
}

bool values_has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < ' ' || *s == 0x7f)
			return true;
	return false;
}

bool values_user_name_valid(const char *s)
{
	size_t n = strlen(s);

	return n > 0 && n <= 32 && s[0] != '-' &&
	       strspn(s, "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-") == n;
}

static size_t strv_length(char **l)
{
	size_t n = 0;

	while (l && l[n])
		n++;
	return n;
}

void values_strv_free(char **l)
{
	for (size_t i = 0; l && l[i]; i++)
		free(l[i]);
	free(l);
}

bool values_strv_contains(char **l, const char *s)
{
	for (size_t i = 0; l && l[i]; i++)
		if (strcmp(l[i], s) == 0)
			return true;
	return false;
}

int values_strv_push(char ***l, const char *s)
{
	size_t n = strv_length(*l);
	char **nl, *copy;

	copy = strdup(s);
	if (!copy)
		return -ENOMEM;
	nl = realloc(*l, (n + 2) * sizeof(char *));
	if (!nl) {
		free(copy);
		return -ENOMEM;
	}
	nl[n] = copy;
	nl[n + 1] = NULL;
	*l = nl;
	return 0;
}

/* Next element of a comma and/or whitespace separated list, in buf. */
const char *values_list_next(const char **p, char *buf, size_t size)
{
	size_t n;

	*p += strspn(*p, "," WHITESPACE);
	if (!**p)
		return NULL;
	n = strcspn(*p, "," WHITESPACE);
	if (n >= size)
		n = size - 1; /* too long to be valid anyway; validation says so */
	memcpy(buf, *p, n);
	buf[n] = '\0';
	*p += strcspn(*p, "," WHITESPACE);
	return buf;
}
