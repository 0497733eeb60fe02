// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why the datagram is built here and not by sd_journal_sendv(): that takes
 * an iovec per field, looks through each for '=' and '\n', makes five more
 * iovecs per field and sends the lot to the socket's path. Written once in
 * its final form, an entry is one buffer for sendmmsg(), and the writer
 * thread only sends (writer.c).
 */
#include <endian.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sinks/fields.h"

#define FIELDS_MIN_CAP 4096
#define BINARY_EXTRA 9 /* a value with a newline: its 8-byte length, and '\n' for the '=' is the same */

void fields_done(struct fields *f)
{
	free(f->buf);
	*f = (struct fields) {};
}

static int fields_fail(struct fields *f, int err)
{
	if (!f->error)
		f->error = err;
	return f->error;
}

bool fields_grow(struct fields *f, size_t more)
{
	size_t want = f->len + more, cap = f->cap ? f->cap : FIELDS_MIN_CAP;
	char *b;

	if (f->error)
		return false;
	if (want > UINT32_MAX) {
		fields_fail(f, -E2BIG);
		return false;
	}
	while (cap < want)
		cap *= 2;
	b = realloc(f->buf, cap);
	if (!b) {
		fields_fail(f, -ENOMEM);
		return false;
	}
	f->buf = b;
	f->cap = cap;
	return true;
}

static inline void put(struct fields *f, const void *s, size_t len)
{
	memcpy(f->buf + f->len, s, len);
	f->len += len;
}

/*
 * The value at buf[f->value, f->len) holds a newline: the field becomes
 * "NAME\n" + length + value. The caller has room for BINARY_EXTRA - 1 more.
 */
static void binary_form(struct fields *f)
{
	uint64_t vlen = f->len - f->value, le = htole64(vlen);
	char *v = f->buf + f->value;

	memmove(v + sizeof(le), v, vlen);
	v[-1] = '\n'; /* was '=' */
	memcpy(v, &le, sizeof(le));
	f->len += sizeof(le);
}

/* The value since fields_open() or fields_add_text() ends the field. */
static int field_close(struct fields *f)
{
	if (memchr(f->buf + f->value, '\n', f->len - f->value))
		binary_form(f);
	f->buf[f->len++] = '\n';
	f->n++;
	return 0;
}

int fields_add_text(struct fields *f, const char *name, size_t nlen, const char *value, size_t vlen)
{
	if (f->error || !fields_room(f, nlen + vlen + 1 + BINARY_EXTRA))
		return f->error;
	put(f, name, nlen);
	f->buf[f->len++] = '=';
	f->value = f->len;
	put(f, value, vlen);
	return field_close(f);
}

/* Decimal digits of v, written backwards from the end of buf[20]; their count. */
static size_t utoa(uint64_t v, char *end)
{
	char *p = end;

	do
		*--p = (char)('0' + v % 10);
	while (v /= 10);
	return (size_t)(end - p);
}

int fields_add_num(struct fields *f, const char *name, size_t nlen, uint64_t v, bool negative)
{
	char digits[21];
	size_t k;

	if (f->error || !fields_room(f, nlen + 23))
		return f->error;
	put(f, name, nlen);
	f->buf[f->len++] = '=';
	if (negative)
		f->buf[f->len++] = '-';
	k = utoa(v, digits + sizeof(digits));
	put(f, digits + sizeof(digits) - k, k);
	f->buf[f->len++] = '\n';
	f->n++;
	return 0;
}

int fields_open(struct fields *f, const char *name)
{
	size_t nlen = strlen(name);

	if (f->error || !fields_room(f, nlen + 1))
		return f->error;
	put(f, name, nlen);
	f->buf[f->len++] = '=';
	f->value = f->len;
	return 0;
}

void fields_catn(struct fields *f, const char *s, size_t len)
{
	if (f->error || !fields_room(f, len))
		return;
	put(f, s, len);
}

void fields_catu(struct fields *f, uint64_t v, unsigned int min_digits)
{
	char digits[20];
	size_t k = utoa(v, digits + sizeof(digits));

	if (f->error || !fields_room(f, k + min_digits))
		return;
	for (; k < min_digits; min_digits--)
		f->buf[f->len++] = '0';
	put(f, digits + sizeof(digits) - k, k);
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
	if (f->error || !fields_room(f, BINARY_EXTRA))
		return f->error;
	return field_close(f);
}

/* The formats of single numbers and strings are written without printf. */
static bool fields_add_plain(struct fields *f, const char *name, const char *fmt, va_list ap)
{
	if (strcmp(fmt, "%s") == 0) {
		fields_adds(f, name, va_arg(ap, const char *));
	} else if (strcmp(fmt, "%d") == 0) {
		fields_addi(f, name, va_arg(ap, int));
	} else if (strcmp(fmt, "%u") == 0) {
		fields_addu(f, name, va_arg(ap, unsigned int), false);
	} else if (strcmp(fmt, "%" PRIu64) == 0) {
		fields_addu(f, name, va_arg(ap, uint64_t), false);
	} else if (strcmp(fmt, "%" PRId64) == 0) {
		fields_addi(f, name, va_arg(ap, int64_t));
	} else {
		return false;
	}
	return true;
}

int fields_addf(struct fields *f, const char *name, const char *fmt, ...)
{
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
	va_start(ap, fmt);
	k = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (k < 0)
		return fields_fail(f, -EINVAL);
	/* vsnprintf() writes a NUL after the value: the room of its '\n' */
	if (fields_open(f, name) < 0 || !fields_room(f, (size_t)k + BINARY_EXTRA))
		return f->error;
	va_start(ap, fmt);
	vsnprintf(f->buf + f->len, (size_t)k + 1, fmt, ap);
	va_end(ap);
	f->len += (size_t)k;
	return field_close(f);
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

static void cat_marker(struct fields *f, size_t more)
{
	fields_cat(f, "[... ");
	fields_catu(f, more, 1);
	fields_cat(f, " more frames]");
}

/*
 * Keeps the whole frames that fit in max bytes and says how many were left
 * out, so a reader knows the stack is partial rather than shallow. The
 * innermost frames matter most: they lead in STACK (head) and close a
 * folded stack (tail), where the marker then stands in for the outer part.
 */
void fields_add_stack(struct fields *f, const char *name, const char *stack, char sep, bool keep_tail,
		      size_t max)
{
	const char *s = stack;
	size_t len, budget = max - STACK_MARKER_MAX, cut, total;

	if (!s || !s[0])
		return;
	len = strlen(s);
	while (len > 0 && s[len - 1] == sep)
		len--;
	while (len > 0 && s[0] == sep)
		s++, len--;
	if (len <= max) {
		fields_addn(f, name, s, len);
		return;
	}
	total = frames_count(s, len, sep);
	if (fields_open(f, name) < 0)
		return;
	if (!keep_tail) {
		/* cut: end of the last frame that still fits */
		cut = 0;
		for (size_t i = 1; i <= budget; i++)
			if (s[i] == sep)
				cut = i;
		fields_catn(f, s, cut);
		if (cut)
			fields_catn(f, &sep, 1);
		cat_marker(f, total - frames_count(s, cut, sep));
	} else {
		/* cut: start of the outermost frame that still fits */
		cut = len;
		for (size_t i = len - 1; i >= len - budget; i--)
			if (s[i - 1] == sep)
				cut = i;
		cat_marker(f, total - frames_count(s + cut, len - cut, sep));
		if (cut < len)
			fields_catn(f, &sep, 1);
		fields_catn(f, s + cut, len - cut);
	}
	fields_end(f);
}

static void strv_free(char **v, size_t n)
{
	while (n > 0)
		free(v[--n]);
	free(v);
}

/* One field at buf[*at, len) as "NAME=value"; -EBADMSG when it is none. */
static int parse_one(const char *buf, size_t len, size_t *at, char **out)
{
	const char *p = buf + *at, *end = buf + len, *eq = p;
	uint64_t vlen;
	size_t nlen;

	while (eq < end && *eq != '=' && *eq != '\n')
		eq++;
	if (eq == end || eq == p)
		return -EBADMSG;
	nlen = (size_t)(eq - p);
	if (*eq == '=') {
		const char *nl = memchr(eq, '\n', (size_t)(end - eq));

		if (!nl)
			return -EBADMSG;
		vlen = (uint64_t)(nl - eq - 1);
		*at = (size_t)(nl + 1 - buf);
	} else {
		uint64_t le;

		if ((size_t)(end - eq) < 1 + sizeof(le))
			return -EBADMSG;
		memcpy(&le, eq + 1, sizeof(le));
		vlen = le64toh(le);
		if (vlen >= (size_t)(end - eq) - 1 - sizeof(le) || eq[1 + sizeof(le) + vlen] != '\n')
			return -EBADMSG;
		*at = (size_t)(eq + 1 + sizeof(le) + vlen + 1 - buf);
		eq += sizeof(le);
	}
	*out = malloc(nlen + 1 + vlen + 1);
	if (!*out)
		return -ENOMEM;
	memcpy(*out, p, nlen);
	(*out)[nlen] = '=';
	memcpy(*out + nlen + 1, eq + 1, vlen);
	(*out)[nlen + 1 + vlen] = '\0';
	return 0;
}

int fields_parse(const char *buf, size_t len, char ***ret)
{
	char **v = NULL;
	size_t n = 0, at = 0;

	while (at < len) {
		char **w = realloc(v, (n + 2) * sizeof(*v));
		int r;

		if (!w) {
			strv_free(v, n);
			return -ENOMEM;
		}
		v = w;
		r = parse_one(buf, len, &at, &v[n]);
		if (r < 0) {
			strv_free(v, n);
			return r;
		}
		if (++n > INT32_MAX) {
			strv_free(v, n);
			return -E2BIG;
		}
	}
	if (!v && !(v = calloc(1, sizeof(*v))))
		return -ENOMEM;
	*ret = v;
	return (int)n;
}

int fields_steal(struct fields *f, char ***ret)
{
	if (f->error)
		return f->error;
	return fields_parse(f->buf, f->len, ret);
}
