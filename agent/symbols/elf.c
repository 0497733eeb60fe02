/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/array.h"
#include "symbols/elffile.h"

#define GROW_MIN 256
#define DEBUG_DIR "/usr/lib/debug/.build-id"

struct elf_sym {
	uint64_t addr; /* st_value: a virtual address of the file's own layout */
	uint32_t size;
	uint32_t name; /* offset in the pool */
	uint8_t rank;  /* which name wins among aliases: lower; RANK_* and underscores */
};

#define RANK_LOCAL 4
#define RANK_HIDDEN 8 /* an older version of a versioned symbol (memcpy@GLIBC_2.2.5) */
#define VERSYM_HIDDEN 0x8000

struct elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	bool exec;
};

struct elf_file {
	struct elf_sym *syms; /* by address, best alias first */
	size_t n_syms, cap_syms;
	char *pool;
	size_t pool_len, pool_cap;
	struct elf_load *loads;
	size_t n_loads;
};

void elf_file_free(struct elf_file *f)
{
	if (!f)
		return;
	free(f->syms);
	free(f->pool);
	free(f->loads);
	free(f);
}

static int elf_file_add(struct elf_file *f, const GElf_Sym *sym, const char *name, bool hidden)
{
	size_t len = strlen(name), underscores = strspn(name, "_");
	const char *at = strchr(name, '@');
	struct elf_sym *s;
	int r;

	/* .symtab spells versions out: "memcpy@@GLIBC_2.14" is the default memcpy. */
	if (at) {
		hidden = hidden || at[1] != '@';
		len = at - name;
	}

	r = array_grow((void **)&f->syms, &f->cap_syms, f->n_syms + 1, sizeof(*f->syms), GROW_MIN);
	if (r < 0)
		return r;
	r = array_grow((void **)&f->pool, &f->pool_cap, f->pool_len + len + 1, 1, GROW_MIN);
	if (r < 0)
		return r;

	s = &f->syms[f->n_syms++];
	s->addr = sym->st_value;
	s->size = sym->st_size > UINT32_MAX ? UINT32_MAX : sym->st_size;
	s->name = f->pool_len;
	/* getpid over __getpid, exported over local, current over compat versions. */
	s->rank = (hidden ? RANK_HIDDEN : 0) + (GELF_ST_BIND(sym->st_info) == STB_LOCAL ? RANK_LOCAL : 0) +
		  (underscores > 3 ? 3 : underscores);
	memcpy(f->pool + f->pool_len, name, len);
	f->pool[f->pool_len + len] = 0;
	f->pool_len += len + 1;
	return 0;
}

/* .gnu.version: one entry per .dynsym symbol, telling compat versions apart. */
static Elf_Data *elf_versym(Elf *e)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	return NULL;
}

static int elf_file_read_syms(struct elf_file *f, Elf *e, bool *has_symtab)
{
	Elf_Data *versym = elf_versym(e);
	Elf_Scn *scn = NULL;
	int r;

	*has_symtab = false;
	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || (sh.sh_type != SHT_SYMTAB && sh.sh_type != SHT_DYNSYM))
			continue;
		if (sh.sh_entsize == 0 || !(data = elf_getdata(scn, NULL)))
			continue;
		if (sh.sh_type == SHT_SYMTAB)
			*has_symtab = true;

		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Versym ver = 0;
			GElf_Sym sym;
			const char *name;
			int type;

			if (!gelf_getsym(data, i, &sym))
				break;
			type = GELF_ST_TYPE(sym.st_info);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || sym.st_shndx == SHN_UNDEF ||
			    sym.st_value == 0)
				continue;
			name = elf_strptr(e, sh.sh_link, sym.st_name);
			if (!name || !*name)
				continue;
			if (sh.sh_type == SHT_DYNSYM && versym)
				(void)gelf_getversym(versym, i, &ver);
			r = elf_file_add(f, &sym, name, ver & VERSYM_HIDDEN);
			if (r < 0)
				return r;
		}
	}
	return 0;
}

static int elf_file_read_loads(struct elf_file *f, Elf *e)
{
	size_t n;

	if (elf_getphdrnum(e, &n) < 0)
		return -ENOEXEC;
	f->loads = calloc(n ?: 1, sizeof(*f->loads));
	if (!f->loads)
		return -ENOMEM;

	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, i, &ph) || ph.p_type != PT_LOAD)
			continue;
		f->loads[f->n_loads++] = (struct elf_load) {
			.offset = ph.p_offset,
			.vaddr = ph.p_vaddr,
			.filesz = ph.p_filesz,
			.memsz = ph.p_memsz,
			.exec = ph.p_flags & PF_X,
		};
	}
	return f->n_loads > 0 ? 0 : -ENOEXEC;
}

/* "ab/cdef...": the GNU build ID as the debug directory lays it out. */
static int elf_build_id_path(Elf *e, char *buf, size_t len)
{
	Elf_Scn *scn = NULL;

	while ((scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Nhdr nh;
		size_t off = 0, name_off, desc_off;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE || !(data = elf_getdata(scn, NULL)))
			continue;
		while ((off = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
			const uint8_t *id = (const uint8_t *)data->d_buf + desc_off;
			size_t o;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 || nh.n_descsz < 2 ||
			    memcmp((const char *)data->d_buf + name_off, "GNU", 4) != 0)
				continue;
			if (len < nh.n_descsz * 2 + 2)
				return -ENAMETOOLONG;
			o = snprintf(buf, len, "%02x/", id[0]);
			for (size_t i = 1; i < nh.n_descsz; i++)
				o += snprintf(buf + o, len - o, "%02x", id[i]);
			return 0;
		}
	}
	return -ENOENT;
}

/* Stripped files: the symbol table may sit in a separate debug file (-dbgsym packages). */
static void elf_file_read_debug(struct elf_file *f, Elf *e, const char *root)
{
	char id[160], path[PATH_MAX];
	int fd;
	Elf *d;
	bool has_symtab;

	if (elf_build_id_path(e, id, sizeof(id)) < 0)
		return;
	snprintf(path, sizeof(path), "%s" DEBUG_DIR "/%s.debug", root, id);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	d = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (d && elf_kind(d) == ELF_K_ELF)
		(void)elf_file_read_syms(f, d, &has_symtab);
	elf_end(d);
	close(fd);
}

static int elf_sym_cmp(const void *a, const void *b, void *pool)
{
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp((const char *)pool + x->name, (const char *)pool + y->name);
}

/* Sorts and drops the copies .symtab, .dynsym and the debug file have in common. */
static void elf_file_sort(struct elf_file *f)
{
	size_t o = 0;

	qsort_r(f->syms, f->n_syms, sizeof(*f->syms), elf_sym_cmp, f->pool);
	for (size_t i = 0; i < f->n_syms; i++)
		if (o == 0 || elf_sym_cmp(&f->syms[o - 1], &f->syms[i], f->pool) != 0)
			f->syms[o++] = f->syms[i];
	f->n_syms = o;
}

static int elf_file_parse(struct elf_file *f, int fd, const char *root)
{
	bool has_symtab = false;
	Elf *e;
	int r;

	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e)
		return -ENOEXEC;
	if (elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return -ENOEXEC;
	}
	r = elf_file_read_loads(f, e);
	if (r >= 0)
		r = elf_file_read_syms(f, e, &has_symtab);
	if (r >= 0 && !has_symtab)
		elf_file_read_debug(f, e, root);
	elf_end(e);
	if (r < 0)
		return r;
	elf_file_sort(f);
	return 0;
}

int elf_file_new(int fd, const char *root, struct elf_file **ret)
{
	struct elf_file *f;
	int r;

	f = calloc(1, sizeof(*f));
	if (!f)
		return -ENOMEM;
	r = elf_file_parse(f, fd, root);
	if (r < 0) {
		elf_file_free(f);
		return r;
	}
	*ret = f;
	return 0;
}

static int elf_file_offset(const struct elf_file *f, uint64_t vaddr, uint64_t *ret)
{
	const struct elf_load *best = NULL;

	for (size_t i = 0; i < f->n_loads; i++) {
		const struct elf_load *l = &f->loads[i];

		if (vaddr >= l->vaddr && vaddr - l->vaddr < l->filesz && (!best || l->exec))
			best = l;
	}
	if (!best)
		return -ENOEXEC;
	*ret = vaddr - best->vaddr + best->offset;
	return 0;
}

int elf_file_resolve(const struct elf_file *f, const char *symbol, uint64_t *ret)
{
	const struct elf_sym *global = NULL, *local = NULL, *s;
	bool global_dup = false, local_dup = false;

	for (size_t i = 0; i < f->n_syms; i++) {
		const struct elf_sym *c = &f->syms[i];
		bool is_local = c->rank & RANK_LOCAL;
		const struct elf_sym **slot = is_local ? &local : &global;
		bool *dup = is_local ? &local_dup : &global_dup;

		/* A plain name means the default version, as the dynamic linker binds it. */
		if ((c->rank & RANK_HIDDEN) || strcmp(f->pool + c->name, symbol) != 0)
			continue;
		if (!*slot)
			*slot = c;
		else if ((*slot)->addr != c->addr)
			*dup = true;
	}

	if (global ? global_dup : local_dup)
		return -ENOTUNIQ;
	s = global ?: local;
	if (!s)
		return -ENOENT;
	return elf_file_offset(f, s->addr, ret);
}

int elf_file_functions(const struct elf_file *f, const char *prefix,
		       int (*cb)(const char *name, uint64_t offset, void *userdata), void *userdata)
{
	size_t plen = strlen(prefix);
	int n = 0, r;

	for (size_t i = 0; i < f->n_syms; i++) {
		const struct elf_sym *s = &f->syms[i];
		const char *name = f->pool + s->name;
		uint64_t offset;

		/* Only what the dynamic linker binds: a local twin is not the API. */
		if ((s->rank & (RANK_LOCAL | RANK_HIDDEN)) || strncmp(name, prefix, plen) != 0)
			continue;
		if (elf_file_offset(f, s->addr, &offset) < 0)
			continue;
		r = cb(name, offset, userdata);
		if (r < 0)
			return r;
		n++;
	}
	return n;
}

static void strv_free(char **v)
{
	for (size_t i = 0; v && v[i]; i++)
		free(v[i]);
	free(v);
}

static int strv_push(char ***v, size_t *n, const char *s)
{
	char **nv = realloc(*v, (*n + 2) * sizeof(*nv));

	if (!nv)
		return -ENOMEM;
	*v = nv;
	nv[*n] = strdup(s);
	if (!nv[*n])
		return -ENOMEM;
	nv[++*n] = NULL;
	return 0;
}

int elf_file_needed(int fd, char ***ret_needed, char **ret_runpath)
{
	char **needed = NULL, *runpath = NULL, *rpath = NULL;
	Elf_Scn *scn = NULL;
	size_t n = 0;
	int r = 0;
	Elf *e;

	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return -ENOEXEC;
	}
	while (r == 0 && (scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC || sh.sh_entsize == 0 ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; r == 0 && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Dyn d;
			const char *s;

			if (!gelf_getdyn(data, i, &d) || d.d_tag == DT_NULL)
				break;
			if (d.d_tag != DT_NEEDED && d.d_tag != DT_RUNPATH && d.d_tag != DT_RPATH)
				continue;
			s = elf_strptr(e, sh.sh_link, d.d_un.d_val);
			if (!s)
				continue;
			if (d.d_tag == DT_NEEDED)
				r = strv_push(&needed, &n, s);
			else if (d.d_tag == DT_RUNPATH && !runpath && !(runpath = strdup(s)))
				r = -ENOMEM;
			else if (d.d_tag == DT_RPATH && !rpath && !(rpath = strdup(s)))
				r = -ENOMEM;
		}
	}
	elf_end(e);
	if (r < 0) {
		strv_free(needed);
		free(runpath);
		free(rpath);
		return r;
	}
	/* The dynamic linker ignores DT_RPATH when DT_RUNPATH is there. */
	if (runpath)
		free(rpath);
	else
		runpath = rpath;
	*ret_needed = needed;
	*ret_runpath = runpath;
	return 0;
}

int elf_file_interp(int fd, char **ret)
{
	char path[PATH_MAX];
	size_t n = 0;
	int r = -ENOENT;
	GElf_Phdr ph;
	ssize_t got;
	Elf *e;

	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF || elf_getphdrnum(e, &n) < 0) {
		elf_end(e);
		return -ENOEXEC;
	}
	for (size_t i = 0; i < n; i++) {
		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_INTERP)
			continue;
		if (ph.p_filesz < 2 || ph.p_filesz > sizeof(path)) {
			r = -ENOEXEC;
			break;
		}
		got = pread(fd, path, ph.p_filesz, (off_t)ph.p_offset);
		if (got != (ssize_t)ph.p_filesz || path[ph.p_filesz - 1] != '\0') {
			r = got < 0 ? -errno : -ENOEXEC;
			break;
		}
		*ret = strdup(path);
		r = *ret ? 0 : -ENOMEM;
		break;
	}
	elf_end(e);
	return r;
}

int elf_file_version_def(int fd, char **ret)
{
	Elf_Scn *scn = NULL;
	int r = -ENOENT;
	Elf *e;

	e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		elf_end(e);
		return -ENOEXEC;
	}
	while (r == -ENOENT && (scn = elf_nextscn(e, scn))) {
		Elf_Data *data;
		GElf_Shdr sh;
		GElf_Verdef vd;
		GElf_Verdaux va;
		size_t off = 0;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_GNU_verdef ||
		    !(data = elf_getdata(scn, NULL)))
			continue;
		for (size_t i = 0; i < sh.sh_info && gelf_getverdef(data, (int)off, &vd); i++) {
			const char *s;

			if (!(vd.vd_flags & VER_FLG_BASE) && vd.vd_cnt &&
			    gelf_getverdaux(data, (int)(off + vd.vd_aux), &va) &&
			    (s = elf_strptr(e, sh.sh_link, va.vda_name))) {
				*ret = strdup(s);
				r = *ret ? 0 : -ENOMEM;
				break;
			}
			if (!vd.vd_next)
				break;
			off += vd.vd_next;
		}
	}
	elf_end(e);
	return r;
}
