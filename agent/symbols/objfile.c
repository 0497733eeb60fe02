/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "symbols/objfile.h"

#define GROW_MIN 256
#define RANK_LOCAL 4
#define RANK_HIDDEN 8 /* an older version of a versioned symbol (memcpy@GLIBC_2.2.5) */

struct osym {
	uint64_t addr; /* the file's own virtual address */
	uint64_t size;
	const char *name; /* libdwfl's; up to a '@' version, see len */
	uint16_t len;
	uint8_t rank; /* which of aliases names the address: lower */
};

struct oload {
	uint64_t offset, vaddr, filesz;
	bool exec;
};

struct objfile {
	Dwfl *dwfl;
	Dwfl_Module *mod;
	Dwfl_Callbacks cb;
	char *debuginfo_path; /* what cb points to */
	char *path;
	struct oload *loads;
	size_t n_loads;
	struct osym *syms; /* by address, the best alias first; built at the first lookup */
	size_t n_syms;
	bool indexed;
	char name[256]; /* a symbol cut at its version, for the caller */
};

/* libdwfl looks for debug files in the file's directory, its .debug, and under root's debug tree. */
static char *debuginfo_path_for(const char *root)
{
	char *s = NULL;

	/* '-': no CRC check of .gnu_debuglink files, which would read each one whole */
	if (asprintf(&s, "-:.debug:%s/usr/lib/debug", root) < 0)
		return NULL;
	return s;
}

static int loads_read(struct objfile *o)
{
	GElf_Addr bias;
	Elf *e = dwfl_module_getelf(o->mod, &bias);
	size_t n;

	if (!e || elf_getphdrnum(e, &n) < 0)
		return -ENOEXEC;
	o->loads = calloc(n ?: 1, sizeof(*o->loads));
	if (!o->loads)
		return -ENOMEM;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		o->loads[o->n_loads++] = (struct oload) {
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return o->n_loads ? 0 : -ENOEXEC;
}

int objfile_open(int fd, const char *path, const char *root, struct objfile **ret)
{
	struct objfile *o = calloc(1, sizeof(*o));
	int dfd, r = -ENOMEM;

	if (!o)
		return -ENOMEM;
	o->path = strdup(path);
	o->debuginfo_path = debuginfo_path_for(root);
	if (!o->path || !o->debuginfo_path)
		goto fail;
	o->cb = (Dwfl_Callbacks) {
		.find_elf = dwfl_build_id_find_elf,
		.find_debuginfo = dwfl_standard_find_debuginfo,
		.section_address = dwfl_offline_section_address,
		.debuginfo_path = &o->debuginfo_path,
	};
	o->dwfl = dwfl_begin(&o->cb);
	if (!o->dwfl)
		goto fail;
	/* libdwfl closes the descriptor it is given: a copy */
	dfd = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (dfd < 0) {
		r = -errno;
		goto fail;
	}
	dwfl_report_begin(o->dwfl);
	/* base 0, added to the segments' addresses: the file's own addresses, as symbols have them */
	o->mod = dwfl_report_elf(o->dwfl, path, path, dfd, 0, true);
	dwfl_report_end(o->dwfl, NULL, NULL);
	if (!o->mod) {
		close(dfd);
		r = -ENOEXEC;
		goto fail;
	}
	r = loads_read(o);
	if (r < 0)
		goto fail;
	*ret = o;
	return 0;
fail:
	objfile_free(o);
	return r;
}

void objfile_free(struct objfile *o)
{
	if (!o)
		return;
	if (o->dwfl)
		dwfl_end(o->dwfl);
	free(o->debuginfo_path);
	free(o->path);
	free(o->loads);
	free(o->syms);
	free(o);
}

const char *objfile_path(const struct objfile *o)
{
	return o->path;
}

Dwfl_Module *objfile_module(struct objfile *o)
{
	return o->mod;
}

int objfile_exec_segments(struct objfile *o,
			  int (*cb)(uint64_t offset, uint64_t vaddr, uint64_t size, void *userdata),
			  void *userdata)
{
	for (size_t i = 0; i < o->n_loads; i++) {
		int r;

		if (!o->loads[i].exec)
			continue;
		r = cb(o->loads[i].offset, o->loads[i].vaddr, o->loads[i].filesz, userdata);
		if (r < 0)
			return r;
	}
	return 0;
}

static int osym_cmp(const void *a, const void *b)
{
	const struct osym *x = a, *y = b;
	int c;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	c = strncmp(x->name, y->name, x->len < y->len ? x->len : y->len);
	return c ? c : (int)x->len - (int)y->len;
}

/* getpid over __getpid, exported over local, the current version over compat ones. */
static uint8_t osym_rank(const GElf_Sym *sym, const char *name, uint16_t *len)
{
	const char *at = strchr(name, '@');
	size_t underscores = strspn(name, "_");
	bool hidden = at && at[1] != '@';

	*len = at ? (uint16_t)(at - name) : (uint16_t)strnlen(name, UINT16_MAX);
	return (hidden ? RANK_HIDDEN : 0) + (GELF_ST_BIND(sym->st_info) == STB_LOCAL ? RANK_LOCAL : 0) +
	       (underscores > 3 ? 3 : underscores);
}

/*
 * The functions of the best symbol table libdwfl found, sorted; copies of
 * one symbol (.symtab and .dynsym, main and debug file) dropped.
 */
static int objfile_index(struct objfile *o)
{
	size_t cap = 0, w = 0;
	int n;

	o->indexed = true;
	n = dwfl_module_getsymtab(o->mod);
	for (int i = 1; i < n; i++) {
		GElf_Sym sym;
		GElf_Addr addr;
		GElf_Word shndx;
		const char *name = dwfl_module_getsym_info(o->mod, i, &sym, &addr, &shndx, NULL, NULL);
		int type = GELF_ST_TYPE(sym.st_info);
		struct osym *s;

		if (!name || !*name || (type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF ||
		    addr == 0)
			continue;
		if (array_grow((void **)&o->syms, &cap, o->n_syms + 1, sizeof(*o->syms), GROW_MIN) < 0)
			return -ENOMEM;
		s = &o->syms[o->n_syms++];
		s->addr = addr;
		s->size = sym.st_size;
		s->name = name;
		s->rank = osym_rank(&sym, name, &s->len);
	}
	qsort(o->syms, o->n_syms, sizeof(*o->syms), osym_cmp);
	for (size_t i = 0; i < o->n_syms; i++)
		if (w == 0 || osym_cmp(&o->syms[w - 1], &o->syms[i]) != 0)
			o->syms[w++] = o->syms[i];
	o->n_syms = w;
	return 0;
}

static int vaddr_of(const struct objfile *o, uint64_t off, uint64_t *ret)
{
	for (size_t i = 0; i < o->n_loads; i++) {
		const struct oload *l = &o->loads[i];

		if (off >= l->offset && off - l->offset < l->filesz) {
			*ret = off - l->offset + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

int objfile_symbol(struct objfile *o, uint64_t off, const char **name, uint64_t *delta)
{
	size_t lo = 0, hi, first;
	const struct osym *s;
	bool covered = false;
	uint64_t va;

	if (!o->indexed && objfile_index(o) < 0)
		return -ENOMEM;
	if (vaddr_of(o, off, &va) < 0)
		return -ENOENT;
	hi = o->n_syms;
	if (hi == 0 || va < o->syms[0].addr)
		return -ENOENT;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (o->syms[mid].addr <= va)
			lo = mid;
		else
			hi = mid;
	}
	/*
	 * Stripped libraries list only exported functions: past the end of the
	 * nearest one lies some static function, not more of it.
	 */
	for (first = lo;; first--) {
		s = &o->syms[first];
		if (s->size == 0 || va - s->addr < s->size)
			covered = true;
		if (first == 0 || o->syms[first - 1].addr != s->addr)
			break;
	}
	if (!covered)
		return -ENOENT;
	snprintf(o->name, sizeof(o->name), "%.*s", (int)s->len, s->name);
	*name = o->name;
	*delta = va - s->addr;
	return 0;
}
