/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The key table of smblat.conf, in the manner of retsnoop's cfg_specs[]:
 * one entry per key gives its name, where its value lives (an offset into
 * its section's struct), its grammar (a type: the one parser and the one
 * printer of that grammar) and whether a reload applies it. Loading, the
 * dump, freeing and a reload's restart keys all walk these tables.
 *
 * config/ defines the sections of the agent itself ([agent], [journal],
 * [histogram], the keys every layer section has, [probe NAME]); a layer
 * defines its own section (its struct, defaults and keys) and points to it
 * from its ops, and the core hands them to config_layer_register(): config/
 * names no layer.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "config/config.h"

/* Where a value is being parsed: what a type's parser fails through. */
struct config_parser;

/* Refuses the value: the message goes out as "FILE:LINE: message". -EINVAL. */
int config_fail(struct config_parser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int config_oom(struct config_parser *p); /* -ENOMEM */
/* The key whose value is parsed, for messages. */
const char *config_parser_key(const struct config_parser *p);

struct config_key;

/* A grammar: the one parser and the one printer of its values. */
struct config_type {
	/*
	 * v as written, into the value at base + k->offset; append: v is an
	 * indented line that goes on with the value (types with list).
	 * Fails through config_fail() or config_oom().
	 */
	int (*parse)(struct config_parser *p, const struct config_key *k, void *base, const char *v,
		     bool append);
	/* The whole "key = value" line, as the parser takes it back. */
	void (*print)(FILE *f, const struct config_key *k, const void *base);
	/* Optional: frees what the value owns. */
	void (*free)(const struct config_key *k, void *base);
	bool list; /* the value may go on over indented lines */
	/* Values of the grammar, NULL-terminated: the table's tests set each key with them. */
	const char *const *examples;
};

/* A reload keeps the running value of the key and says that it changed. */
#define CONFIG_KEY_RESTART (1u << 0)

/* The keys every layer section may have but not all do (config_section.also). */
#define CONFIG_LAYER_ERRORS (1u << 0)
#define CONFIG_LAYER_STACKS (1u << 1)

struct config_key {
	const char *name;
	const struct config_type *type;
	size_t offset; /* of the value in its section's struct */
	size_t size;   /* of the value: what a reload that keeps it swaps */
	unsigned flags;
	unsigned only; /* a key of every layer section: only where config_section.also has these */
	/* A bool set when the key is given (CONFIG_SET()); an empty threshold clears it. */
	bool has_set;
	size_t set_offset;
	/* what the types take */
	uint64_t min, max;        /* uint: at most max; duration: at least min */
	bool zero_off;            /* duration: 0 (off) too below min */
	const char *const *names; /* enum: the names, by value */
	size_t n_names;
	size_t item_len; /* list: the longest item kept, with its NUL (longer ones are cut) */
	/*
	 * string: refuses a value (also an empty one); list: refuses an item,
	 * n are on the list before it; uint: refuses the number n (v as
	 * written). Fails through config_fail().
	 */
	int (*check)(struct config_parser *p, const char *v, size_t n);
};

/* An entry of a key table: key, the struct T of its section and T's field, its type, then options. */
#define CONFIG_KEY(key, T, field, ty, ...)                                                                   \
	{                                                                                                    \
		.name = (key), .type = &(ty), .offset = offsetof(T, field), .size = sizeof(((T *)0)->field), \
		__VA_ARGS__                                                                                  \
	}
/* Option of CONFIG_KEY(): the bool field of T that says the key was given. */
#define CONFIG_SET(T, field) .has_set = true, .set_offset = offsetof(T, field)

/* A section: its keys in the order of the dump; a layer's also its struct and defaults. */
struct config_section {
	const char *name; /* "agent"; a layer's section is named as the layer */
	const struct config_key *keys;
	size_t n_keys;
	size_t size;                  /* of a layer's struct (CONFIG_SETTINGS_MAX at most) */
	void (*init)(void *settings); /* the defaults; NULL: zeroes */
	unsigned also;                /* a layer's: CONFIG_LAYER_ERRORS, CONFIG_LAYER_STACKS */
	bool off;                     /* a layer's: enabled = no by default, not auto */
};

/* A section: its name, its key table, then options (.init). */
#define CONFIG_SECTION(section, key_table, ...)                                   \
	{                                                                         \
		.name = (section), .keys = (key_table),                           \
		.n_keys = sizeof(key_table) / sizeof((key_table)[0]), __VA_ARGS__ \
	}
/*
 * A layer's section: its name, its struct T (which must fit in
 * CONFIG_SETTINGS_MAX: a negative array size otherwise), its key table,
 * then options (.init, .also, .off).
 */
#define CONFIG_SETTINGS(section, T, key_table, ...)                                                     \
	CONFIG_SECTION(section, key_table,                                                              \
		       .size = sizeof(T) + 0 * sizeof(char[sizeof(T) <= CONFIG_SETTINGS_MAX ? 1 : -1]), \
		       __VA_ARGS__)

/* The grammars. */
extern const struct config_type config_bool;      /* yes/no, true/false, on/off, 1/0 */
extern const struct config_type config_duration;  /* 500us, 10ms, 1.5s; bare numbers in ms */
extern const struct config_type config_threshold; /* a duration, or empty: CONFIG_SET() cleared */
extern const struct config_type config_uint;      /* uint32_t, decimal, up to max */
extern const struct config_type config_string;    /* char *, empty: NULL */
extern const struct config_type config_enum;      /* an int, one of names */
extern const struct config_type config_list;      /* char **, NULL-terminated, NULL: empty */

/* For types of their own: the pieces of the common ones. */
int config_parse_uint(struct config_parser *p, const char *v, uint64_t max, uint64_t *ret);
void config_print_uint(FILE *f, const struct config_key *k, const void *base);
void config_print_string(FILE *f, const struct config_key *k, const void *base);
/* "key = value" where an empty value ends the line after "=". */
void config_print_value(FILE *f, const char *key, const char *value);
void config_free_string(const struct config_key *k, void *base);
/* The value of k in base. */
static inline void *config_value(const struct config_key *k, void *base)
{
	return (char *)base + k->offset;
}
static inline const void *config_value_const(const struct config_key *k, const void *base)
{
	return (const char *)base + k->offset;
}
