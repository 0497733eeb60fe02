// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The sections of smblat.conf, in the order of smblat.conf(5) and the
 * dump: the agent's own, one per layer that registered one (named as the
 * layer, in the order of the layers), [probe NAME] last. Which keys each
 * has, and where in a struct config their values live.
 */
#include <errno.h>
#include <string.h>

#include "config/config-int.h"

#define N_CORE 3

static struct table_section sections[N_CORE + _LAYER_MAX + 1] = {
	{ "agent", { &config_agent_section }, _LAYER_MAX },
	{ "journal", { &config_journal_section }, _LAYER_MAX },
	{ "histogram", { &config_histogram_section }, _LAYER_MAX },
	/* then the layers', as they register */
	[N_CORE + _LAYER_MAX] = { "probe", { &config_probe_section }, _LAYER_MAX, true },
};

int config_layer_register(enum layer_id l, const struct config_section *s)
{
	if ((unsigned)l >= _LAYER_MAX)
		return -EINVAL;
	if (s && s->size > CONFIG_SETTINGS_MAX)
		return -E2BIG;
	sections[N_CORE + l] = (struct table_section) {
		.name = s ? s->name : NULL,
		.parts = { &config_layer_section, s },
		.layer = l,
	};
	return 0;
}

const struct table_section *table_probe(void)
{
	return &sections[N_CORE + _LAYER_MAX];
}

const struct config_section *table_layer(enum layer_id l)
{
	return sections[N_CORE + l].name ? sections[N_CORE + l].parts[1] : NULL;
}

const struct table_section *table_next(const struct table_section *s)
{
	for (s = s ? s + 1 : sections; s < sections + ELEMENTSOF(sections); s++)
		if (s->name)
			return s;
	return NULL;
}

const struct table_section *table_find(const char *name)
{
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s))
		if (!s->probe && strcmp(s->name, name) == 0)
			return s;
	return NULL;
}

void *config_layer_settings(const struct config *c, enum layer_id l)
{
	return (void *)c->settings[l].bytes;
}

void *table_base(const struct table_section *s, unsigned part, const struct config *c, unsigned probe)
{
	if (s->probe)
		return &c->probes[probe];
	if (s->layer == _LAYER_MAX)
		return (void *)c;
	return part == 0 ? (void *)&c->layer[s->layer] : config_layer_settings(c, s->layer);
}

/* The keys every layer has are in a layer's section unless only for some. */
static bool table_has(const struct table_section *s, unsigned part, const struct config_key *k)
{
	return !k->only || (part == 0 && s->parts[1] && (s->parts[1]->also & k->only) == k->only);
}

const struct config_key *table_key_next(struct table_iter *it)
{
	for (; it->part < ELEMENTSOF(it->s->parts); it->part++, it->i = 0) {
		const struct config_section *sec = it->s->parts[it->part];

		while (sec && it->i < sec->n_keys) {
			const struct config_key *k = &sec->keys[it->i++];

			if (table_has(it->s, it->part, k))
				return k;
		}
	}
	return NULL;
}

const struct config_key *table_key(const struct table_section *s, const char *name, unsigned *part)
{
	struct table_iter it = { .s = s };
	const struct config_key *k;

	while ((k = table_key_next(&it)))
		if (strcmp(k->name, name) == 0) {
			*part = it.part;
			return k;
		}
	return NULL;
}

/* "[agent], [journal], [probe NAME]": where a key misplaced by the user goes. */
const char *table_homes(const char *name, char *buf, size_t size)
{
	size_t n = 0;
	unsigned part;

	buf[0] = '\0';
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s))
		if (table_key(s, name, &part) && n < size)
			n += (size_t)snprintf(buf + n, size - n, "%s[%s%s]", n ? ", " : "", s->name,
					      s->probe ? " NAME" : "");
	return n ? buf : NULL;
}
