/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * libFuzzer target: the single-value parsers of values.c. Every value that
 * parses must format back to text that parses to the same value.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/target.h"
#include "config/values.h"
#include "fuzz.h"

static void duration(const char *s)
{
	uint64_t ns, again;
	char buf[32];

	if (parse_duration_ns(s, &ns) < 0)
		return;
	format_duration_ns(buf, sizeof(buf), ns);
	if (parse_duration_ns(buf, &again) < 0 || again != ns)
		fail("duration \"%s\" = %llu ns formats as \"%s\" which does not parse back", s,
		     (unsigned long long)ns, buf);
}

static void size(const char *s)
{
	uint64_t bytes, again;
	char buf[32];

	if (parse_size(s, &bytes) < 0)
		return;
	values_format_size(buf, sizeof(buf), bytes);
	if (parse_size(buf, &again) < 0 || again != bytes)
		fail("size \"%s\" = %llu formats as \"%s\" which does not parse back", s,
		     (unsigned long long)bytes, buf);
}

static void names(const char *s)
{
	const char *name;
	uint64_t u;
	bool b;
	int p;

	(void)parse_bool(s, &b);
	if (values_parse_uint(s, UINT32_MAX, &u) == 0 && u > UINT32_MAX)
		fail("uint \"%s\" = %llu above its maximum", s, (unsigned long long)u);
	p = config_priority_from_name(s);
	if (p >= 0) {
		name = config_priority_name(p);
		if (!name || config_priority_from_name(name) != p)
			fail("priority \"%s\" = %d does not name back", s, p);
	}
	p = config_backend_from_name(s);
	if (p >= 0) {
		name = config_backend_name(p);
		if (!name || config_backend_from_name(name) != p)
			fail("backend \"%s\" = %d does not name back", s, p);
	}
	(void)values_label_valid(s);
	(void)values_has_control(s);
	(void)values_user_name_valid(s);
	{
		const char *problem;
		struct target t;

		if (target_parse(s, &t, &problem) == 0)
			target_done(&t);
		else if (!problem)
			fail("target \"%s\" refused without a reason", s);
	}
	name = suggest_name(s, values_priority_names, 8);
	if (name && suggest_distance(s, name) > SUGGEST_DISTANCE)
		fail("suggested \"%s\" for \"%s\", too far", name, s);
}

/* A list goes through values_list_next into a strv, every element found again. */
static void list(const char *s)
{
	char **l = NULL, buf[VALUES_LABEL_MAX + 1];
	const char *p = s, *e;

	while ((e = values_list_next(&p, buf, sizeof(buf)))) {
		if (strlen(e) >= sizeof(buf))
			fail("list element longer than its buffer");
		if (values_strv_push(&l, e) < 0)
			break;
		if (!values_strv_contains(l, e))
			fail("list element \"%s\" not found after push", e);
	}
	values_strv_free(l);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	fuzz_report_init();
	return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t n)
{
	char *s = strndup((const char *)data, n), *nl;

	if (!s)
		return 0;
	duration(s);
	size(s);
	names(s);
	list(s);
	/* two words for the distance: before and after the first newline */
	nl = strchr(s, '\n');
	if (nl) {
		*nl = '\0';
		unsigned d = suggest_distance(s, nl + 1), back = suggest_distance(nl + 1, s);

		if (d != back)
			fail("distance not symmetric: %u %u", d, back);
	}
	free(s);
	return 0;
}
