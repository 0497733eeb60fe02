/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fields of one journal entry, built up field by field (fields.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/uio.h>

#include "sinks/writer.h"

/*
 * The fields of one entry, built up field by field as "NAME=value" texts
 * one after the other in one buffer (on the stack until an entry outgrows
 * it), with where each ends: the entry is then one allocation
 * (fields_entry()), and formatting a field allocates nothing.
 */
#define FIELDS_INLINE_TEXT 2048
#define FIELDS_INLINE_N 48

struct fields {
	char *buf;
	size_t len, cap;
	uint32_t *end; /* end offset of each field in buf */
	size_t n, allocated;
	int error; /* first failure; later adds are no-ops */
	char inline_buf[FIELDS_INLINE_TEXT];
	uint32_t inline_end[FIELDS_INLINE_N];
};

/* Frees what outgrew the stack; f is empty again. */
void fields_done(struct fields *f);
#define _cleanup_fields_ __attribute__((cleanup(fields_done)))

/*
 * Each adds the field NAME=value; after the first failure (kept in
 * f->error and returned) adds do nothing.
 */
int fields_addn(struct fields *f, const char *name, const char *value, size_t vlen);
int fields_adds(struct fields *f, const char *name, const char *value);
/* v written in decimal, with a '-' before it when negative */
int fields_addu(struct fields *f, const char *name, uint64_t v, bool negative);
__attribute__((format(printf, 3, 4))) int fields_addf(struct fields *f, const char *name, const char *fmt,
						      ...);

/*
 * A field made in pieces, for the texts entries make on every event
 * (printf costs more than all the rest of an entry): fields_open(), then
 * fields_cat*() for each piece of its value, then fields_end().
 */
int fields_open(struct fields *f, const char *name);
void fields_cat(struct fields *f, const char *s);
void fields_catn(struct fields *f, const char *s, size_t len);
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

/* Field i as an iovec into base (f->buf, or its copy). */
struct iovec fields_iov(const struct fields *f, const char *base, size_t i);
/* The entry, in one allocation, for the writer; NULL without memory. */
struct entry *fields_entry(const struct fields *f);
/* Hands the fields over as separate strings: their number, or a negative errno. */
int fields_steal(struct fields *f, char ***ret);
