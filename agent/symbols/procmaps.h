/* SPDX-License-Identifier: LGPL-2.1-or-later */
#ifndef SMBLAT_SYMBOLS_PROCMAPS_H
#define SMBLAT_SYMBOLS_PROCMAPS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct map {
	uint64_t start, end, pgoff;
	dev_t dev;
	ino_t ino;
	char *path; /* as /proc/PID/maps shows it */
};

/* What tells a reused pid apart, and an exec() of another program. */
struct proc_id {
	uint64_t start_time;
	dev_t exe_dev;
	ino_t exe_ino;
};

/* The executable mappings of pid, by address (free with procmaps_free()); negative errno. */
int procmaps_read(uint32_t pid, struct map **ret, size_t *ret_n);
void procmaps_free(struct map *maps, size_t n);
/* The identity of pid now; negative errno when it is gone. */
int procmaps_identity(uint32_t pid, struct proc_id *ret);
bool procmaps_id_equal(const struct proc_id *a, const struct proc_id *b);

#endif
