// SPDX-License-Identifier: LGPL-2.1-or-later
/* The effective configuration written back in smblat.conf syntax (--check-config): the key tables walked. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "config/config-int.h"

static bool label_char(char ch)
{
	return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') ||
	       strchr("_.:-", ch);
}

/* Whether name is taken by another probe: a label to come, or a name given before. */
static bool name_taken(const struct config *c, char (*names)[SMBLAT_NAME_LEN], unsigned i, const char *name)
{
	for (unsigned k = 0; k < c->n_probes; k++)
		if (k != i && strcmp(k < i ? names[k] : c->probes[k].label, name) == 0)
			return true;
	return false;
}

/*
 * The section name of probe i into names[i]: its label, or for a -f target
 * that is no valid name (a path, a USDT pair) one made of it, so that the
 * dump loads back.
 */
static void probe_name(const struct config *c, char (*names)[SMBLAT_NAME_LEN], unsigned i)
{
	const char *label = c->probes[i].label;
	char *buf = names[i];
	size_t len = 0;

	if (values_label_valid(label)) {
		snprintf(buf, SMBLAT_NAME_LEN, "%s", label);
		return;
	}
	for (const char *s = label; *s && len < VALUES_LABEL_MAX - 4; s++)
		buf[len++] = label_char(*s) ? *s : '_';
	buf[len] = '\0';
	for (unsigned round = 2; name_taken(c, names, i, buf); round++)
		snprintf(buf + len, SMBLAT_NAME_LEN - len, "-%u", round);
}

static void dump_keys(FILE *f, const struct table_section *s, const struct config *c, unsigned probe)
{
	struct table_iter it = { .s = s };
	const struct config_key *k;

	while ((k = table_key_next(&it)))
		k->type->print(f, k, table_base(s, it.part, c, probe));
}

static void dump_probes(FILE *f, const struct table_section *s, const struct config *c)
{
	char(*names)[SMBLAT_NAME_LEN] = c->n_probes ? calloc(c->n_probes, sizeof(*names)) : NULL;

	for (unsigned i = 0; i < c->n_probes; i++) {
		const struct probe_config *p = &c->probes[i];

		if (names)
			probe_name(c, names, i);
		if (p->cli)
			fprintf(f, "\n# -f %s: named FUNCTION=%s on the command line", p->target, p->label);
		fprintf(f, "\n[probe %s]\n", names ? names[i] : p->label);
		dump_keys(f, s, c, i);
	}
	free(names);
}

void config_dump(const struct config *c, FILE *f)
{
	fputs("# smblat effective configuration\n", f);
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s)) {
		if (!s->probe) {
			fprintf(f, "\n[%s]\n", s->name);
			dump_keys(f, s, c, 0);
			continue;
		}
		dump_probes(f, s, c);
	}
}
