// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The fields of one journal entry, "NAME=value" strings added one by one;
 * the first failure sticks, so callers check once at the end.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/fields.h"

/* Room kept for "\n[... N more frames]" when a stack has to be cut. */
#define STACK_MARKER_MAX 40

void fields_done(struct fields *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i]);
	free(f->v);
	*f = (struct fields) {};
}

static void freep(void *p)
{
	free(*(void **) p);
}
#define _cleanup_free_ __attribute__((cleanup(freep)))

int fields_push(struct fields *f, char *s)
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

static size_t frames_count(const char *s, size_t len, char sep)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		if (s[i] != sep && (i == 0 || s[i - 1] == sep))
			n++;
	return n;
}

/*
 * Keeps the whole frames that fit in max bytes and says how many were left
 * out, so a reader knows the stack is partial rather than shallow. The
 * innermost frames matter most: they lead in STACK (head) and close a
 * folded stack (tail), where the marker then stands in for the outer part.
 */
static char *stack_cap(const char *s, char sep, bool keep_tail, size_t max)
{
	size_t len = strlen(s), budget = max - STACK_MARKER_MAX, cut, total, kept;
	char *out;
	int k;

	while (len > 0 && s[len - 1] == sep)
		len--;
	while (len > 0 && s[0] == sep)
		s++, len--;
	if (len <= max)
		return strndup(s, len);

	if (!keep_tail) {
		/* cut: end of the last frame that still fits */
		cut = 0;
		for (size_t i = 1; i <= budget; i++)
			if (s[i] == sep)
				cut = i;
		total = frames_count(s, len, sep);
		kept = frames_count(s, cut, sep);
		k = asprintf(&out, "%.*s%s[... %zu more frames]", (int) cut, s,
			     cut ? (char[]) { sep, '\0' } : "", total - kept);
	} else {
		/* cut: start of the outermost frame that still fits */
		cut = len;
		for (size_t i = len - 1; i >= len - budget; i--)
			if (s[i - 1] == sep)
				cut = i;
		total = frames_count(s, len, sep);
		kept = frames_count(s + cut, len - cut, sep);
		k = asprintf(&out, "[... %zu more frames]%s%.*s", total - kept,
			     cut < len ? (char[]) { sep, '\0' } : "", (int) (len - cut), s + cut);
	}
	return k < 0 ? NULL : out;
}

void fields_add_stack(struct fields *f, const char *name, const char *stack,
		      char sep, bool keep_tail, size_t max)
{
	_cleanup_free_ char *v = NULL;

	if (!stack || !stack[0])
		return;
	v = stack_cap(stack, sep, keep_tail, max);
	if (!v) {
		f->error = f->error ?: -ENOMEM;
		return;
	}
	fields_adds(f, name, v);
}
