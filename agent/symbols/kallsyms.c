/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The reader of kallsyms text: each line into the text or data symbols,
 * names and module names into one pool, then the text symbols sorted by
 * address. What is built from it (the name index, module bookkeeping,
 * lookups) is ksyms.c's.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "base/macro.h"
#include "symbols/kallsyms.h"

#define READ_CHUNK (256 * 1024)
#define NO_MODULE ((uintptr_t)-1)
#define GROW_MIN 4096 /* kallsyms has 100k+ lines: skip the small steps */

/* Parse state. Names are pool offsets until the pool stops moving. */
struct builder {
	struct ksym *text;
	size_t n_text, cap_text;
	struct ksym *data;
	size_t n_data, cap_data;
	char *pool;
	size_t pool_len, pool_cap;
	uintptr_t *modules; /* pool offsets of the module names seen so far */
	size_t n_modules, cap_modules;
	uintptr_t last_module;
	size_t n_lines, n_nonzero;
};

static void builder_done(struct builder *b)
{
	free(b->text);
	free(b->data);
	free(b->pool);
	free(b->modules);
}

static int pool_add(struct builder *b, const char *s, size_t len, uintptr_t *ret)
{
	int r;

	r = array_grow((void **)&b->pool, &b->pool_cap, b->pool_len + len + 1, 1, GROW_MIN);
	if (r < 0)
		return r;
	memcpy(b->pool + b->pool_len, s, len);
	b->pool[b->pool_len + len] = 0;
	*ret = b->pool_len;
	b->pool_len += len + 1;
	return 0;
}

static bool pool_eq(const struct builder *b, uintptr_t off, const char *s, size_t len)
{
	return strncmp(b->pool + off, s, len) == 0 && b->pool[off + len] == 0;
}

/* Module symbols come in runs, so the last module almost always matches. */
static int builder_module(struct builder *b, const char *s, size_t len, uintptr_t *ret)
{
	int r;

	if (b->last_module != NO_MODULE && pool_eq(b, b->last_module, s, len)) {
		*ret = b->last_module;
		return 0;
	}
	for (size_t i = 0; i < b->n_modules; i++)
		if (pool_eq(b, b->modules[i], s, len)) {
			*ret = b->last_module = b->modules[i];
			return 0;
		}

	r = array_grow((void **)&b->modules, &b->cap_modules, b->n_modules + 1, sizeof(uintptr_t), GROW_MIN);
	if (r < 0)
		return r;
	r = pool_add(b, s, len, ret);
	if (r < 0)
		return r;
	b->modules[b->n_modules++] = b->last_module = *ret;
	return 0;
}

static bool type_is_text(char t)
{
	return t == 't' || t == 'T' || t == 'w' || t == 'W';
}

static bool type_is_data(char t)
{
	return t == 'd' || t == 'D' || t == 'r' || t == 'R' || t == 'b' || t == 'B';
}

/* Every address digit of 300k lines goes through here: a table, not branches. Value + 1. */
static const uint8_t hex_value[256] = {
	['0'] = 1,  ['1'] = 2,  ['2'] = 3,  ['3'] = 4,  ['4'] = 5,  ['5'] = 6,  ['6'] = 7,  ['7'] = 8,
	['8'] = 9,  ['9'] = 10, ['a'] = 11, ['b'] = 12, ['c'] = 13, ['d'] = 14, ['e'] = 15, ['f'] = 16,
	['A'] = 11, ['B'] = 12, ['C'] = 13, ['D'] = 14, ['E'] = 15, ['F'] = 16,
};

static int hex_digit(char c)
{
	return hex_value[(uint8_t)c] - 1;
}

/*
 * __pfx_NAME (the padding before each function, for call thunks, 6.2 on)
 * and __cfi_NAME (kCFI's type hash before it): half of a kernel's text
 * symbols, where no stack frame returns and nothing attaches. Without them
 * an address in the padding reads as the end of the function before.
 */
static bool padding_name(const char *name, size_t len)
{
	return (len > 6 && memcmp(name, "__pfx_", 6) == 0) || (len > 6 && memcmp(name, "__cfi_", 6) == 0);
}

/* "ffffffff81000000 T _stext" or "ffffffffc0a01000 t cifs_unlink\t[cifs]"; s..e excludes '\n' */
static int builder_line(struct builder *b, const char *s, const char *e)
{
	const char *name, *name_end, *mod = NULL, *mod_end = NULL;
	struct ksym sym = {};
	uintptr_t off, mod_off = NO_MODULE;
	int d, r;

	for (; s < e && (d = hex_digit(*s)) >= 0; s++)
		sym.addr = sym.addr << 4 | (uint64_t)d;
	if (e - s < 4 || s[0] != ' ' || s[2] != ' ')
		return 0; /* not a symbol line; tolerate rather than fail the load */
	sym.type = s[1];
	name = s + 3;
	name_end = memchr(name, '\t', e - name);
	if (name_end) {
		mod = name_end + 1;
		if (mod < e && *mod == '[' && e[-1] == ']') {
			mod++;
			mod_end = e - 1;
		} else
			mod = NULL;
	} else
		name_end = e;

	b->n_lines++;
	if (sym.addr == 0)
		return 0;
	b->n_nonzero++;

	if (!type_is_text(sym.type) && !type_is_data(sym.type))
		return 0;
	if (name_end == name || padding_name(name, name_end - name))
		return 0;

	if (mod && mod_end > mod) {
		r = builder_module(b, mod, mod_end - mod, &mod_off);
		if (r < 0)
			return r;
	}
	r = pool_add(b, name, name_end - name, &off);
	if (r < 0)
		return r;
	sym.name = (const char *)off;
	sym.module = (const char *)mod_off;

	if (type_is_text(sym.type)) {
		r = array_grow((void **)&b->text, &b->cap_text, b->n_text + 1, sizeof(struct ksym), GROW_MIN);
		if (r < 0)
			return r;
		b->text[b->n_text++] = sym;
	} else {
		r = array_grow((void **)&b->data, &b->cap_data, b->n_data + 1, sizeof(struct ksym), GROW_MIN);
		if (r < 0)
			return r;
		b->data[b->n_data++] = sym;
	}
	return 0;
}

static int builder_read(struct builder *b, int fd)
{
	_cleanup_free_ char *buf = NULL;
	size_t have = 0;
	int r = 0;

	buf = malloc(READ_CHUNK);
	if (!buf)
		return -ENOMEM;

	for (;;) {
		ssize_t n = read(fd, buf + have, READ_CHUNK - have);
		char *s, *nl;

		if (n < 0) {
			if (errno == EINTR)
				continue;
			r = -errno;
			break;
		}
		if (n == 0) {
			if (have > 0)
				r = builder_line(b, buf, buf + have);
			break;
		}
		have += n;

		for (s = buf; (nl = memchr(s, '\n', buf + have - s)); s = nl + 1) {
			r = builder_line(b, s, nl);
			if (r < 0)
				return r;
		}
		have = buf + have - s;
		if (have == READ_CHUNK) {
			r = -EBADMSG; /* a 256 KiB line is no kallsyms */
			break;
		}
		memmove(buf, s, have);
	}
	return r;
}

static int type_rank(char t)
{
	switch (t) {
	case 'T':
		return 0;
	case 'W':
		return 1;
	case 't':
		return 2;
	default:
		return 3;
	}
}

static int text_cmp(const void *a, const void *b)
{
	const struct ksym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (type_rank(x->type) != type_rank(y->type))
		return type_rank(x->type) - type_rank(y->type);
	return strcmp(x->name, y->name);
}

static void fixup(struct ksym *s, size_t n, const char *pool)
{
	for (size_t i = 0; i < n; i++) {
		s[i].name = pool + (uintptr_t)s[i].name;
		s[i].module = (uintptr_t)s[i].module == NO_MODULE ? NULL : pool + (uintptr_t)s[i].module;
	}
}

/* Sorts a run of symbols at one address best name first (runs are a few long). */
static void tie_sort(struct ksym *s, size_t n)
{
	for (size_t i = 1; i < n; i++)
		for (size_t j = i; j > 0 && text_cmp(&s[j - 1], &s[j]) > 0; j--) {
			struct ksym t = s[j];

			s[j] = s[j - 1];
			s[j - 1] = t;
		}
}

/*
 * vmlinux comes sorted by address, modules follow in their own order: sort
 * only what follows the head that is in address order (its runs of equal
 * addresses put in order on their own), then merge the two. A head that
 * ended at the first tie sent all of vmlinux through qsort: 60 % of a read.
 */
static int text_sort(struct ksym *s, size_t n)
{
	_cleanup_free_ struct ksym *tail = NULL;
	size_t head = 1, t, i, j, o;

	while (head < n && s[head - 1].addr <= s[head].addr)
		head++;
	for (i = 0; i < head; i = j) {
		for (j = i + 1; j < head && s[j].addr == s[i].addr; j++)
			;
		if (j - i > 1)
			tie_sort(s + i, j - i);
	}
	if (head >= n)
		return 0;

	t = n - head;
	tail = malloc(t * sizeof(*tail));
	if (!tail)
		return -ENOMEM;
	memcpy(tail, s + head, t * sizeof(*tail));
	qsort(tail, t, sizeof(*tail), text_cmp);

	/* Merge from the back so the head can stay where it is. */
	i = head, j = t, o = n;
	while (j > 0) {
		if (i > 0 && text_cmp(&s[i - 1], &tail[j - 1]) > 0)
			s[--o] = s[--i];
		else
			s[--o] = tail[--j];
	}
	return 0;
}

/* Moves the builder's arrays into t, shrunk to size, names turned into pointers. */
static int builder_finish(struct builder *b, struct kallsyms *t)
{
	char *pool;
	int r;

	if (b->n_lines == 0)
		return -ENODATA;
	if (b->n_nonzero == 0)
		return -EPERM;

	pool = realloc(b->pool, b->pool_len ?: 1);
	if (!pool)
		return -ENOMEM;
	b->pool = NULL;
	t->pool = pool;

	fixup(b->text, b->n_text, pool);
	fixup(b->data, b->n_data, pool);
	r = text_sort(b->text, b->n_text);
	if (r < 0)
		return r;

	t->text = realloc(b->text, (b->n_text ?: 1) * sizeof(struct ksym)) ?: b->text;
	t->n_text = b->n_text;
	b->text = NULL;
	t->data = realloc(b->data, (b->n_data ?: 1) * sizeof(struct ksym)) ?: b->data;
	t->n_data = b->n_data;
	b->data = NULL;
	return 0;
}

int kallsyms_read(int fd, struct kallsyms *ret)
{
	struct builder b = { .last_module = NO_MODULE };
	struct kallsyms t = {};
	int r;

	r = builder_read(&b, fd);
	if (r >= 0)
		r = builder_finish(&b, &t);
	builder_done(&b);
	if (r < 0) {
		kallsyms_done(&t);
		return r;
	}
	*ret = t;
	return 0;
}

void kallsyms_done(struct kallsyms *t)
{
	free(t->text);
	free(t->data);
	free(t->pool);
	*t = (struct kallsyms) {};
}
