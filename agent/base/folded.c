// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/folded.h"

#define EMPTY ((size_t)-1)

static uint64_t hash(const char *s)
{
	uint64_t h = 1469598103934665603ULL; /* FNV-1a */

	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 1099511628211ULL;
	return h;
}

static size_t *slot_of(const struct folded *f, const char *stack)
{
	size_t i = hash(stack) & (f->nslots - 1);

	while (f->slots[i] != EMPTY && strcmp(f->v[f->slots[i]].stack, stack))
		i = (i + 1) & (f->nslots - 1);
	return &f->slots[i];
}

/* The table stays under half full. */
static int rehash(struct folded *f)
{
	size_t n = f->nslots ? f->nslots * 2 : 64, *s = malloc(n * sizeof(*s));

	if (!s)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++)
		s[i] = EMPTY;
	free(f->slots);
	f->slots = s;
	f->nslots = n;
	for (size_t i = 0; i < f->n; i++)
		*slot_of(f, f->v[i].stack) = i;
	return 0;
}

int folded_add(struct folded *f, const char *stack, uint64_t count, uint64_t total_ns)
{
	return folded_add_tagged(f, stack, count, total_ns, 0);
}

int folded_add_tagged(struct folded *f, const char *stack, uint64_t count, uint64_t total_ns, uint32_t tag)
{
	size_t *slot;

	if ((f->n + 1) * 2 > f->nslots && rehash(f) < 0)
		return -ENOMEM;
	slot = slot_of(f, stack);
	if (*slot == EMPTY) {
		if (f->n == f->cap) {
			size_t cap = f->cap ? f->cap * 2 : 32;
			struct folded_line *v = realloc(f->v, cap * sizeof(*v));

			if (!v)
				return -ENOMEM;
			f->v = v;
			f->cap = cap;
		}
		f->v[f->n] = (struct folded_line) { .stack = strdup(stack) };
		if (!f->v[f->n].stack)
			return -ENOMEM;
		*slot = f->n++;
	}
	f->v[*slot].count += count;
	f->v[*slot].total_ns += total_ns;
	f->v[*slot].tag |= tag;
	return 0;
}

int folded_merge(struct folded *f, const struct folded *src)
{
	for (size_t i = 0; i < src->n; i++) {
		int r = folded_add_tagged(f, src->v[i].stack, src->v[i].count, src->v[i].total_ns,
					  src->v[i].tag);

		if (r < 0)
			return r;
	}
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

static int by_time(const void *a, const void *b)
{
	const struct folded_line *x = a, *y = b;

	if (x->total_ns != y->total_ns)
		return x->total_ns < y->total_ns ? 1 : -1;
	return strcmp(x->stack, y->stack);
}

void folded_sort(struct folded *f, bool time)
{
	qsort(f->v, f->n, sizeof(*f->v), time ? by_time : by_count);
	if (f->nslots) {
		for (size_t i = 0; i < f->nslots; i++)
			f->slots[i] = EMPTY;
		for (size_t i = 0; i < f->n; i++)
			*slot_of(f, f->v[i].stack) = i;
	}
}

uint64_t folded_total(const struct folded *f, bool time)
{
	uint64_t t = 0;

	for (size_t i = 0; i < f->n; i++)
		t += time ? f->v[i].total_ns : f->v[i].count;
	return t;
}

void folded_free(struct folded *f)
{
	for (size_t i = 0; i < f->n; i++)
		free(f->v[i].stack);
	free(f->v);
	free(f->slots);
	*f = (struct folded) {};
}

int folded_parse_line(char *line, char **stack, uint64_t *value)
{
	size_t n = strcspn(line, "\r\n");
	char *sp, *end;

	line[n] = '\0';
	sp = strrchr(line, ' ');
	if (!sp || sp == line || !sp[1])
		return -EINVAL;
	errno = 0;
	*value = strtoull(sp + 1, &end, 10);
	if (*end || errno)
		return -EINVAL;
	*sp = '\0';
	*stack = line;
	return 0;
}
