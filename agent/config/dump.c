// SPDX-License-Identifier: LGPL-2.1-or-later
/* The effective configuration written back in smblat.conf syntax (--check-config): the key tables walked. */
#include <stdio.h>

#include "config/config-int.h"

static void dump_keys(FILE *f, const struct table_section *s, const struct config *c, unsigned probe)
{
	struct table_iter it = { .s = s };
	const struct config_key *k;

	while ((k = table_key_next(&it)))
		k->type->print(f, k, table_base(s, it.part, c, probe));
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
		for (unsigned i = 0; i < c->n_probes; i++) {
			fprintf(f, "\n[probe %s]\n", c->probes[i].label);
			dump_keys(f, s, c, i);
		}
	}
}
