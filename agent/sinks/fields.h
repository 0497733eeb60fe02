/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fields of one journal entry, built up field by field into its datagram (fields.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

/*
 * The fields of one entry, written as they are added straight into the
 * datagram journald's native protocol reads: "NAME=value\n", or where the
 * value holds a newline "NAME\n", the value's length (64 bits, little
 * endian), the value and "\n". The entry is then one buffer, sent as it
 * is. The buffer is kept from entry to entry (fields_reset()): once it has
 * grown to the largest entry, building one allocates nothing.
 */
struct fields {
	char *buf;
	size_t len, cap;
	size_t n;     /* fields ended */
	size_t value; /* where the value of the field being made starts (fields_open) */
	int error;    /* first failure; later adds are no-ops */
};

/* Empty again, the buffer kept. */
static inline void fields_reset(struct fields *f)
{
	f->len = f->n = 0;
	f->error = 0;
}

/* Frees the buffer; f is empty again. */
void fields_done(struct fields *f);
#define _cleanup_fields_ __attribute__((cleanup(fields_done)))

/* Room for more bytes, growing the buffer when needed; false (f->error set) without memory. */
bool fields_grow(struct fields *f, size_t more);
static inline bool fields_room(struct fields *f, size_t more)
{
	return f->len + more <= f->cap || fields_grow(f, more);
}

/*
 * Each adds the field NAME=value; after the first failure (kept in
 * f->error and returned) adds do nothing. The name's length is taken where
 * the call is inlined: a literal costs nothing.
 */
int fields_add_text(struct fields *f, const char *name, size_t nlen, const char *value, size_t vlen);
int fields_add_num(struct fields *f, const char *name, size_t nlen, uint64_t v, bool negative);

static inline int fields_addn(struct fields *f, const char *name, const char *value, size_t vlen)
{
	return fields_add_text(f, name, strlen(name), value, vlen);
}

static inline int fields_adds(struct fields *f, const char *name, const char *value)
{
	return fields_add_text(f, name, strlen(name), value, strlen(value));
}

/* v written in decimal, with a '-' before it when negative */
static inline int fields_addu(struct fields *f, const char *name, uint64_t v, bool negative)
{
	return fields_add_num(f, name, strlen(name), v, negative);
}

static inline int fields_addi(struct fields *f, const char *name, int64_t v)
{
	return fields_add_num(f, name, strlen(name), v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
}

__attribute__((format(printf, 3, 4))) int fields_addf(struct fields *f, const char *name, const char *fmt,
						      ...);

/*
 * A field made in pieces, for the texts entries make on every event
 * (printf costs more than all the rest of an entry): fields_open(), then
 * fields_cat*() for each piece of its value, then fields_end().
 */
int fields_open(struct fields *f, const char *name);
void fields_catn(struct fields *f, const char *s, size_t len);
static inline void fields_cat(struct fields *f, const char *s)
{
	fields_catn(f, s, strlen(s));
}
/* v in decimal, with leading zeros up to min_digits */
void fields_catu(struct fields *f, uint64_t v, unsigned int min_digits);
/* v in lower-case hexadecimal, without a prefix */
void fields_catx(struct fields *f, uint64_t v);
int fields_end(struct fields *f);

/*
 * A stack of frames separated by sep, cut to whole frames within max bytes
 * with a marker that says how many were left out: the innermost frames are
 * kept, at the head (keep_tail false) or the tail (a folded stack).
 */
void fields_add_stack(struct fields *f, const char *name, const char *stack, char sep, bool keep_tail,
		      size_t max);

/*
 * The fields of a datagram as NAME=value strings (for tests and the
 * fuzzer, and as a check of the datagram): their number, or a negative
 * errno (-EBADMSG: not a datagram of this format).
 */
int fields_parse(const char *buf, size_t len, char ***ret);
/* The same of f's datagram, or f's error. */
int fields_steal(struct fields *f, char ***ret);
