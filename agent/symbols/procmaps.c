// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * What /proc says of a process: its executable mappings and what tells
 * it from a reused pid or an exec() of another program.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "base/array.h"
#include "base/macro.h"
#include "symbols/procmaps.h"

#define GROW_MIN 256

void procmaps_free(struct map *maps, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(maps[i].path);
	free(maps);
}

/* Field 22 of /proc/PID/stat, counted after the command name that may hold spaces. */
static int procmaps_start_time(uint32_t pid, uint64_t *ret)
{
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

int procmaps_identity(uint32_t pid, struct proc_id *ret)
{
	char path[64];
	struct stat st;
	int r;

	*ret = (struct proc_id) {};
	r = procmaps_start_time(pid, &ret->start_time);
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

bool procmaps_id_equal(const struct proc_id *a, const struct proc_id *b)
{
	return a->start_time == b->start_time && a->exe_dev == b->exe_dev && a->exe_ino == b->exe_ino;
}

static int procmaps_parse_line(const char *line, struct map *m)
{
	unsigned long long start, end, pgoff, ino;
	unsigned int major, minor;
	char perms[5];
	size_t len;
	int n = 0;

	if (sscanf(line, "%llx-%llx %4s %llx %x:%x %llu %n", &start, &end, perms, &pgoff, &major, &minor,
		   &ino, &n) < 7 ||
	    n == 0)
		return -EBADMSG;
	if (!strchr(perms, 'x'))
		return -ENOENT;
	line += n;
	len = strcspn(line, "\n");
	if (len == 0)
		return -ENOENT; /* anonymous, JIT code has nothing to read */

	*m = (struct map) {
		.start = start,
		.end = end,
		.pgoff = pgoff,
		.dev = makedev(major, minor),
		.ino = ino,
		.path = strndup(line, len),
	};
	return m->path ? 0 : -ENOMEM;
}

int procmaps_read(uint32_t pid, struct map **ret, size_t *ret_n)
{
	_cleanup_fclose_ FILE *f = NULL;
	_cleanup_free_ char *line = NULL;
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

		r = procmaps_parse_line(line, &m);
		if (r == -ENOMEM)
			goto fail;
		if (r < 0)
			continue;
		r = array_grow((void **)&maps, &cap, n + 1, sizeof(*maps), GROW_MIN);
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
	procmaps_free(maps, n);
	return r;
}
