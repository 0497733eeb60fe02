/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <libelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <linux/openat2.h>
#include <time.h>
#include <unistd.h>

#include "base/array.h"
#include "bpf/smblat.h"
#include "symbols/elffile.h"
#include "symbols/objfile.h"
#include "symbols/procmaps.h"
#include "symbols/usyms.h"
#include "base/macro.h"
#include "base/clock.h"

#define PROCS_MAX 256
#define ELFS_MAX 128
#define RECHECK_NS (1000 * NSEC_PER_MSEC) /* how stale a pid may get before checking reuse */
#define RELOAD_NS (250 * NSEC_PER_MSEC)   /* stacks carry junk: bound maps re-reads on misses */
#define RETRY_NS (10000 * NSEC_PER_MSEC)  /* an unreadable file may become readable */
#define DELETED_SUFFIX " (deleted)"

/*
 * The ELF file at a device and inode, shared by every process mapping it:
 * its symbols by name (uprobes: file, opened by path) or by address
 * (stacks: obj, opened from a process's mapping).
 */
struct elf_entry {
	dev_t dev;
	ino_t ino;
	int error; /* negative errno when unreadable, retried after RETRY_NS */
	uint64_t loaded_ns;
	uint64_t used;
	bool by_addr;          /* which of the two below it reads */
	struct elf_file *file; /* NULL with error */
	struct objfile *obj;   /* NULL with error */
};

/*
 * A file user frames are told in (bpf/ustack.h), by the index the probes
 * gave it: named by the note the probes sent, or by the agent that opened
 * it itself; read when a frame first needs it.
 */
struct ufile {
	uint32_t kdev; /* the kernel's dev_t */
	uint64_t ino;
	char *path;
	int fd; /* opened by the agent while it could (before the drop), until obj is read */
	int error;
	uint64_t tried_ns;
	struct objfile *obj;
};

struct proc {
	uint32_t pid;
	struct proc_id id;
	uint64_t checked_ns, loaded_ns;
	uint64_t used;
	struct map *maps; /* executable mappings, by address */
	size_t n_maps;
};

struct usyms {
	struct proc *procs[PROCS_MAX];
	size_t n_procs;
	struct elf_entry *elfs[ELFS_MAX];
	size_t n_elfs;
	uint64_t tick;
	struct ufile *files[SMBLAT_UFILES];
	char name[NAME_MAX + 8]; /* "[libc.so.6]", for usyms_find() */
};

/* ---- ELF files ---- */

static void elf_entry_free(struct elf_entry *e)
{
	if (!e)
		return;
	elf_file_free(e->file);
	objfile_free(e->obj);
	free(e);
}

/*
 * Always returns an entry; one that could not be read carries the error.
 * path: where its symbols by address are read from fd, NULL for those by name.
 */
static struct elf_entry *elf_entry_new(dev_t dev, ino_t ino, int fd, const char *root, const char *path)
{
	struct elf_entry *e;

	e = calloc(1, sizeof(*e));
	if (!e)
		return NULL;
	e->dev = dev;
	e->ino = ino;
	e->loaded_ns = now_ns();
	e->by_addr = path != NULL;
	if (fd < 0)
		e->error = fd;
	else if (path)
		e->error = objfile_open(fd, path, root, &e->obj);
	else
		e->error = elf_file_new(fd, root, &e->file);
	return e;
}

/* by_addr: the entry that reads symbols by address (obj), else by name (file). */
static struct elf_entry *elfs_lookup(struct usyms *u, dev_t dev, ino_t ino, bool by_addr)
{
	for (size_t i = 0; i < u->n_elfs; i++) {
		struct elf_entry *e = u->elfs[i];

		if (e->dev != dev || e->ino != ino || e->by_addr != by_addr)
			continue;
		if (e->error < 0 && now_ns() - e->loaded_ns > RETRY_NS) {
			elf_entry_free(e);
			u->elfs[i] = u->elfs[--u->n_elfs];
			return NULL;
		}
		e->used = ++u->tick;
		return e;
	}
	return NULL;
}

static void elfs_insert(struct usyms *u, struct elf_entry *e)
{
	if (u->n_elfs == ELFS_MAX) {
		size_t lru = 0;

		for (size_t i = 1; i < u->n_elfs; i++)
			if (u->elfs[i]->used < u->elfs[lru]->used)
				lru = i;
		elf_entry_free(u->elfs[lru]);
		u->elfs[lru] = u->elfs[--u->n_elfs];
	}
	e->used = ++u->tick;
	u->elfs[u->n_elfs++] = e;
}

/* ---- processes ---- */

static void proc_free(struct proc *p)
{
	if (!p)
		return;
	procmaps_free(p->maps, p->n_maps);
	free(p);
}

static int proc_load(struct proc *p)
{
	struct map *maps = NULL;
	struct proc_id id;
	size_t n = 0;
	int r;

	r = procmaps_identity(p->pid, &id);
	if (r < 0)
		return r;
	r = procmaps_read(p->pid, &maps, &n);
	if (r < 0)
		return r;
	procmaps_free(p->maps, p->n_maps);
	p->maps = maps;
	p->n_maps = n;
	p->id = id;
	p->checked_ns = p->loaded_ns = now_ns();
	return 0;
}

static const struct map *proc_find_map(const struct proc *p, uint64_t addr)
{
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

static struct proc *procs_lookup(struct usyms *u, uint32_t pid, size_t *index)
{
	for (size_t i = 0; i < u->n_procs; i++)
		if (u->procs[i]->pid == pid) {
			if (index)
				*index = i;
			return u->procs[i];
		}
	return NULL;
}

static void procs_drop(struct usyms *u, size_t i)
{
	proc_free(u->procs[i]);
	u->procs[i] = u->procs[--u->n_procs];
}

static int procs_insert(struct usyms *u, uint32_t pid, struct proc **ret)
{
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
static int procs_get(struct usyms *u, uint32_t pid, struct proc **ret)
{
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
		if (procmaps_identity(pid, &id) >= 0 && !procmaps_id_equal(&id, &p->id) && proc_load(p) < 0) {
			procmaps_free(p->maps, p->n_maps);
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
static int proc_open_map(const struct proc *p, const struct map *m)
{
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

	snprintf(path, sizeof(path), "/proc/%u/map_files/%llx-%llx", p->pid, (unsigned long long)m->start,
		 (unsigned long long)m->end);
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

/* The file mapped at m, read; NULL when it could not be. */
static struct objfile *proc_obj(struct usyms *u, const struct proc *p, const struct map *m)
{
	struct elf_entry *e;
	char root[64];
	int fd;

	e = elfs_lookup(u, m->dev, m->ino, true);
	if (e)
		return e->obj;

	fd = proc_open_map(p, m);
	snprintf(root, sizeof(root), "/proc/%u/root", p->pid);
	e = elf_entry_new(m->dev, m->ino, fd, root, m->path);
	if (fd >= 0)
		close(fd);
	if (!e)
		return NULL;
	elfs_insert(u, e);
	return e->obj;
}

/* ---- public ---- */

int usyms_new(struct usyms **ret)
{
	struct usyms *u;

	if (elf_version(EV_CURRENT) == EV_NONE)
		return -ELIBBAD;
	u = calloc(1, sizeof(*u));
	if (!u)
		return -ENOMEM;
	*ret = u;
	return 0;
}

static void ufile_free(struct ufile *f)
{
	if (!f)
		return;
	if (f->fd >= 0)
		close(f->fd);
	objfile_free(f->obj);
	free(f->path);
	free(f);
}

void usyms_free(struct usyms *u)
{
	if (!u)
		return;
	for (size_t i = 0; i < u->n_procs; i++)
		proc_free(u->procs[i]);
	for (size_t i = 0; i < u->n_elfs; i++)
		elf_entry_free(u->elfs[i]);
	for (size_t i = 0; i < SMBLAT_UFILES; i++)
		ufile_free(u->files[i]);
	free(u);
}

void usyms_forget(struct usyms *u, uint32_t pid)
{
	size_t i;

	if (procs_lookup(u, pid, &i))
		procs_drop(u, i);
}

/* ---- files by index ---- */

static int ufile_put(struct usyms *u, uint32_t index, uint32_t kdev, uint64_t ino, const char *path, int fd)
{
	struct ufile *f;

	if (index == 0 || index >= SMBLAT_UFILES)
		return -EINVAL;
	f = calloc(1, sizeof(*f));
	if (!f || !(f->path = strdup(path))) {
		free(f);
		return -ENOMEM;
	}
	f->kdev = kdev;
	f->ino = ino;
	f->fd = fd;
	ufile_free(u->files[index]);
	u->files[index] = f;
	return 0;
}

int usyms_file_note(struct usyms *u, uint32_t index, uint32_t kdev, uint64_t ino, const char *path)
{
	return ufile_put(u, index, kdev, ino, path, -1);
}

int usyms_file_set(struct usyms *u, uint32_t index, int fd, const char *path)
{
	struct stat st;
	int copy, r;

	if (fstat(fd, &st) < 0)
		return -errno;
	copy = fcntl(fd, F_DUPFD_CLOEXEC, 3);
	if (copy < 0)
		return -errno;
	r = ufile_put(u, index, smblat_kdev(major(st.st_dev), minor(st.st_dev)), st.st_ino, path, copy);
	if (r < 0)
		close(copy);
	return r;
}

bool usyms_file_known(const struct usyms *u, uint32_t index)
{
	return index < SMBLAT_UFILES && u->files[index];
}

/* The file at path if it is the one the kernel named (by its dev_t and inode). */
static int ufile_open_path(const struct ufile *f)
{
	struct stat st;
	int fd = open(f->path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0 || st.st_ino != f->ino ||
	    smblat_kdev(major(st.st_dev), minor(st.st_dev)) != f->kdev) {
		close(fd);
		return -ESTALE;
	}
	return fd;
}

/* Where the file's / is: the part of its path before /usr/ (a chroot), else the host's. */
static void ufile_root(const char *path, char *buf, size_t len)
{
	const char *usr = strstr(path, "/usr/");

	snprintf(buf, len, "%.*s", usr ? (int)(usr - path) : 0, path);
}

struct objfile *usyms_file_obj(struct usyms *u, uint32_t index)
{
	struct ufile *f = index < SMBLAT_UFILES ? u->files[index] : NULL;
	char root[PATH_MAX];
	int fd;

	if (!f || f->obj)
		return f ? f->obj : NULL;
	if (f->error < 0 && now_ns() - f->tried_ns < RETRY_NS)
		return NULL;
	fd = f->fd >= 0 ? f->fd : ufile_open_path(f);
	f->tried_ns = now_ns();
	if (fd < 0) {
		f->error = fd;
		return NULL;
	}
	ufile_root(f->path, root, sizeof(root));
	f->error = objfile_open(fd, f->path, root, &f->obj);
	close(fd);
	f->fd = -1;
	return f->obj;
}

/* A frame told by its file: that file's function, or its name and the offset. */
static int ufile_find(struct usyms *u, uint64_t frame, struct usym *ret)
{
	uint32_t index = uframe_index(frame);
	uint64_t off = uframe_offset(frame);
	struct ufile *f = index < SMBLAT_UFILES ? u->files[index] : NULL;
	struct objfile *o = usyms_file_obj(u, index);
	const char *slash;

	ret->offset = off;
	if (!f) {
		snprintf(u->name, sizeof(u->name), "[file %u]", index);
		ret->file_name = u->name;
		return -ENOENT;
	}
	ret->path = f->path;
	if (o && objfile_symbol(o, off, &ret->name, &ret->offset) == 0)
		return 0;
	slash = strrchr(f->path, '/');
	snprintf(u->name, sizeof(u->name), "[%s]", slash ? slash + 1 : f->path);
	ret->file_name = u->name;
	return -ENOENT;
}

int usyms_find(struct usyms *u, uint32_t pid, uint64_t addr, struct usym *ret)
{
	struct objfile *f;
	const struct map *m;
	struct proc *p;
	int r;

	*ret = (struct usym) {};
	if (addr & UFRAME_IN_FILE)
		return ufile_find(u, addr, ret);
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
		return -ENOENT; /* [vdso] and friends */

	f = proc_obj(u, p, m);
	if (!f)
		return -ENOENT;
	return objfile_symbol(f, addr - m->start + m->pgoff, &ret->name, &ret->offset);
}

int usyms_format(struct usyms *u, uint32_t pid, uint64_t addr, char *buf, size_t len)
{
	struct usym s;
	int r;

	if (len == 0)
		return -EINVAL;
	r = usyms_find(u, pid, addr, &s);
	if (s.name)
		snprintf(buf, len, "%s+0x%llx (%s)", s.name, (unsigned long long)s.offset, s.path);
	else if (s.file_name && s.path)
		snprintf(buf, len, "%s+0x%llx (%s)", s.file_name, (unsigned long long)s.offset, s.path);
	else if (s.file_name)
		snprintf(buf, len, "%s+0x%llx", s.file_name, (unsigned long long)s.offset);
	else if (s.path)
		snprintf(buf, len, "0x%llx (%s)", (unsigned long long)addr, s.path);
	else
		snprintf(buf, len, "0x%llx", (unsigned long long)addr);
	return r;
}

static int usyms_file(struct usyms *u, const char *binary, const struct elf_file **ret)
{
	_cleanup_close_ int fd = -1;
	struct elf_entry *e;
	struct stat st;

	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	if (fstat(fd, &st) < 0)
		return -errno;
	/* opens, and libelf would call it no ELF file */
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	e = elfs_lookup(u, st.st_dev, st.st_ino, false);
	if (!e) {
		e = elf_entry_new(st.st_dev, st.st_ino, fd, "", NULL);
		if (!e)
			return -ENOMEM;
		elfs_insert(u, e);
	}
	if (e->error < 0)
		return e->error;
	*ret = e->file;
	return 0;
}

int usyms_functions(struct usyms *u, const char *binary, const char *prefix,
		    int (*cb)(const char *name, uint64_t offset, void *userdata), void *userdata)
{
	const struct elf_file *f = NULL;
	int r = usyms_file(u, binary, &f);

	return r < 0 ? r : elf_file_functions(f, prefix, cb, userdata);
}

int usyms_resolve(struct usyms *u, const char *binary, const char *symbol, uint64_t *offset)
{
	const struct elf_file *f = NULL;
	int r = usyms_file(u, binary, &f);

	return r < 0 ? r : elf_file_resolve(f, symbol, offset);
}
