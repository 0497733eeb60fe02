/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>

#include "symbols/kmodules.h"

uint64_t kmodule_instance(const char *module)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "/sys/module/%s", module);
	return stat(path, &st) == 0 ? (uint64_t)st.st_ino : 0;
}

/* Module names spell '-' as '_' in /sys/module and modules.dep may have either. */
static bool module_name_eq(const char *a, size_t n, const char *b)
{
	for (size_t i = 0; i < n; i++, b++) {
		char x = a[i] == '-' ? '_' : a[i], y = *b == '-' ? '_' : *b;

		if (!*b || x != y)
			return false;
	}
	return !*b;
}

bool kmodule_known(const char *module)
{
	char path[PATH_MAX], *line = NULL;
	size_t size = 0;
	struct utsname u;
	bool found = false;
	FILE *f;

	if (kmodule_instance(module))
		return true;
	if (uname(&u) < 0)
		return false;
	snprintf(path, sizeof(path), "/lib/modules/%s/modules.dep", u.release);
	f = fopen(path, "re");
	if (!f)
		return false;
	/* "kernel/fs/smb/client/cifs.ko.xz: kernel/..." */
	while (!found && getline(&line, &size, f) > 0) {
		char *colon = strchr(line, ':'), *base, *dot;

		if (!colon)
			continue;
		*colon = '\0';
		base = strrchr(line, '/');
		base = base ? base + 1 : line;
		dot = strstr(base, ".ko");
		found = dot && module_name_eq(base, dot - base, module);
	}
	free(line);
	fclose(f);
	return found;
}

struct kmodule *kmodules_loaded(size_t *n)
{
	struct kmodule *v = NULL;
	char *line = NULL;
	size_t size = 0, cap = 0;
	FILE *f = fopen("/proc/modules", "re");

	*n = 0;
	if (!f)
		return NULL;
	while (getline(&line, &size, f) > 0) {
		size_t len = strcspn(line, " ");
		struct kmodule *nv;

		if (len == 0 || len >= sizeof(v->name))
			continue;
		if (*n == cap) {
			cap = cap ? cap * 2 : 64;
			nv = realloc(v, cap * sizeof(*v));
			if (!nv)
				break;
			v = nv;
		}
		memcpy(v[*n].name, line, len);
		v[*n].name[len] = '\0';
		v[*n].instance = kmodule_instance(v[*n].name);
		(*n)++;
	}
	free(line);
	fclose(f);
	return v;
}
