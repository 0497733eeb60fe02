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
#include "symbols/kmodules.h"
#include "symbols/ksyms.h"
#include "base/clock.h"

#define KALLSYMS_PATH "/proc/kallsyms"
#define READ_CHUNK (256 * 1024)
#define NO_MODULE ((uintptr_t)-1)
#define GROW_MIN 4096       /* kallsyms has 100k+ lines: skip the small steps */
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

static void ksyms_freep(struct ksyms **k)
{
	ksyms_free(*k);
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

/* Moves the builder's arrays into k, shrunk to size, names turned into pointers. */
static int builder_finish(struct builder *b, struct ksyms *k)
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
	k->pool = pool;

	fixup(b->text, b->n_text, pool);
	fixup(b->data, b->n_data, pool);
	r = text_sort(b->text, b->n_text);
	if (r < 0)
		return r;

	k->text = realloc(b->text, (b->n_text ?: 1) * sizeof(struct ksym)) ?: b->text;
	k->n_text = b->n_text;
	b->text = NULL;
	k->data = realloc(b->data, (b->n_data ?: 1) * sizeof(struct ksym)) ?: b->data;
	k->n_data = b->n_data;
	b->data = NULL;
	return 0;
}

/*
 * Also notes which module instances the read holds: those loaded before it
 * began and still the same after it ended (ksyms_refresh()).
 */
static int ksyms_parse(const char *path, struct ksyms *k)
{
	struct builder b = { .last_module = NO_MODULE };
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
	r = builder_read(&b, fd);
	close(fd);
	if (r >= 0)
		r = builder_finish(&b, k);
	builder_done(&b);
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
