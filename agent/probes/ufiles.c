// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The files user frames are told in (bpf/ustack.h), between the programs
 * and the symbols: the programs give a file an index the first time a
 * stack meets it and send a note with its path; the agent registers what
 * the notes say with usyms, and gives an index itself to each file it
 * attaches uprobes to, opened while it still may (a root-only binary
 * stays readable after the drop). Each file's unwind table is compiled
 * (symbols/cfi.c) and loaded at once; until then the programs follow the
 * file's frame pointers, and where there are none end stacks there
 * ([unwind: table pending]). The files every process runs through,
 * the C library and the dynamic linker, are loaded with the first target,
 * so that a target's first stacks are whole.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <syslog.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "base/log.h"
#include "probes/probes-int.h"
#include "symbols/cfi.h"
#include "symbols/objfile.h"
#include "symbols/usyms.h"

bool probes_walks_ustacks(const struct probes *p)
{
	return p->walks_ustacks;
}

int probes_ufile_notes_fd(const struct probes *p)
{
	return p->walks_ustacks ? bpf_map__fd(p->skel->maps.ufile_notes) : -1;
}

/* What the programs do in the file of index from now on (enum ufile_state). */
static void ufile_state_set(struct probes *p, uint32_t index, uint32_t state)
{
	int files = bpf_map__fd(p->skel->maps.ufiles), slots = bpf_map__fd(p->skel->maps.ufile_slots);
	struct ufile_key k;
	struct ufile_val v;

	if (bpf_map_lookup_elem(slots, &index, &k) < 0 || bpf_map_lookup_elem(files, &k, &v) < 0)
		return;
	v.state = state;
	(void)bpf_map_update_elem(files, &k, &v, BPF_EXIST);
}

static int rows_write(int fd, uint32_t first, const struct urow *rows, uint32_t n)
{
	uint32_t *keys = malloc(n * sizeof(*keys)), count = n;
	int r = 0;

	for (uint32_t i = 0; keys && i < n; i++)
		keys[i] = first + i;
	if (!keys || bpf_map_update_batch(fd, keys, rows, &count, NULL) < 0) {
		/* no batches (before 5.6): one by one */
		for (uint32_t i = 0; i < n && r == 0; i++) {
			uint32_t k = first + i;

			if (bpf_map_update_elem(fd, &k, &rows[i], BPF_ANY) < 0)
				r = -errno;
		}
	}
	free(keys);
	return r;
}

/* Each 64 KiB page of the file's code to its rows: the one in force at its start, and those in it. */
static int pages_write(struct probes *p, uint32_t index, uint32_t first, const struct urow *rows, uint32_t n)
{
	int fd = bpf_map__fd(p->skel->maps.unwind_pages);
	uint32_t i = 0;

	if (!n)
		return 0;
	for (uint32_t page = rows[0].pc >> SMBLAT_UNWIND_PAGE_SHIFT;
	     page <= rows[n - 1].pc >> SMBLAT_UNWIND_PAGE_SHIFT; page++) {
		uint64_t start = (uint64_t)page << SMBLAT_UNWIND_PAGE_SHIFT,
			 end = start + (1u << SMBLAT_UNWIND_PAGE_SHIFT);
		struct upage_key k = { .index = index, .page = page };
		struct upage_val v;
		uint32_t j;

		while (i + 1 < n && rows[i + 1].pc <= start)
			i++;
		for (j = i; j < n && rows[j].pc < end; j++)
			;
		v.first = first + i;
		v.n = j - i;
		if (bpf_map_update_elem(fd, &k, &v, BPF_ANY) < 0)
			return -errno;
		p->pages_used++;
	}
	return 0;
}

/* Says once that the tables are full: from then on, frame pointers in new files. */
static void tables_full(struct probes *p, const char *path, size_t rows, size_t pages)
{
	if (p->tables_full_said)
		return;
	p->tables_full_said = true;
	log_status(STATUS_AGENT_DEGRADED, REASON_NONE, LOG_WARNING,
		   "unwind tables full (%u of %u rows, %u of %u pages) at %s (%zu rows, %zu pages): "
		   "user stacks in files met from now on are walked by frame pointers",
		   p->rows_used, bpf_map__max_entries(p->skel->maps.unwind_rows), p->pages_used,
		   bpf_map__max_entries(p->skel->maps.unwind_pages), path, rows, pages);
}

/* The unwind table of the file of index compiled and loaded: UFILE_TABLE, else UFILE_FP. */
static void ufile_table(struct probes *p, uint32_t index)
{
	struct objfile *o = usyms_file_obj(p->opts.us, index);
	uint32_t cap = bpf_map__max_entries(p->skel->maps.unwind_rows);
	uint32_t pcap = bpf_map__max_entries(p->skel->maps.unwind_pages);
	struct urow *rows = NULL;
	size_t n = 0, pages;
	uint32_t state = UFILE_FP;

	if (!o || cfi_compile(o, &rows, &n) < 0 || !n)
		goto out;
	pages = (rows[n - 1].pc >> SMBLAT_UNWIND_PAGE_SHIFT) - (rows[0].pc >> SMBLAT_UNWIND_PAGE_SHIFT) + 1;
	if (n > cap - p->rows_used || pages > pcap - p->pages_used) {
		tables_full(p, objfile_path(o), n, pages);
		goto out;
	}
	if (rows_write(bpf_map__fd(p->skel->maps.unwind_rows), p->rows_used, rows, n) == 0 &&
	    pages_write(p, index, p->rows_used, rows, n) == 0)
		state = UFILE_TABLE;
	p->rows_used += n;
out:
	free(rows);
	ufile_state_set(p, index, state);
}

static void ufiles_base(struct probes *p);

int probes_ufile_note(struct probes *p, const void *data, size_t size)
{
	const struct ufile_note *n = data;
	char path[SMBLAT_UFILE_PATH];

	if (size < sizeof(*n) || !p->opts.us)
		return 0;
	ufiles_base(p);
	/* a path too long for the note stays unknown: the frames name the file by its index */
	snprintf(path, sizeof(path), "%s", n->path_off < SMBLAT_UFILE_PATH ? n->path + n->path_off : "");
	if (usyms_file_note(p->opts.us, n->index, n->dev, n->ino, path) == 0)
		ufile_table(p, n->index);
	else
		ufile_state_set(p, n->index, UFILE_FP);
	return 0;
}

/*
 * The index of file k, claimed the way the programs claim one when it has
 * none: 0, or 1 when it had one already (its table is there or coming).
 */
static int ufile_claim(struct probes *p, const struct ufile_key *k, uint32_t *index)
{
	int files = bpf_map__fd(p->skel->maps.ufiles), slots = bpf_map__fd(p->skel->maps.ufile_slots);
	struct ufile_val v = { .state = UFILE_NEW };
	uint32_t *hint = &p->skel->data->ufile_hint;

	for (int tries = 0; tries < 2; tries++) {
		if (bpf_map_lookup_elem(files, k, &v) == 0) {
			*index = v.index;
			return 1;
		}
		for (uint32_t i = 0; i < SMBLAT_UFILES; i++) {
			uint32_t idx = (*hint + i) % SMBLAT_UFILES;

			if (idx == 0 || bpf_map_update_elem(slots, &idx, k, BPF_NOEXIST) < 0)
				continue;
			*hint = idx + 1;
			v.index = idx;
			if (bpf_map_update_elem(files, k, &v, BPF_NOEXIST) == 0) {
				*index = idx;
				return 0;
			}
			/* the programs gave it one meanwhile: that one */
			(void)bpf_map_delete_elem(slots, &idx);
			break;
		}
	}
	return -ENOSPC;
}

/* A file the agent opens itself: its index, and its table unless it had one. */
static void ufile_open(struct probes *p, const char *path)
{
	struct ufile_key k = {};
	uint32_t index;
	struct stat st;
	int fd, r;

	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0) {
		k.ino = st.st_ino;
		k.dev = smblat_kdev(major(st.st_dev), minor(st.st_dev));
		r = ufile_claim(p, &k, &index);
		/* a descriptor beats a note's path: it stays readable after the drop */
		if (r >= 0 && !usyms_file_known(p->opts.us, index) &&
		    usyms_file_set(p->opts.us, index, fd, path) < 0)
			r = -1;
		/* claimed by the programs before: its note builds the table */
		if (r == 0)
			ufile_table(p, index);
	}
	close(fd);
}

static int base_dependency(const char *name, void *userdata)
{
	char *path = NULL;

	if (usyms_library(name, &path) == 0)
		ufile_open(userdata, path);
	free(path);
	return 0;
}

/* The C library and what it needs (the dynamic linker): in every process's outermost frames. */
static void ufiles_base(struct probes *p)
{
	char *libc = NULL;

	if (p->ufiles_base_done)
		return;
	p->ufiles_base_done = true;
	if (usyms_library("libc.so.6", &libc) < 0)
		return;
	ufile_open(p, libc);
	(void)usyms_needed(libc, base_dependency, p);
	free(libc);
}

void ufiles_target(struct probes *p, const char *binary)
{
	if (!p->walks_ustacks || !p->opts.us)
		return;
	ufiles_base(p);
	ufile_open(p, binary);
}

int probes_ufiles_process(struct probes *p, pid_t pid)
{
	char path[64], line[PATH_MAX + 128], *file;
	int n = 0;
	FILE *f;

	if (!p->walks_ustacks || !p->opts.us)
		return 0;
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -errno;
	ufiles_base(p);
	while (fgets(line, sizeof(line), f)) {
		char perms[8];

		line[strcspn(line, "\n")] = '\0';
		file = strchr(line, '/');
		/* code mapped from a file: "start-end r-xp offset dev inode /path" */
		if (!file || sscanf(line, "%*x-%*x %7s", perms) != 1 || perms[2] != 'x')
			continue;
		ufile_open(p, file);
		n++;
	}
	fclose(f);
	return n;
}
