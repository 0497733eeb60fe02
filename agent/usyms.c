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
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "usyms.h"

#define PROCS_MAX 256
#define ELFS_MAX 128
#define NSEC_PER_MSEC 1000000ull
#define RECHECK_NS (1000 * NSEC_PER_MSEC)     /* how stale a pid may get before checking reuse */
#define RELOAD_NS (250 * NSEC_PER_MSEC)       /* stacks carry junk: bound maps re-reads on misses */
#define RETRY_NS (10000 * NSEC_PER_MSEC)      /* an unreadable file may become readable */
#define DELETED_SUFFIX " (deleted)"
#define DEBUG_DIR "/usr/lib/debug/.build-id"

struct elf_sym {
	uint64_t addr;          /* st_value: a virtual address of the file's own layout */
	uint32_t size;
	uint32_t name;          /* offset in the pool */
	uint8_t rank;           /* which name wins among aliases: lower; RANK_* and underscores */
};

#define RANK_LOCAL 4
#define RANK_HIDDEN 8           /* an older version of a versioned symbol (memcpy@GLIBC_2.2.5) */
#define VERSYM_HIDDEN 0x8000

struct elf_load {
	uint64_t offset, vaddr, filesz, memsz;
	bool exec;
};

struct elf_file {
	dev_t dev;
	ino_t ino;
	int error;              /* negative errno when unreadable, retried after RETRY_NS */
	uint64_t loaded_ns;
	uint64_t used;
	struct elf_sym *syms;   /* by address, best alias first */
	size_t n_syms, cap_syms;
	char *pool;
	size_t pool_len, pool_cap;
	struct elf_load *loads;
	size_t n_loads;
};

struct map {
	uint64_t start, end, pgoff;
	dev_t dev;
	ino_t ino;
	char *path;             /* as /proc/PID/maps shows it */
};

/* What tells a reused pid apart, and an exec() of another program. */
struct proc_id {
	uint64_t start_time;
	dev_t exe_dev;
	ino_t exe_ino;
};

struct proc {
	uint32_t pid;
	struct proc_id id;
	uint64_t checked_ns, loaded_ns;
	uint64_t used;
	struct map *maps;       /* executable mappings, by address */
	size_t n_maps;
};

struct usyms {
	struct proc *procs[PROCS_MAX];
	size_t n_procs;
	struct elf_file *elfs[ELFS_MAX];
	size_t n_elfs;
	uint64_t tick;
};

static void freep(void *p) {
	free(*(void **)p);
}

static void fclosep(FILE **f) {
	if (*f)
		fclose(*f);
}

static void closep(int *fd) {
	if (*fd >= 0)
		close(*fd);
}

static uint64_t now_ns(void) {
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem) {
	size_t n;
	void *q;

	if (need <= *cap)
		return 0;
	n = *cap ? *cap : 256;
	while (n < need)
		n *= 2;
	q = realloc(*p, n * elem);
	if (!q)
		return -ENOMEM;
	*p = q;
	*cap = n;
	return 0;
}

/* ---- ELF files ---- */

static void elf_file_free(struct elf_file *f) {
	if (!f)
		return;
	free(f->syms);
	free(f->pool);
	free(f->loads);
	free(f);
}

static int elf_file_add(struct elf_file *f, const GElf_Sym *sym, const char *name, bool hidden) {
	size_t len = strlen(name), underscores = strspn(name, "_");
	const char *at = strchr(name, '@');
	struct elf_sym *s;
	int r;

	/* .symtab spells versions out: "memcpy@@GLIBC_2.14" is the default memcpy. */
	if (at) {
		hidden = hidden || at[1] != '@';
		len = at - name;
	}

	r = grow((void **)&f->syms, &f->cap_syms, f->n_syms + 1, sizeof(*f->syms));
	if (r < 0)
		return r;
	r = grow((void **)&f->pool, &f->pool_cap, f->pool_len + len + 1, 1);
	if (r < 0)
		return r;

	s = &f->syms[f->n_syms++];
	s->addr = sym->st_value;
	s->size = sym->st_size > UINT32_MAX ? UINT32_MAX : sym->st_size;
	s->name = f->pool_len;
	/* getpid over __getpid, exported over local, current over compat versions. */
	s->rank = (hidden ? RANK_HIDDEN : 0) +
		  (GELF_ST_BIND(sym->st_info) == STB_LOCAL ? RANK_LOCAL : 0) +
		  (underscores > 3 ? 3 : underscores);
	memcpy(f->pool + f->pool_len, name, len);
	f->pool[f->pool_len + len] = 0;
	f->pool_len += len + 1;
	return 0;
}

/* .gnu.version: one entry per .dynsym symbol, telling compat versions apart. */
static Elf_Data *elf_versym(Elf *e) {
	Elf_Scn *scn = NULL;
	GElf_Shdr sh;

	while ((scn = elf_nextscn(e, scn)))
		if (gelf_getshdr(scn, &sh) && sh.sh_type == SHT_GNU_versym)
			return elf_getdata(scn, NULL);
	return NULL;
}

static int elf_file_read_syms(struct elf_file *f, Elf *e, bool *has_symtab) {
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
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) ||
			    sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
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

static int elf_file_read_loads(struct elf_file *f, Elf *e) {
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
static int elf_build_id_path(Elf *e, char *buf, size_t len) {
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
static void elf_file_read_debug(struct elf_file *f, Elf *e, const char *root) {
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

static int elf_sym_cmp(const void *a, const void *b, void *pool) {
	const struct elf_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->rank != y->rank)
		return x->rank - y->rank;
	return strcmp((const char *)pool + x->name, (const char *)pool + y->name);
}

/* Sorts and drops the copies .symtab, .dynsym and the debug file have in common. */
static void elf_file_sort(struct elf_file *f) {
	size_t o = 0;

	qsort_r(f->syms, f->n_syms, sizeof(*f->syms), elf_sym_cmp, f->pool);
	for (size_t i = 0; i < f->n_syms; i++)
		if (o == 0 || elf_sym_cmp(&f->syms[o - 1], &f->syms[i], f->pool) != 0)
			f->syms[o++] = f->syms[i];
	f->n_syms = o;
}

static int elf_file_parse(struct elf_file *f, int fd, const char *root) {
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

/* Always returns an entry; one that could not be read carries the error. */
static struct elf_file *elf_file_new(dev_t dev, ino_t ino, int fd, const char *root) {
	struct elf_file *f;
	int r;

	f = calloc(1, sizeof(*f));
	if (!f)
		return NULL;
	f->dev = dev;
	f->ino = ino;
	f->loaded_ns = now_ns();
	r = fd < 0 ? fd : elf_file_parse(f, fd, root);
	if (r < 0) {
		free(f->syms);
		free(f->pool);
		free(f->loads);
		*f = (struct elf_file) { .dev = dev, .ino = ino, .error = r, .loaded_ns = f->loaded_ns };
	}
	return f;
}

/* The virtual address that a file offset is loaded at, by the segment holding it. */
static int elf_file_vaddr(const struct elf_file *f, uint64_t offset, uint64_t *ret) {
	for (size_t i = 0; i < f->n_loads; i++) {
		const struct elf_load *l = &f->loads[i];

		if (offset >= l->offset && offset - l->offset < l->filesz) {
			*ret = offset - l->offset + l->vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

static int elf_file_offset(const struct elf_file *f, uint64_t vaddr, uint64_t *ret) {
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

static const struct elf_sym *elf_file_find(const struct elf_file *f, uint64_t vaddr) {
	size_t lo = 0, hi = f->n_syms, first;
	bool covered = false;

	if (hi == 0 || vaddr < f->syms[0].addr)
		return NULL;
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (f->syms[mid].addr <= vaddr)
			lo = mid;
		else
			hi = mid;
	}

	/*
	 * Stripped libraries list only exported functions: past the end of the
	 * nearest one lies some static function, not more of it.
	 */
	for (first = lo;; first--) {
		const struct elf_sym *s = &f->syms[first];

		if (s->size == 0 || vaddr - s->addr < s->size)
			covered = true;
		if (first == 0 || f->syms[first - 1].addr != s->addr)
			break;
	}
	return covered ? &f->syms[first] : NULL;
}

static struct elf_file *elfs_lookup(struct usyms *u, dev_t dev, ino_t ino) {
	for (size_t i = 0; i < u->n_elfs; i++) {
		struct elf_file *f = u->elfs[i];

		if (f->dev != dev || f->ino != ino)
			continue;
		if (f->error < 0 && now_ns() - f->loaded_ns > RETRY_NS) {
			elf_file_free(f);
			u->elfs[i] = u->elfs[--u->n_elfs];
			return NULL;
		}
		f->used = ++u->tick;
		return f;
	}
	return NULL;
}

static void elfs_insert(struct usyms *u, struct elf_file *f) {
	if (u->n_elfs == ELFS_MAX) {
		size_t lru = 0;

		for (size_t i = 1; i < u->n_elfs; i++)
			if (u->elfs[i]->used < u->elfs[lru]->used)
				lru = i;
		elf_file_free(u->elfs[lru]);
		u->elfs[lru] = u->elfs[--u->n_elfs];
	}
	f->used = ++u->tick;
	u->elfs[u->n_elfs++] = f;
}

/* ---- processes ---- */

static void proc_free_maps(struct map *maps, size_t n) {
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

static void proc_free(struct proc *p) {
	if (!p)
		return;
	proc_free_maps(p->maps, p->n_maps);
	free(p);
}

/* Field 22 of /proc/PID/stat, counted after the command name that may hold spaces. */
static int proc_start_time(uint32_t pid, uint64_t *ret) {
	char path[64], buf[2048], *s;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%u/stat", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT ? -ESRCH : -errno;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return n < 0 ? -errno : -ESRCH;
	buf[n] = 0;

	s = strrchr(buf, ')');
	if (!s)
		return -EBADMSG;
	for (int field = 2; field < 21; field++) {
		s = strchr(s + 1, ' ');
		if (!s)
			return -EBADMSG;
	}
	*ret = strtoull(s + 1, NULL, 10);
	return 0;
}

static int proc_identity(uint32_t pid, struct proc_id *ret) {
	char path[64];
	struct stat st;
	int r;

	*ret = (struct proc_id) {};
	r = proc_start_time(pid, &ret->start_time);
	if (r < 0)
		return r;
	/* Kernel threads have no exe; they have no user stack either. */
	snprintf(path, sizeof(path), "/proc/%u/exe", pid);
	if (stat(path, &st) == 0) {
		ret->exe_dev = st.st_dev;
		ret->exe_ino = st.st_ino;
	}
	return 0;
}

static bool proc_id_equal(const struct proc_id *a, const struct proc_id *b) {
	return a->start_time == b->start_time && a->exe_dev == b->exe_dev && a->exe_ino == b->exe_ino;
}

static int map_parse(const char *line, struct map *m) {
	unsigned long long start, end, pgoff, ino;
	unsigned int major, minor;
	char perms[5];
	size_t len;
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n",
		   &start, &end, perms, &pgoff, &major, &minor, &ino, &n) < 7 || n == 0)
		return -EBADMSG;
	if (!strchr(perms, 'x'))
		return -ENOENT;
	line += n;
	len = strcspn(line, "\n");
	if (len == 0)
		return -ENOENT;         /* anonymous, JIT code has nothing to read */

	*m = (struct map) {
		.start = start, .end = end, .pgoff = pgoff,
		.dev = makedev(major, minor), .ino = ino,
		.path = strndup(line, len),
	};
	return m->path ? 0 : -ENOMEM;
}

static int proc_read_maps(uint32_t pid, struct map **ret, size_t *ret_n) {
	__attribute__((cleanup(fclosep))) FILE *f = NULL;
	__attribute__((cleanup(freep))) char *line = NULL;
	struct map *maps = NULL;
	size_t n = 0, cap = 0, line_len = 0;
	char path[64];
	int r;

	snprintf(path, sizeof(path), "/proc/%u/maps", pid);
	f = fopen(path, "re");
	if (!f)
		return errno == ENOENT ? -ESRCH : -errno;

	while (getline(&line, &line_len, f) > 0) {
		struct map m;

		r = map_parse(line, &m);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			continue;
		r = grow((void **)&maps, &cap, n + 1, sizeof(*maps));
		if (r < 0) {
			free(m.path);
			goto fail;
		}
		maps[n++] = m;
	}
	if (ferror(f)) {
		r = -EIO;
		goto fail;
	}
	*ret = maps;
	*ret_n = n;
	return 0;
fail:
	proc_free_maps(maps, n);
	return r;
}

static int proc_load(struct proc *p) {
	struct map *maps = NULL;
	struct proc_id id;
	size_t n = 0;
	int r;

	r = proc_identity(p->pid, &id);
	if (r < 0)
		return r;
	r = proc_read_maps(p->pid, &maps, &n);
	if (r < 0)
		return r;
	proc_free_maps(p->maps, p->n_maps);
	p->maps = maps;
	p->n_maps = n;
	p->id = id;
	p->checked_ns = p->loaded_ns = now_ns();
	return 0;
}

static const struct map *proc_find_map(const struct proc *p, uint64_t addr) {
	size_t lo = 0, hi = p->n_maps;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		const struct map *m = &p->maps[mid];

		if (addr < m->start)
			hi = mid;
		else if (addr >= m->end)
			lo = mid + 1;
		else
			return m;
	}
	return NULL;
}

static struct proc *procs_lookup(struct usyms *u, uint32_t pid, size_t *index) {
	for (size_t i = 0; i < u->n_procs; i++)
		if (u->procs[i]->pid == pid) {
			if (index)
				*index = i;
			return u->procs[i];
		}
	return NULL;
}

static void procs_drop(struct usyms *u, size_t i) {
	proc_free(u->procs[i]);
	u->procs[i] = u->procs[--u->n_procs];
}

static int procs_insert(struct usyms *u, uint32_t pid, struct proc **ret) {
	struct proc *p;
	int r;

	p = calloc(1, sizeof(*p));
	if (!p)
		return -ENOMEM;
	p->pid = pid;
	r = proc_load(p);
	if (r < 0) {
		proc_free(p);
		return r;
	}
	if (u->n_procs == PROCS_MAX) {
		size_t lru = 0;

		for (size_t i = 1; i < u->n_procs; i++)
			if (u->procs[i]->used < u->procs[lru]->used)
				lru = i;
		procs_drop(u, lru);
	}
	u->procs[u->n_procs++] = p;
	*ret = p;
	return 0;
}

/* The cached process, re-read when the pid now names another process or program. */
static int procs_get(struct usyms *u, uint32_t pid, struct proc **ret) {
	struct proc *p;
	uint64_t now = now_ns();
	struct proc_id id;
	int r;

	p = procs_lookup(u, pid, NULL);
	if (!p) {
		r = procs_insert(u, pid, &p);
		if (r < 0)
			return r;
	} else if (now - p->checked_ns > RECHECK_NS) {
		/* A process that has exited keeps its maps: its last events still need them. */
		if (proc_identity(pid, &id) >= 0 && !proc_id_equal(&id, &p->id) &&
		    proc_load(p) < 0) {
			proc_free_maps(p->maps, p->n_maps);
			p->maps = NULL;
			p->n_maps = 0;
			p->id = id;
		}
		p->checked_ns = now;
	}
	p->used = ++u->tick;
	*ret = p;
	return 0;
}

/*
 * The mapped file, opened from the process's own root. A file replaced on
 * disk (package upgrade) or deleted is no longer at its path: map_files
 * still reaches the mapped inode.
 */
static int proc_open_map(const struct proc *p, const struct map *m) {
	size_t len = strlen(m->path), sl = strlen(DELETED_SUFFIX);
	bool deleted = len > sl && strcmp(m->path + len - sl, DELETED_SUFFIX) == 0;
	char path[PATH_MAX + 64];
	struct stat st;
	int fd = -ENOENT, alt;

	if (!deleted) {
		snprintf(path, sizeof(path), "/proc/%u/root%s", p->pid, m->path);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			fd = -errno;
		else if (fstat(fd, &st) == 0 && st.st_ino == m->ino)
			return fd;
	}

	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", p->pid,
		 (unsigned long long)m->start, (unsigned long long)m->end);
	alt = open(path, O_RDONLY | O_CLOEXEC);
	if (alt >= 0) {
		if (fd >= 0)
			close(fd);
		return alt;
	}
	if (fd >= 0 || deleted)
		return fd;

	/* The process is gone with its root; the host path will do if it is the same inode. */
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_ino != m->ino) {
		close(fd);
		return -ESRCH;
	}
	return fd;
}

static struct elf_file *proc_elf(struct usyms *u, const struct proc *p, const struct map *m) {
	struct elf_file *f;
	char root[64];
	int fd;

	f = elfs_lookup(u, m->dev, m->ino);
	if (f)
		return f;

	fd = proc_open_map(p, m);
	snprintf(root, sizeof(root), "/proc/%u/root", p->pid);
	f = elf_file_new(m->dev, m->ino, fd, root);
	if (fd >= 0)
		close(fd);
	if (!f)
		return NULL;
	elfs_insert(u, f);
	return f;
}

/* ---- public ---- */

int usyms_new(struct usyms **ret) {
	struct usyms *u;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	*ret = u;
	return 0;
}

void usyms_free(struct usyms *u) {
	if (!u)
		return;
	for (size_t i = 0; i < u->n_procs; i++)
		proc_free(u->procs[i]);
	for (size_t i = 0; i < u->n_elfs; i++)
		elf_file_free(u->elfs[i]);
	free(u);
}

void usyms_forget(struct usyms *u, uint32_t pid) {
	size_t i;

	if (procs_lookup(u, pid, &i))
		procs_drop(u, i);
}

int usyms_find(struct usyms *u, uint32_t pid, uint64_t addr, struct usym *ret) {
	const struct elf_sym *s;
	const struct map *m;
	struct elf_file *f;
	struct proc *p;
	uint64_t vaddr;
	int r;

	*ret = (struct usym) {};
	r = procs_get(u, pid, &p);
	if (r < 0)
		return r;

	m = proc_find_map(p, addr);
	if (!m && now_ns() - p->loaded_ns > RELOAD_NS) {
		/* Perhaps dlopen()ed since; a process that exited keeps what we had. */
		if (proc_load(p) < 0)
			p->loaded_ns = now_ns();
		m = proc_find_map(p, addr);
	}
	if (!m)
		return -ENOENT;
	ret->path = m->path;
	if (m->path[0] != '/')
		return -ENOENT;         /* [vdso] and friends */

	f = proc_elf(u, p, m);
	if (!f || f->error < 0)
		return -ENOENT;
	if (elf_file_vaddr(f, addr - m->start + m->pgoff, &vaddr) < 0)
		return -ENOENT;
	s = elf_file_find(f, vaddr);
	if (!s)
		return -ENOENT;
	ret->name = f->pool + s->name;
	ret->offset = vaddr - s->addr;
	return 0;
}

int usyms_format(struct usyms *u, uint32_t pid, uint64_t addr, char *buf, size_t len) {
	struct usym s;
	int r;

	if (len == 0)
		return -EINVAL;
	r = usyms_find(u, pid, addr, &s);
	if (s.name)
		snprintf(buf, len, "%s+0x%llx (%s)", s.name, (unsigned long long)s.offset, s.path);
	else if (s.path)
		snprintf(buf, len, "0x%llx (%s)", (unsigned long long)addr, s.path);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return r;
}

static int elf_file_resolve(const struct elf_file *f, const char *symbol, uint64_t *offset) {
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
	return elf_file_offset(f, s->addr, offset);
}

int usyms_resolve(struct usyms *u, const char *binary, const char *symbol, uint64_t *offset) {
	__attribute__((cleanup(closep))) int fd = -1;
	struct elf_file *f;
	struct stat st;

	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;

	f = elfs_lookup(u, st.st_dev, st.st_ino);
	if (!f) {
		f = elf_file_new(st.st_dev, st.st_ino, fd, "");
		if (!f)
			return -ENOMEM;
		elfs_insert(u, f);
	}
	if (f->error < 0)
		return f->error;
	return elf_file_resolve(f, symbol, offset);
}
