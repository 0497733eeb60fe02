// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The grammars of smblat.conf's values: for each, the one parser (with the
 * key's limits and its message) and the one printer of the dump.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "config/config-int.h"

static void value_set(const struct config_key *k, void *base)
{
	if (k->has_set)
		*(bool *)((char *)base + k->set_offset) = true;
}

void config_print_value(FILE *f, const char *key, const char *value)
{
	/* " ;" starts an inline comment: a value beginning with ';' follows '=' directly */
	fprintf(f, "%s =%s%s\n", key, value && *value && *value != ';' ? " " : "", value ?: "");
}

void config_free_string(const struct config_key *k, void *base)
{
	char **s = config_value(k, base);

	free(*s);
	*s = NULL;
}

/* ---- bool ---- */

static int bool_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		      bool append)
{
	if (parse_bool(v, config_value(k, base)) < 0)
		return config_fail(p, "invalid boolean \"%s\" for %s, use yes/no, true/false, on/off or 1/0",
				   v, k->name);
	value_set(k, base);
	return 0;
}

static void bool_print(FILE *f, const struct config_key *k, const void *base)
{
	fprintf(f, "%s = %s\n", k->name, *(const bool *)config_value_const(k, base) ? "yes" : "no");
}

const struct config_type config_bool = {
	.parse = bool_parse,
	.print = bool_print,
	.examples = (const char *const[]) { "yes", "no", NULL },
};

/* ---- durations ---- */

static int duration_read(struct config_parser *p, const struct config_key *k, const char *v, uint64_t *ns)
{
	char buf[32];
	int r = parse_duration_ns(v, ns);

	if (r == -ERANGE)
		return config_fail(p, "%s = %s is out of range", k->name, v);
	if (r < 0)
		return config_fail(
			p,
			"invalid duration \"%s\" for %s, use e.g. 500us, 10ms or 1.5s (a bare number "
			"is in ms)",
			v, k->name);
	if (*ns >= k->min || (k->zero_off && *ns == 0))
		return 0;
	format_duration_ns(buf, sizeof(buf), k->min);
	if (k->zero_off)
		return config_fail(p, "%s = %s is too short: 0 (off) or at least %s", k->name, v, buf);
	return config_fail(p, "%s = %s is too short, at least %s", k->name, v, buf);
}

static int duration_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			  bool append)
{
	uint64_t ns;
	int r = duration_read(p, k, v, &ns);

	if (r < 0)
		return r;
	*(uint64_t *)config_value(k, base) = ns;
	value_set(k, base);
	return 0;
}

static void duration_print(FILE *f, const struct config_key *k, const void *base)
{
	char buf[32];

	fprintf(f, "%s = %s\n", k->name,
		format_duration_ns(buf, sizeof(buf), *(const uint64_t *)config_value_const(k, base)));
}

const struct config_type config_duration = {
	.parse = duration_parse,
	.print = duration_print,
	.examples = (const char *const[]) { "2s", NULL },
};

/* Empty: the threshold of the enclosing level applies. */
static int threshold_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			   bool append)
{
	if (*v) /* has_set: set */
		return duration_parse(p, k, base, v, append);
	*(uint64_t *)config_value(k, base) = 0;
	*(bool *)((char *)base + k->set_offset) = false;
	return 0;
}

static void threshold_print(FILE *f, const struct config_key *k, const void *base)
{
	if (*(const bool *)((const char *)base + k->set_offset))
		duration_print(f, k, base);
	else
		fprintf(f, "%s =\n", k->name);
}

const struct config_type config_threshold = {
	.parse = threshold_parse,
	.print = threshold_print,
	.examples = (const char *const[]) { "2ms", NULL },
};

/* ---- numbers ---- */

int config_parse_uint(struct config_parser *p, const char *v, uint64_t max, uint64_t *ret)
{
	int r = values_parse_uint(v, max, ret);

	if (r == -ERANGE)
		return config_fail(p, "%s = %s is out of range, at most %llu", p->key, v,
				   (unsigned long long)max);
	if (r < 0)
		return config_fail(p, "invalid number \"%s\" for %s", v, p->key);
	return 0;
}

static int uint_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		      bool append)
{
	uint64_t n;
	int r = config_parse_uint(p, v, k->max ?: UINT32_MAX, &n);

	if (r >= 0 && k->check)
		r = k->check(p, v, n);
	if (r < 0)
		return r;
	*(uint32_t *)config_value(k, base) = (uint32_t)n;
	value_set(k, base);
	return 0;
}

void config_print_uint(FILE *f, const struct config_key *k, const void *base)
{
	fprintf(f, "%s = %u\n", k->name, *(const uint32_t *)config_value_const(k, base));
}

const struct config_type config_uint = {
	.parse = uint_parse,
	.print = config_print_uint,
	.examples = (const char *const[]) { "7", "128", NULL },
};

/* ---- strings and names ---- */

/* Empty: unset. */
static int string_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
			bool append)
{
	char **s = config_value(k, base), *copy = NULL;
	int r;

	if (k->check && (r = k->check(p, v, 0)) < 0)
		return r;
	if (values_has_control(v))
		return config_fail(p, "%s contains control characters", k->name);
	if (*v) {
		copy = strdup(v);
		if (!copy)
			return config_oom(p);
	}
	free(*s);
	*s = copy;
	return 0;
}

void config_print_string(FILE *f, const struct config_key *k, const void *base)
{
	config_print_value(f, k->name, *(char *const *)config_value_const(k, base));
}

const struct config_type config_string = {
	.parse = string_parse,
	.print = config_print_string,
	.free = config_free_string,
	.examples = (const char *const[]) { "/x/y", "vfs_read", NULL },
};

static int enum_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		      bool append)
{
	int i = values_name_index(v, k->names, k->n_names);
	const char *hint;

	if (i >= 0) {
		*(int *)config_value(k, base) = i;
		return 0;
	}
	hint = suggest_name(v, k->names, k->n_names);
	if (hint)
		return config_fail(p, "unknown %s \"%s\", did you mean \"%s\"?", k->name, v, hint);
	return config_fail(p, "unknown %s \"%s\"", k->name, v);
}

static void enum_print(FILE *f, const struct config_key *k, const void *base)
{
	int i = *(const int *)config_value_const(k, base);

	config_print_value(f, k->name, i >= 0 && (size_t)i < k->n_names ? k->names[i] : NULL);
}

/* Its values are its key's names. */
const struct config_type config_enum = {
	.parse = enum_parse,
	.print = enum_print,
};

/* ---- lists ---- */

static size_t strv_length(char **l)
{
	size_t n = 0;

	while (l && l[n])
		n++;
	return n;
}

/* A new assignment replaces the list, indented lines extend it; duplicates go. */
static int list_parse(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		      bool append)
{
	char buf[256], ***ret = config_value(k, base), **list = NULL;
	size_t len = k->item_len && k->item_len < sizeof(buf) ? k->item_len : sizeof(buf), n;
	const char *at = v, *e;
	int r;

	if (append)
		list = TAKE_PTR(*ret);
	n = strv_length(list);
	while ((e = values_list_next(&at, buf, len))) {
		if (values_strv_contains(list, e))
			continue;
		r = k->check ? k->check(p, e, n) : 0;
		if (r >= 0 && values_strv_push(&list, e) < 0)
			r = config_oom(p);
		if (r < 0) {
			values_strv_free(list);
			return r;
		}
		n++;
	}
	values_strv_free(*ret);
	*ret = list;
	return 0;
}

/* Long lists go on over indented lines: the loader takes lines of limited length. */
static void list_print(FILE *f, const struct config_key *k, const void *base)
{
	char *const *l = *(char **const *)config_value_const(k, base);
	int col = fprintf(f, "%s =", k->name);

	for (size_t i = 0; l && l[i]; i++) {
		if (i > 0 && col + 1 + strlen(l[i]) > 78)
			col = fprintf(f, "\n ");
		col += fprintf(f, " %s", l[i]);
	}
	fputc('\n', f);
}

static void list_free(const struct config_key *k, void *base)
{
	char ***l = config_value(k, base);

	values_strv_free(*l);
	*l = NULL;
}

const struct config_type config_list = {
	.parse = list_parse,
	.print = list_print,
	.free = list_free,
	.list = true,
	/* the first longer than a line the loader takes: the dump must go on over indented lines */
	.examples =
		(const char *const[]) {
			"A01 A02 A03 A04 A05 A06 A07 A08 A09 A10 A11 A12 A13 A14 A15 A16 A17 A18 A19 A20\n  "
			"A21 A22 A23 A24 A25 A26 A27 A28 A29 A30 A31 A32 A33 A34 A35 A36 A37 A38 A39 A40\n  "
			"A41 A42 A43 A44 A45 A46 A47 A48 A49 A50 A51 A52 A53 A54 A55 A56 A57 A58 A59 A60",
			"12 0x1f", NULL },
};
