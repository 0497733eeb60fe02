/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Inside config/: the failure of a value, and the table of sections the loader and the dump walk. */
#pragma once

#include <stdbool.h>

#include "config/config.h"
#include "config/section.h"

#include "base/macro.h"

/* parser.c: the first failure of a text, and where it was. */
struct config_parser {
	const char *key; /* the key whose value is parsed */
	unsigned line;   /* of the text, as it is read */
	int error;       /* negative errno of the first failure */
	unsigned error_line;
	char message[512];
};

/* Keeps the first failure only: error and its message. Returns the first failure's error. */
int parser_fail(struct config_parser *p, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* table.c: the sections of the file, in the order of smblat.conf(5) and the dump. */
struct table_section {
	const char *name; /* NULL: a layer without a section */
	/* where the keys come from: a layer's are the keys every layer has, then its own */
	const struct config_section *parts[2];
	enum layer_id layer; /* _LAYER_MAX: not a layer's */
	bool probe;          /* [probe NAME]: once per probe */
};

/* The section after s (NULL: the first), or NULL after the last. */
const struct table_section *table_next(const struct table_section *s);
/* The section NAME but [probe NAME], or NULL. */
const struct table_section *table_find(const char *name);
/* Where the values of the keys of s's part live in c; probe: which [probe NAME]. */
void *table_base(const struct table_section *s, unsigned part, const struct config *c, unsigned probe);
/* The section [probe NAME]. */
const struct table_section *table_probe(void);
/* The registered section of layer l, or NULL. */
const struct config_section *table_layer(enum layer_id l);

/* The keys of a section, in order: table_key_next() from { .s = s } until NULL. */
struct table_iter {
	const struct table_section *s;
	unsigned part; /* of the key returned */
	size_t i;
};
const struct config_key *table_key_next(struct table_iter *it);
/* The key NAME of s, and in *part which part has it; NULL when s has none. */
const struct config_key *table_key(const struct table_section *s, const char *name, unsigned *part);
/* "[agent], [probe NAME]": the sections that have a key NAME into buf, or NULL when none has. */
const char *table_homes(const char *name, char *buf, size_t size);

/* keys.c: the sections of the agent itself. */
extern const struct config_section config_agent_section, config_journal_section, config_histogram_section;
extern const struct config_section config_layer_section; /* the keys every layer section has */
extern const struct config_section config_probe_section;

/* config.c */
int config_probe_find(const struct config *c, const char *label);
/* Frees what probe i of c owns. */
void config_probe_done(struct config *c, unsigned i);
