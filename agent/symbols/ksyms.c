/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "base/array.h"
#include "base/profile.h"
#include "symbols/kallsyms.h"
#include "symbols/kmodules.h"
#include "symbols/ksyms.h"
#include "base/clock.h"

#define KALLSYMS_PATH "/proc/kallsyms"
#define KSYMS_TAIL_MAX 4096 /* extent of the last symbol of vmlinux or of a module */

struct ksyms {
	char *path;
	struct ksym *text; /* sorted by address, best name first among equals */
	size_t n_text;
	struct ksym *data; /* file order; only reached by name */
	size_t n_data;
	char *pool;      /* every name and module name, NUL separated */
	uint32_t *index; /* open addressing by name: 1 + position in text, then data */
	size_t index_mask;
	struct kmodule *loaded; /* the modules whose symbols the last read holds */
	size_t n_loaded;
	bool trimmed; /* ksyms_trim() since the last read */
};

static void ksyms_freep(struct ksyms **k)
{
	ksyms_free(*k);
}

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	for (; *s; s++)
		h = (h ^ (uint8_t)*s) * 16777619u;
	return h;
}

static const struct ksym *ksyms_at(const struct ksyms *k, uint32_t slot)
{
	size_t i = slot - 1;

	return i < k->n_text ? &k->text[i] : &k->data[i - k->n_text];
}

static int ksyms_index(struct ksyms *k)
{
	size_t n = k->n_text + k->n_data, size = 1024;

	if (n >= UINT32_MAX / 2)
		return -E2BIG;
	while (size < 2 * n)
		size *= 2;
	k->index = calloc(size, sizeof(uint32_t));
	if (!k->index)
		return -ENOMEM;
	k->index_mask = size - 1;

	for (size_t i = 0; i < n; i++) {
		size_t h = name_hash(ksyms_at(k, i + 1)->name) & k->index_mask;

		while (k->index[h])
			h = (h + 1) & k->index_mask;
		k->index[h] = i + 1;
	}
	return 0;
}

/*
 * Also notes which module instances the read holds: those loaded before it
 * began and still the same after it ended (ksyms_refresh()).
 */
static int ksyms_parse(const char *path, struct ksyms *k)
{
	struct kallsyms t;
	uint64_t t0 = now_ns();
	struct kmodule *before;
	size_t n_before, kept = 0;
	int fd, r;

	before = kmodules_loaded(&n_before);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		free(before);
		return -errno;
	}
	r = kallsyms_read(fd, &t);
	close(fd);
	if (r >= 0) {
		k->text = t.text;
		k->n_text = t.n_text;
		k->data = t.data;
		k->n_data = t.n_data;
		k->pool = t.pool;
	}
	for (size_t i = 0; r >= 0 && i < n_before; i++)
		if (before[i].instance && before[i].instance == kmodule_instance(before[i].name))
			before[kept++] = before[i];
	k->loaded = before;
	k->n_loaded = r >= 0 ? kept : 0;
	prof_add(PROF_SYMBOLS, t0);
	return r;
}

static void ksyms_clear(struct ksyms *k)
{
	k->trimmed = false;
	free(k->loaded);
	k->loaded = NULL;
	k->n_loaded = 0;
	free(k->text);
	free(k->data);
	free(k->pool);
	free(k->index);
	k->text = k->data = NULL;
	k->pool = NULL;
	k->index = NULL;
	k->n_text = k->n_data = 0;
}

/* A copy of the pool with only the names text symbols use; NULL when out of memory. */
static char *pool_of_text(struct ksyms *k)
{
	size_t len = 0, o = 0;
	const char *module = NULL;
	char *pool, *copy = NULL;

	for (size_t i = 0; i < k->n_text; i++) {
		len += strlen(k->text[i].name) + 1;
		/* module symbols come in runs: one copy of each run's name */
		if (k->text[i].module && k->text[i].module != module) {
			module = k->text[i].module;
			len += strlen(module) + 1;
		}
	}
	pool = malloc(len ?: 1);
	if (!pool)
		return NULL;
	module = NULL;
	for (size_t i = 0; i < k->n_text; i++) {
		struct ksym *s = &k->text[i];
		size_t n = strlen(s->name) + 1;

		if (s->module && s->module != module) {
			module = s->module;
			copy = pool + o;
			memcpy(copy, module, strlen(module) + 1);
			o += strlen(module) + 1;
		}
		memcpy(pool + o, s->name, n);
		s->name = pool + o;
		o += n;
		if (s->module)
			s->module = copy;
	}
	return pool;
}

bool ksyms_trim(struct ksyms *k)
{
	char *pool;

	if (k->trimmed)
		return false;
	k->trimmed = true;
	free(k->index);
	k->index = NULL;
	free(k->data);
	k->data = NULL;
	k->n_data = 0;
	/* the next ksyms_refresh() reads again, for the data symbols */
	free(k->loaded);
	k->loaded = NULL;
	k->n_loaded = 0;
	pool = pool_of_text(k);
	if (pool) {
		free(k->pool);
		k->pool = pool;
	}
	return true;
}

void ksyms_free(struct ksyms *k)
{
	if (!k)
		return;
	ksyms_clear(k);
	free(k->path);
	free(k);
}

int ksyms_load_file(const char *path, struct ksyms **ret)
{
	__attribute__((cleanup(ksyms_freep))) struct ksyms *k = NULL;
	int r;

	k = calloc(1, sizeof(*k));
	if (!k)
		return -ENOMEM;
	k->path = strdup(path);
	if (!k->path)
		return -ENOMEM;
	r = ksyms_parse(path, k);
	if (r < 0)
		return r;
	*ret = k;
	k = NULL;
	return 0;
}

int ksyms_new_empty(struct ksyms **ret)
{
	struct ksyms *k = calloc(1, sizeof(*k));

	if (!k || !(k->path = strdup(KALLSYMS_PATH))) {
		free(k);
		return -ENOMEM;
	}
	*ret = k;
	return 0;
}

int ksyms_load(struct ksyms **ret)
{
	return ksyms_load_file(KALLSYMS_PATH, ret);
}

int ksyms_reload(struct ksyms *k)
{
	struct ksyms fresh = {};
	int r;

	r = ksyms_parse(k->path, &fresh);
	if (r < 0) {
		ksyms_clear(&fresh);
		return r;
	}
	ksyms_clear(k);
	fresh.path = k->path;
	*k = fresh;
	return 0;
}

int ksyms_refresh(struct ksyms *k, const char *module)
{
	uint64_t inst = kmodule_instance(module);

	for (size_t i = 0; inst && i < k->n_loaded; i++)
		if (k->loaded[i].instance == inst && strcmp(k->loaded[i].name, module) == 0)
			return 0;
	return ksyms_reload(k);
}

const char *ksyms_explain(int r)
{
	switch (r) {
	case -EPERM:
		return "/proc/kallsyms shows every address as zero: "
		       "needs CAP_SYSLOG and kernel.kptr_restrict at 0 or 1";
	case -ENODATA:
		return "/proc/kallsyms lists no symbols";
	case -EBADMSG:
		return "/proc/kallsyms is not in the kallsyms format";
	default:
		return NULL;
	}
}

size_t ksyms_count_text(const struct ksyms *k)
{
	return k->n_text;
}

size_t ksyms_count_data(const struct ksyms *k)
{
	return k->n_data;
}

const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr, uint64_t *offset)
{
	size_t lo = 0, hi = k->n_text;

	if (addr == 0 || hi == 0 || addr < k->text[0].addr)
		return NULL;

	/* Last entry at or below addr, then back to the first (best ranked) of its address. */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (k->text[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	/*
	 * kallsyms has no sizes: a symbol ends where the next one starts. The
	 * last one of vmlinux or of a module ends nowhere that kallsyms says,
	 * and what follows it may be text it does not name (BPF programs JITed
	 * after the table was read, other modules' gaps): give it a page, as
	 * perf does, rather than naming everything up to the next owner.
	 */
	if (addr - k->text[lo].addr >= KSYMS_TAIL_MAX &&
	    (lo + 1 == k->n_text || k->text[lo + 1].module != k->text[lo].module))
		return NULL;
	while (lo > 0 && k->text[lo - 1].addr == k->text[lo].addr)
		lo--;

	if (offset)
		*offset = addr - k->text[lo].addr;
	return &k->text[lo];
}

static bool module_matches(const struct ksym *s, const char *module)
{
	if (!module)
		return true;
	if (strcmp(module, "vmlinux") == 0)
		return !s->module;
	return s->module && strcmp(s->module, module) == 0;
}

/* Lower is better: vmlinux before modules, global before local, then address. */
static bool lookup_better(const struct ksym *a, const struct ksym *b)
{
	bool ga = a->type >= 'A' && a->type <= 'Z', gb = b->type >= 'A' && b->type <= 'Z';

	if (!a->module != !b->module)
		return !a->module;
	if (ga != gb)
		return ga;
	return a->addr < b->addr;
}

static const struct ksym *lookup_pick(const struct ksym *best, const struct ksym *s, const char *name,
				      const char *module)
{
	if (strcmp(s->name, name) != 0 || !module_matches(s, module))
		return best;
	return !best || lookup_better(s, best) ? s : best;
}

const struct ksym *ksyms_lookup(const struct ksyms *k, const char *name, const char *module)
{
	const struct ksym *best = NULL;

	/* Built on first use, not at load: reloads for stack frames never need it. */
	if (!k->index && ksyms_index((struct ksyms *)k) == 0)
		((struct ksyms *)k)->trimmed = false;
	if (!k->index) {
		for (size_t i = 0; i < k->n_text + k->n_data; i++)
			best = lookup_pick(best, ksyms_at(k, i + 1), name, module);
		return best;
	}

	for (size_t h = name_hash(name) & k->index_mask; k->index[h]; h = (h + 1) & k->index_mask)
		best = lookup_pick(best, ksyms_at(k, k->index[h]), name, module);
	return best;
}

int ksyms_format(const struct ksyms *k, uint64_t addr, char *buf, size_t len)
{
	const struct ksym *s;
	uint64_t off;

	if (len == 0)
		return -EINVAL;
	s = k ? ksyms_find(k, addr, &off) : NULL;
	if (!s) {
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
		return -ENOENT;
	}
	if (s->module)
		snprintf(buf, len, "%s+0x%llx [%s]", s->name, (unsigned long long)off, s->module);
	else
		snprintf(buf, len, "%s+0x%llx", s->name, (unsigned long long)off);
	return 0;
}
