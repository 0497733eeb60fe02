// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The keys a reload cannot apply (CONFIG_KEY_RESTART): what the BPF object
 * was loaded with or sized by, and what was acted upon once at start. A
 * reload keeps their running values and names those the file changed.
 */
#include <stdlib.h>
#include <string.h>

#include "config/config-int.h"

/* The key's line in the dump: two values are the same when they print the same. */
static char *key_line(const struct config_key *k, const void *base)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&buf, &n);

	if (!f)
		return NULL;
	k->type->print(f, k, base);
	if (fclose(f) != 0) {
		free(buf);
		return NULL;
	}
	return buf;
}

/* Without memory to tell, a change: the message says more than it should, never less. */
static bool key_differs(const struct config_key *k, const void *a, const void *b)
{
	_cleanup_free_ char *x = key_line(k, a), *y = key_line(k, b);

	return !x || !y || strcmp(x, y) != 0;
}

static void swap_bytes(void *a, void *b, size_t n)
{
	unsigned char *x = a, *y = b, t;

	for (size_t i = 0; i < n; i++) {
		t = x[i];
		x[i] = y[i];
		y[i] = t;
	}
}

static void key_swap(const struct config_key *k, void *a, void *b)
{
	swap_bytes(config_value(k, a), config_value(k, b), k->size);
	if (k->has_set)
		swap_bytes((char *)a + k->set_offset, (char *)b + k->set_offset, sizeof(bool));
}

/* "comm", "[journal] enabled": [agent]'s keys go by their names alone. */
static void name_add(char *buf, size_t size, size_t *n, const struct table_section *s,
		     const struct config_key *k)
{
	bool agent = s->parts[0] == &config_agent_section;

	if (*n < size)
		*n += (size_t)snprintf(buf + *n, size - *n, "%s%s%s%s%s", *n ? ", " : "", agent ? "" : "[",
				       agent ? "" : s->name, agent ? "" : "] ", k->name);
}

unsigned config_restart_keep(struct config *next, struct config *running, const struct config *was,
			     char *changed, size_t size)
{
	unsigned count = 0;
	size_t n = 0;

	if (size)
		changed[0] = '\0';
	for (const struct table_section *s = table_next(NULL); s; s = table_next(s)) {
		struct table_iter it = { .s = s };
		const struct config_key *k;

		while (!s->probe && (k = table_key_next(&it))) {
			if (!(k->flags & CONFIG_KEY_RESTART))
				continue;
			if (key_differs(k, table_base(s, it.part, next, 0), table_base(s, it.part, was, 0))) {
				name_add(changed, size, &n, s, k);
				count++;
			}
			key_swap(k, table_base(s, it.part, next, 0), table_base(s, it.part, running, 0));
		}
	}
	return count;
}
