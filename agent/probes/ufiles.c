// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The files user frames are told in (bpf/ustack.h), between the programs
 * and the symbols: the programs give a file an index the first time a
 * stack meets it and send a note with its path; the agent registers what
 * the notes say with usyms, and gives an index itself to each file it
 * attaches uprobes to, opened while it still may (a root-only binary
 * stays readable after the drop).
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"
#include "symbols/usyms.h"

bool probes_walks_ustacks(const struct probes *p)
{
	return p->walks_ustacks;
}

int probes_ufile_notes_fd(const struct probes *p)
{
	return p->walks_ustacks ? bpf_map__fd(p->skel->maps.ufile_notes) : -1;
}

int probes_ufile_note(struct probes *p, const void *data, size_t size)
{
	const struct ufile_note *n = data;
	char path[SMBLAT_UFILE_PATH];

	if (size < sizeof(*n) || !p->opts.us)
		return 0;
	/* a path too long for the note stays unknown: the frames name the file by its index */
	snprintf(path, sizeof(path), "%s", n->path_off < SMBLAT_UFILE_PATH ? n->path + n->path_off : "");
	(void)usyms_file_note(p->opts.us, n->index, n->dev, n->ino, path);
	return 0;
}

/* The index of file k, claimed the way the programs claim one when it has none. */
static int ufile_claim(struct probes *p, const struct ufile_key *k, uint32_t *index)
{
	int files = bpf_map__fd(p->skel->maps.ufiles), slots = bpf_map__fd(p->skel->maps.ufile_slots);
	struct ufile_val v = { .state = UFILE_FP };
	uint32_t *hint = &p->skel->data->ufile_hint;

	for (int tries = 0; tries < 2; tries++) {
		if (bpf_map_lookup_elem(files, k, &v) == 0) {
			*index = v.index;
			return 0;
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

void ufiles_target(struct probes *p, const char *binary)
{
	struct ufile_key k = {};
	uint32_t index;
	struct stat st;
	int fd;

	if (!p->walks_ustacks || !p->opts.us)
		return;
	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	if (fstat(fd, &st) == 0) {
		k.ino = st.st_ino;
		k.dev = smblat_kdev(major(st.st_dev), minor(st.st_dev));
		if (ufile_claim(p, &k, &index) == 0)
			(void)usyms_file_set(p->opts.us, index, fd, binary);
	}
	close(fd);
}
