// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/fields.h"

void fields_done(struct fields *f)
{
	if (f->buf != f->inline_buf)
		free(f->buf);
	if (f->end != f->inline_end)
		free(f->end);
	f->buf = NULL;
	f->end = NULL;
	f->len = f->cap = f->n = f->allocated = 0;
}

static int fields_fail(struct fields *f, int err)
{
	if (!f->error)
		f->error = err;
	return f->error;
}

/* Room for more bytes of text; grows off the stack when needed. */
static int fields_reserve(struct fields *f, size_t more)
{
	size_t want = f->len + more, cap;
	char *b;

	if (!f->buf) {
		f->buf = f->inline_buf;
		f->cap = sizeof(f->inline_buf);
	}
	if (want <= f->cap)
		return 0;
	if (want > UINT32_MAX)
		return fields_fail(f, -E2BIG);
	for (cap = f->cap * 2; cap < want; cap *= 2)
		;
	b = f->buf == f->inline_buf ? malloc(cap) : realloc(f->buf, cap);
	if (!b)
		return fields_fail(f, -ENOMEM);
	if (f->buf == f->inline_buf)
		memcpy(b, f->buf, f->len);
	f->buf = b;
	f->cap = cap;
	return 0;
}

/* The text since the last field ends a field. */
static int fields_close(struct fields *f)
{
	if (!f->end) {
		f->end = f->inline_end;
		f->allocated = FIELDS_INLINE_N;
	}
	if (f->n == f->allocated) {
		size_t m = f->allocated * 2;
		uint32_t *v = f->end == f->inline_end ? malloc(m * sizeof(*v)) :
							realloc(f->end, m * sizeof(*v));

		if (!v)
			return fields_fail(f, -ENOMEM);
		if (f->end == f->inline_end)
			memcpy(v, f->end, f->n * sizeof(*v));
		f->end = v;
		f->allocated = m;
	}
	f->end[f->n++] = (uint32_t)f->len;
	return 0;
}

static void fields_append(struct fields *f, const char *s, size_t len)
{
	memcpy(f->buf + f->len, s, len);
	f->len += len;
}

/* "NAME=": the start of a field; the caller has reserved room for it. */
static void fields_name(struct fields *f, const char *name, size_t len)
{
	fields_append(f, name, len);
	f->buf[f->len++] = '=';
}

int fields_addn(struct fields *f, const char *name, const char *value, size_t vlen)
{
	size_t nlen = strlen(name);

	if (f->error)
		return f->error;
	if (fields_reserve(f, nlen + 1 + vlen) < 0)
		return f->error;
	fields_name(f, name, nlen);
	fields_append(f, value, vlen);
	return fields_close(f);
}

int fields_adds(struct fields *f, const char *name, const char *value)
{
	return fields_addn(f, name, value, strlen(value));
}

/* Decimal digits of v, written backwards from the end of buf[21]. */
static const char *utoa(uint64_t v, char buf[static 21], size_t *len)
{
	char *p = buf + 21;

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	*len = (size_t)(buf + 21 - p);
	return p;
}

int fields_addu(struct fields *f, const char *name, uint64_t v, bool negative)
{
	char buf[22];
	size_t len;
	const char *p = utoa(v, buf + 1, &len);

	if (negative) {
		*(char *)--p = '-';
		len++;
	}
	return fields_addn(f, name, p, len);
}

/* A field made in pieces: the name now, the value by fields_cat*(), fields_end() ends it. */
int fields_open(struct fields *f, const char *name)
{
	size_t nlen = strlen(name);

	if (f->error)
		return f->error;
	if (fields_reserve(f, nlen + 1) < 0)
		return f->error;
	fields_name(f, name, nlen);
	return 0;
}

void fields_catn(struct fields *f, const char *s, size_t len)
{
	if (f->error || fields_reserve(f, len) < 0)
		return;
	fields_append(f, s, len);
}

void fields_cat(struct fields *f, const char *s)
{
	fields_catn(f, s, strlen(s));
}

void fields_catu(struct fields *f, uint64_t v, unsigned int min_digits)
{
	char buf[21];
	size_t len;
	const char *p = utoa(v, buf, &len);

	for (; len < min_digits; len++)
		fields_catn(f, "0", 1);
	fields_catn(f, p, 21 - (size_t)(p - buf));
}

void fields_catx(struct fields *f, uint64_t v)
{
	static const char digit[] = "0123456789abcdef";
	char buf[16], *p = buf + sizeof(buf);

	do
		*--p = digit[v & 15];
	while (v >>= 4);
	fields_catn(f, p, (size_t)(buf + sizeof(buf) - p));
}

int fields_end(struct fields *f)
{
	return f->error ? f->error : fields_close(f);
}

/*
 * The formats of single numbers and strings the entries use most are
 * written without printf, which costs more than all the rest of an entry.
 */
static bool fields_add_plain(struct fields *f, const char *name, const char *fmt, va_list ap)
{
	if (strcmp(fmt, "%s") == 0) {
		fields_adds(f, name, va_arg(ap, const char *));
	} else if (strcmp(fmt, "%d") == 0) {
		int v = va_arg(ap, int);

		fields_addu(f, name, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
	} else if (strcmp(fmt, "%u") == 0) {
		fields_addu(f, name, va_arg(ap, unsigned int), false);
	} else if (strcmp(fmt, "%" PRIu64) == 0) {
		fields_addu(f, name, va_arg(ap, uint64_t), false);
	} else if (strcmp(fmt, "%" PRId64) == 0) {
		int64_t v = va_arg(ap, int64_t);

		fields_addu(f, name, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0);
	} else {
		return false;
	}
	return true;
}

int fields_addf(struct fields *f, const char *name, const char *fmt, ...)
{
	size_t nlen = strlen(name);
	va_list ap;
	int k;

	if (f->error)
		return f->error;
	va_start(ap, fmt);
	if (fields_add_plain(f, name, fmt, ap)) {
		va_end(ap);
		return f->error;
	}
	va_end(ap);
	if (fields_reserve(f, nlen + 1 + 64) < 0)
		return f->error;
	fields_name(f, name, nlen);
	va_start(ap, fmt);
	k = vsnprintf(f->buf + f->len, f->cap - f->len, fmt, ap);
	va_end(ap);
	if (k < 0)
		return fields_fail(f, -EINVAL);
	if ((size_t)k >= f->cap - f->len) {
		/* did not fit: once more with room for all of it */
		if (fields_reserve(f, (size_t)k + 1) < 0)
			return f->error;
		va_start(ap, fmt);
		vsnprintf(f->buf + f->len, f->cap - f->len, fmt, ap);
		va_end(ap);
	}
	f->len += (size_t)k;
	return fields_close(f);
}

/* Field i as an iovec into base (f->buf, or its copy). */
struct iovec fields_iov(const struct fields *f, const char *base, size_t i)
{
	uint32_t from = i ? f->end[i - 1] : 0;

	return (struct iovec) { .iov_base = (char *)base + from, .iov_len = f->end[i] - from };
}

/* The entry, in one allocation, for the writer. */
struct entry *fields_entry(const struct fields *f)
{
	struct entry *e = entry_new(f->n, f->len);
	char *text;

	if (!e)
		return NULL;
	text = entry_text(e);
	memcpy(text, f->buf, f->len);
	for (size_t i = 0; i < f->n; i++)
		e->iov[i] = fields_iov(f, text, i);
	return e;
}

/* Hands the fields over as separate strings to the caller of the *_fields() API. */
int fields_steal(struct fields *f, char ***ret)
{
	char **v;

	if (f->error)
		return f->error;
	if (f->n > INT32_MAX)
		return -E2BIG;
	v = calloc(f->n ? f->n : 1, sizeof(*v));
	if (!v)
		return -ENOMEM;
	for (size_t i = 0; i < f->n; i++) {
		struct iovec iov = fields_iov(f, f->buf, i);

		v[i] = strndup(iov.iov_base, iov.iov_len);
		if (!v[i]) {
			while (i > 0)
				free(v[--i]);
			free(v);
			return -ENOMEM;
		}
	}
	*ret = v;
	return (int)f->n;
}

/* Room kept for "\n[... N more frames]" when a stack has to be cut. */
#define STACK_MARKER_MAX 40

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
		k = asprintf(&out, "%.*s%s[... %zu more frames]", (int)cut, s,
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
			     cut < len ? (char[]) { sep, '\0' } : "", (int)(len - cut), s + cut);
	}
	return k < 0 ? NULL : out;
}

void fields_add_stack(struct fields *f, const char *name, const char *stack, char sep, bool keep_tail,
		      size_t max)
{
	char *v;

	if (!stack || !stack[0])
		return;
	v = stack_cap(stack, sep, keep_tail, max);
	if (!v) {
		f->error = f->error ?: -ENOMEM;
		return;
	}
	fields_adds(f, name, v);
	free(v);
}
