// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A configuration's life: its defaults and what it owns, both from the key
 * tables (table.c), and the questions the agent asks of it. Loading is in
 * load.c, the keys in keys.c and the layers' modules, the dump in dump.c.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "config/config-int.h"

/* Every section's defaults; a layer enabled = auto unless its section says no, or when it has none. */
void config_init(struct config *c)
{
	*c = (struct config) {};
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s))
		for (unsigned part = 0; part < ELEMENTSOF(s->parts) && !s->probe; part++)
			if (s->parts[part] && s->parts[part]->init)
				s->parts[part]->init(table_base(s, part, c, 0));
	for (enum layer_id l = 0; l < _LAYER_MAX; l++) {
		const struct config_section *own = table_layer(l);

		/* without a section (function probes: [probe NAME]) a layer is on */
		c->layer[l].enabled = !own || !own->off;
		c->layer[l].automatic = own && !own->off;
	}
}

static void keys_free(const struct table_section *s, struct config *c, unsigned probe)
{
	struct table_iter it = { .s = s };
	const struct config_key *k;

	while ((k = table_key_next(&it)))
		if (k->type->free)
			k->type->free(k, table_base(s, it.part, c, probe));
}

/* Its keys' values, its label and where it was. */
void config_probe_done(struct config *c, unsigned i)
{
	keys_free(table_probe(), c, i);
	free(c->probes[i].label);
	free(c->probes[i].file);
}

void config_free(struct config *c)
{
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s))
		if (!s->probe)
			keys_free(s, c, 0);
	for (unsigned i = 0; i < c->n_probes; i++)
		config_probe_done(c, i);
	free(c->probes);
	config_init(c);
}

static bool name_in(char **list, const char *name)
{
	for (; list && *list; list++)
		if (strcasecmp(*list, name) == 0)
			return true;
	return false;
}

bool config_wants(const struct config *c, enum layer_id l, const char *name)
{
	const struct layer_config *lc = &c->layer[l];

	if (lc->include && lc->include[0] && !name_in(lc->include, name))
		return false;
	return !name_in(lc->exclude, name);
}

int config_probe_find(const struct config *c, const char *label)
{
	for (unsigned i = 0; i < c->n_probes; i++)
		if (strcmp(c->probes[i].label, label) == 0)
			return (int)i;
	return -ENOENT;
}

int config_carry_cli(struct config *to, const struct config *from)
{
	for (unsigned i = 0; i < from->n_probes; i++) {
		const struct probe_config *p = &from->probes[i];
		struct probe_config *v;

		if (!p->cli || config_probe_find(to, p->label) >= 0)
			continue;
		v = realloc(to->probes, (to->n_probes + 1) * sizeof(*v));
		if (!v)
			return -ENOMEM;
		to->probes = v;
		v[to->n_probes] = *p;
		v[to->n_probes].label = strdup(p->label);
		v[to->n_probes].target = strdup(p->target);
		v[to->n_probes].file = p->file ? strdup(p->file) : NULL;
		to->n_probes++;
		if (!v[to->n_probes - 1].label || !v[to->n_probes - 1].target)
			return -ENOMEM;
	}
	return 0;
}

uint64_t config_layer_threshold_ns(const struct config *c, enum layer_id l)
{
	const struct layer_config *lc = &c->layer[l];

	return lc->threshold_set ? lc->threshold_ns : c->threshold_ns;
}

uint64_t config_probe_threshold_ns(const struct config *c, const struct probe_config *p)
{
	/* [probe] sections have no layer section above them: [agent]'s */
	return p->threshold_set ? p->threshold_ns : c->threshold_ns;
}
