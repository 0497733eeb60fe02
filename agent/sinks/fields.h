/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The fields of one journal entry, "NAME=value" strings built up one by one (the journal sink's). */
#pragma once

#include <stddef.h>
#include <stdlib.h>

/* "NAME=value" strings of one entry, built up field by field. */
struct fields {
	char **v;
	size_t n;
	size_t allocated;
	int error;              /* first failure; later adds are no-ops */
};

void fields_done(struct fields *f);
#define _cleanup_fields_ __attribute__((cleanup(fields_done)))

static inline void freep(void *p)
{
	free(*(void **) p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

/* Each adds one field; after the first failure (-ENOMEM) adds do nothing and return it. */
__attribute__((format(printf, 3, 4)))
int fields_addf(struct fields *f, const char *name, const char *fmt, ...);
int fields_adds(struct fields *f, const char *name, const char *value);
/* Hands the strings over to the caller of the *_fields() API: their number, or the first failure. */
int fields_steal(struct fields *f, char ***ret);
