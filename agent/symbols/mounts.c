// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "bpf/smblat.h"
#include "symbols/mounts.h"

struct share {
	uint32_t kdev;
	char *name;
};

struct mounts {
	char *path;
	struct share *v;
	size_t n;
	time_t loaded;
};

static void shares_clear(struct mounts *m)
{
	for (size_t i = 0; i < m->n; i++)
		free(m->v[i].name);
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

static bool is_octal(char c)
{
	return c >= '0' && c <= '7';
}

/*
 * //server/share/sub -> \\server\share: the share, not the subdirectory
 * mounted from it; mountinfo's octal escapes (\040 for a space) decoded.
 */
static char *unc_name(const char *source)
{
	char *s = malloc(strlen(source) + 1), *o = s;
	unsigned int slashes = 0;

	if (!s)
		return NULL;
	for (const char *p = source; *p; p++) {
		char c = *p;

		if (c == '\\' && p[1] >= '0' && p[1] <= '3' && is_octal(p[2]) && is_octal(p[3])) {
			c = (char)((p[1] - '0') << 6 | (p[2] - '0') << 3 | (p[3] - '0'));
			p += 3;
		} else if (c == '/') {
			if (++slashes == 4)
				break;
			c = '\\';
		}
		*o++ = c;
	}
	*o = '\0';
	return s;
}

static int parse_line(struct mounts *m, char *line)
{
	unsigned int major, minor;
	char *sep = strstr(line, " - "), fstype[32], source[512];
	struct share *v;

	if (!sep || sscanf(line, "%*u %*u %u:%u", &major, &minor) != 2)
		return 0;
	if (sscanf(sep + 3, "%31s %511s", fstype, source) != 2)
		return 0;
	if (strcmp(fstype, "cifs") != 0 && strcmp(fstype, "smb3") != 0)
		return 0;
	v = realloc(m->v, (m->n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	m->v = v;
	v[m->n].kdev = smblat_kdev(major, minor);
	v[m->n].name = unc_name(source);
	if (!v[m->n].name)
		return -ENOMEM;
	m->n++;
	return 0;
}

static int mounts_load(struct mounts *m)
{
	FILE *f = fopen(m->path, "re");
	char *line = NULL;
	size_t len = 0;
	int r = 0;

	if (!f)
		return -errno;
	shares_clear(m);
	while (r == 0 && getline(&line, &len, f) > 0)
		r = parse_line(m, line);
	free(line);
	fclose(f);
	m->loaded = time(NULL);
	return r;
}

int mounts_new(const char *mountinfo, struct mounts **ret)
{
	struct mounts *m = calloc(1, sizeof(*m));

	if (!m)
		return -ENOMEM;
	m->path = strdup(mountinfo ? mountinfo : "/proc/self/mountinfo");
	if (!m->path) {
		free(m);
		return -ENOMEM;
	}
	(void)mounts_load(m);
	*ret = m;
	return 0;
}

void mounts_free(struct mounts *m)
{
	if (!m)
		return;
	shares_clear(m);
	free(m->path);
	free(m);
}

static const char *find(const struct mounts *m, uint32_t kdev)
{
	for (size_t i = 0; i < m->n; i++)
		if (m->v[i].kdev == kdev)
			return m->v[i].name;
	return NULL;
}

const char *mounts_share(struct mounts *m, uint32_t kdev)
{
	const char *s = find(m, kdev);

	if (s || time(NULL) == m->loaded)
		return s;
	(void)mounts_load(m);
	return find(m, kdev);
}

/* "\\server\share" names server (case-insensitively, as SMB does). */
static bool share_of_server(const char *share, const char *server)
{
	size_t n = strlen(server);

	return strncmp(share, "\\\\", 2) == 0 && strncasecmp(share + 2, server, n) == 0 &&
	       share[2 + n] == '\\';
}

size_t mounts_server_shares(const struct mounts *m, const char *server, const char **out, size_t max)
{
	size_t n = 0;

	for (size_t i = 0; i < m->n && n < max; i++) {
		bool seen = false;

		if (!share_of_server(m->v[i].name, server))
			continue;
		for (size_t k = 0; k < n && !seen; k++)
			seen = strcmp(out[k], m->v[i].name) == 0;
		if (!seen)
			out[n++] = m->v[i].name;
	}
	return n;
}
