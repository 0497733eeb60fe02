// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "sinks/fields.h"

void fields_done(struct fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	*f = (struct fields) {};
}

static int fields_push(struct fields *f, char *s)
{
	if (!s) {
		f->error = -ENOMEM;
		return f->error;
	}
	if (f->n == f->allocated) {
		size_t m = f->allocated ? f->allocated * 2 : 32;
		char **v = realloc(f->v, m * sizeof(*v));

		if (!v) {
			free(s);
			f->error = -ENOMEM;
			return f->error;
		}
		f->v = v;
		f->allocated = m;
	}
	f->v[f->n++] = s;
	return 0;
}

int fields_addf(struct fields *f, const char *name, const char *fmt, ...)
{
	_cleanup_free_ char *value = NULL;
	char *s;
	va_list ap;
	int r;

	if (f->error)
		return f->error;
	va_start(ap, fmt);
	r = vasprintf(&value, fmt, ap);
	va_end(ap);
	if (r < 0) {
		value = NULL;
		f->error = -ENOMEM;
		return f->error;
	}
	if (asprintf(&s, "%s=%s", name, value) < 0)
		s = NULL;
	return fields_push(f, s);
}

int fields_adds(struct fields *f, const char *name, const char *value)
{
	return fields_addf(f, name, "%s", value);
}

/* Hands the strings over to the caller of the *_fields() API. */
int fields_steal(struct fields *f, char ***ret)
{
	int n;

	if (f->error)
		return f->error;
	if (f->n > INT32_MAX)
		return -E2BIG;
	n = (int) f->n;
	*ret = f->v;
	*f = (struct fields) {};
	return n;
}
