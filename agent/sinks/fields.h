/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fields of one journal entry, built up field by field (fields.c). */
#pragma once

#include <stdbool.h>
#include <stddef.h>

struct fields {
	char **v;               /* "NAME=value", owned */
	size_t n;
	size_t allocated;
	int error;              /* first failure; later adds are no-ops */
};

void fields_done(struct fields *f);
#define _cleanup_fields_ __attribute__((cleanup(fields_done)))

/* Takes s (NULL: out of memory); negative errno, also for every add after a failure. */
int fields_push(struct fields *f, char *s);
int fields_addf(struct fields *f, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int fields_adds(struct fields *f, const char *name, const char *value);
/*
 * A stack of frames separated by sep, cut to whole frames within max bytes
 * with a marker that says how many were left out: the innermost frames are
 * kept, at the head (keep_tail false) or the tail (a folded stack).
 */
void fields_add_stack(struct fields *f, const char *name, const char *stack,
		      char sep, bool keep_tail, size_t max);
/* Hands the strings over (*ret, to free); their count, or the first failure. */
int fields_steal(struct fields *f, char ***ret);
