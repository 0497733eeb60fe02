// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Where a program's libraries are, found as the dynamic linker finds them
 * (DT_NEEDED, DT_RUNPATH with $ORIGIN, the default directories), also
 * inside another root (a debootstrap root seen from the host): the file
 * that exports a symbol, a library by name, and the version tag a
 * library's exports carry.
 */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/openat2.h>
#include <unistd.h>

#include "symbols/elffile.h"
#include "symbols/usyms.h"
#include "base/macro.h"

static int found_it(const char *name, uint64_t offset, void *userdata)
{
	return strcmp(name, userdata) == 0 ? -EEXIST : 0;
}

/* Exported, not merely present: a local copy is not what the program calls. */
static bool defines(struct usyms *u, const char *path, const char *symbol)
{
	return usyms_functions(u, path, symbol, found_it, (void *)symbol) == -EEXIST;
}

/* Debian's multiarch directory of this architecture. */
#if defined(__x86_64__)
#define MULTIARCH "x86_64-linux-gnu"
#elif defined(__aarch64__)
#define MULTIARCH "aarch64-linux-gnu"
#elif defined(__i386__)
#define MULTIARCH "i386-linux-gnu"
#else
#define MULTIARCH "."
#endif

/* Where the dynamic linker looks after the file's own search path. */
static const char *const default_dirs[] = {
	"/lib/" MULTIARCH, "/usr/lib/" MULTIARCH, "/lib64", "/usr/lib64", "/lib",
	"/usr/lib",        "/usr/local/lib",
};

/*
 * path inside the root open at rootfd, symlinks too resolved there (an
 * absolute one in a debootstrap root points into that root, not the host):
 * the file's path as the host names it, malloc'd; NULL when there is none.
 */
static char *in_root(int rootfd, const char *path)
{
	struct open_how how = { .flags = O_PATH | O_CLOEXEC, .resolve = RESOLVE_IN_ROOT };
	_cleanup_close_ int fd = -1;
	char proc[64], real[PATH_MAX];
	ssize_t n;

	fd = (int)syscall(SYS_openat2, rootfd, path, &how, sizeof(how));
	if (fd < 0)
		return NULL;
	snprintf(proc, sizeof(proc), "/proc/self/fd/%d", fd);
	n = readlink(proc, real, sizeof(real) - 1);
	if (n <= 0)
		return NULL;
	real[n] = '\0';
	return strdup(real);
}

/* Where binary's libraries are looked up: its root, open, and its own directory inside it. */
struct lookup {
	int rootfd; /* -1: the host's, paths as they are */
	char origin[PATH_MAX];
};

/* One directory of a search path, "$ORIGIN" being the binary's own directory. */
static bool provider_in(struct usyms *u, const struct lookup *lk, const char *dir, size_t dlen,
			const char *lib, const char *symbol, char **ret)
{
	char path[2 * PATH_MAX], *host;

	if (dlen >= 7 && strncmp(dir, "$ORIGIN", 7) == 0)
		snprintf(path, sizeof(path), "%s%.*s/%s", lk->origin, (int)(dlen - 7), dir + 7, lib);
	else
		snprintf(path, sizeof(path), "%.*s/%s", (int)dlen, dir, lib);
	host = lk->rootfd >= 0 ? in_root(lk->rootfd, path) : strdup(path);
	if (!host || access(host, R_OK) < 0 || !defines(u, host, symbol)) {
		free(host);
		return false;
	}
	*ret = host;
	return true;
}

/* Whether dir is the root of an installation of binary: it has usr/ and the binary's dynamic linker. */
static bool is_root(const char *dir, const char *interp)
{
	_cleanup_close_ int fd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
	struct stat st;
	char *p;
	bool yes;

	if (fd < 0 || fstatat(fd, "usr", &st, 0) < 0 || !S_ISDIR(st.st_mode))
		return false;
	p = in_root(fd, interp);
	yes = p && stat(p, &st) == 0 && S_ISREG(st.st_mode);
	free(p);
	return yes;
}

int usyms_root(const char *binary, char **ret)
{
	_cleanup_close_ int fd = -1;
	_cleanup_free_ char *interp = NULL;
	char dir[PATH_MAX];
	char *slash;

	if (binary[0] != '/' || strlen(binary) >= sizeof(dir))
		return -EINVAL;
	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	/* a binary without a dynamic linker brings no libraries: the host's root */
	if (elf_file_interp(fd, &interp) == 0 && interp[0] == '/') {
		strcpy(dir, binary);
		/* the deepest first: a root inside a root is the binary's */
		while ((slash = strrchr(dir, '/')) && slash != dir) {
			*slash = '\0';
			if (is_root(dir, interp)) {
				*ret = strdup(dir);
				return *ret ? 0 : -ENOMEM;
			}
		}
	}
	*ret = strdup("/");
	return *ret ? 0 : -ENOMEM;
}

/* binary's root and its directory in it; lk->rootfd is -1 for the host's root. */
static int lookup_open(struct lookup *lk, const char *binary)
{
	_cleanup_free_ char *root = NULL;
	const char *slash = strrchr(binary, '/'), *in;
	size_t rlen;

	lk->rootfd = -1;
	snprintf(lk->origin, sizeof(lk->origin), "%.*s", slash ? (int)(slash - binary) : 1,
		 slash ? binary : ".");
	if (binary[0] != '/' || usyms_root(binary, &root) < 0 || strcmp(root, "/") == 0)
		return 0;
	lk->rootfd = open(root, O_PATH | O_DIRECTORY | O_CLOEXEC);
	if (lk->rootfd < 0)
		return -errno;
	rlen = strlen(root);
	in = binary + rlen;
	slash = strrchr(in, '/');
	snprintf(lk->origin, sizeof(lk->origin), "%.*s", slash && slash != in ? (int)(slash - in) : 1,
		 slash && slash != in ? in : "/");
	return 0;
}

int usyms_provider(struct usyms *u, const char *binary, const char *symbol, char **ret)
{
	_cleanup_close_ int fd = -1;
	char **needed = NULL, *runpath = NULL;
	struct lookup lk;
	bool found = false;
	struct stat st;
	int r;

	if (stat(binary, &st) < 0)
		return -errno;
	if (S_ISDIR(st.st_mode))
		return -EISDIR;
	if (defines(u, binary, symbol)) {
		*ret = strdup(binary);
		return *ret ? 0 : -ENOMEM;
	}
	fd = open(binary, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	r = elf_file_needed(fd, &needed, &runpath);
	if (r < 0)
		return r;
	r = lookup_open(&lk, binary);
	*ret = NULL;
	for (size_t i = 0; r == 0 && !found && needed && needed[i]; i++) {
		const char *lib = needed[i];

		for (const char *p = runpath; !found && p && *p; p += strcspn(p, ":"), p += *p == ':')
			found = provider_in(u, &lk, p, strcspn(p, ":"), lib, symbol, ret);
		for (size_t d = 0; !found && d < ELEMENTSOF(default_dirs); d++)
			found = provider_in(u, &lk, default_dirs[d], strlen(default_dirs[d]), lib, symbol,
					    ret);
	}
	if (lk.rootfd >= 0)
		close(lk.rootfd);
	for (size_t i = 0; needed && needed[i]; i++)
		free(needed[i]);
	free(needed);
	free(runpath);
	if (r < 0)
		return r;
	if (!found)
		return -ENOENT;
	return *ret ? 0 : -ENOMEM;
}

/*
 * In one directory: NAME itself when it is a file name (libc.so.6), else
 * bcc's shorthand, libNAME.so.N (the runtime soname) before libNAME.so.
 */
static char *library_in(const char *dir, const char *name)
{
	char path[PATH_MAX], best[NAME_MAX + 1] = "", prefix[NAME_MAX + 1];
	struct dirent *de;
	size_t plen;
	DIR *d;

	if (strstr(name, ".so")) {
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		return access(path, R_OK) == 0 ? strdup(path) : NULL;
	}
	plen = (size_t)snprintf(prefix, sizeof(prefix), "lib%s.so", name);
	d = opendir(dir);
	if (!d)
		return NULL;
	while ((de = readdir(d))) {
		const char *rest = de->d_name + plen;

		if (strncmp(de->d_name, prefix, plen) != 0 || (*rest && (*rest != '.' || !isdigit(rest[1]))))
			continue;
		/* libc.so.6 before libc.so, the shortest version before longer ones */
		if (!best[0] || (!best[plen] && *rest) || (*rest && strlen(de->d_name) < strlen(best)))
			snprintf(best, sizeof(best), "%s", de->d_name);
	}
	closedir(d);
	if (!best[0])
		return NULL;
	snprintf(path, sizeof(path), "%s/%s", dir, best);
	return strdup(path);
}

int usyms_library(const char *name, char **ret)
{
	*ret = NULL;
	if (strchr(name, '/')) {
		if (access(name, R_OK) < 0)
			return -errno;
		*ret = strdup(name);
		return *ret ? 0 : -ENOMEM;
	}
	for (size_t d = 0; !*ret && d < ELEMENTSOF(default_dirs); d++)
		*ret = library_in(default_dirs[d], name);
	return *ret ? 0 : -ENOENT;
}

int usyms_version_def(const char *path, char **ret)
{
	__attribute__((cleanup(closep))) int fd = open(path, O_RDONLY | O_CLOEXEC);

	return fd < 0 ? -errno : elf_file_version_def(fd, ret);
}

int usyms_needed(const char *binary, int (*cb)(const char *name, void *userdata), void *userdata)
{
	__attribute__((cleanup(closep))) int fd = open(binary, O_RDONLY | O_CLOEXEC);
	char **needed = NULL, *runpath = NULL;
	int r;

	if (fd < 0)
		return -errno;
	r = elf_file_needed(fd, &needed, &runpath);
	for (size_t i = 0; r == 0 && needed && needed[i]; i++)
		r = cb(needed[i], userdata);
	for (size_t i = 0; needed && needed[i]; i++)
		free(needed[i]);
	free(needed);
	free(runpath);
	return r;
}
