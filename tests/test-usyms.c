/* SPDX-License-Identifier: LGPL-2.1-or-later */
#include <dlfcn.h>
#include <libelf.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "symbols/elffile.h"
#include "symbols/usyms.h"

#include "check.h"

/* Big enough that +0x5 is still inside; exported so it sits in .symtab. */
__attribute__((noinline)) int usyms_test_target(int n);
__attribute__((noinline)) int usyms_test_target(int n)
{
	volatile int acc = 0;

	for (int i = 0; i < n; i++)
		acc += i * getpid();
	return acc;
}

int main(void);

static char self_exe[PATH_MAX];

static int starts_with(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static int ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);

	return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* The mapping holding addr, from /proc/self/maps, as a uprobe would see it. */
static int self_mapping(uintptr_t addr, uint64_t *start, uint64_t *pgoff, char *path, size_t len)
{
	char line[PATH_MAX + 128];
	FILE *f = fopen("/proc/self/maps", "re");
	int found = -ENOENT;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long s, e, o;
		int n = 0;

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %n", &s, &e, &o, &n) < 3 || n == 0)
			continue;
		if (addr < s || addr >= e)
			continue;
		*start = s;
		*pgoff = o;
		snprintf(path, len, "%.*s", (int)strcspn(line + n, "\n"), line + n);
		found = 0;
		break;
	}
	if (f)
		fclose(f);
	return found;
}

/* The bytes a uprobe at offset would patch are the function's first bytes. */
static void check_offset(const char *binary, const char *what, const void *fn, uint64_t offset)
{
	uint64_t start, pgoff;
	unsigned char file[16];
	char path[PATH_MAX];
	int fd;

	check(self_mapping((uintptr_t)fn, &start, &pgoff, path, sizeof(path)) == 0, "%s is in no mapping",
	      what);
	check((uintptr_t)fn - start + pgoff == offset, "%s: offset 0x%llx, mapping says 0x%llx", what,
	      (unsigned long long)offset, (unsigned long long)((uintptr_t)fn - start + pgoff));

	fd = open(binary, O_RDONLY | O_CLOEXEC);
	check(fd >= 0 && pread(fd, file, sizeof(file), offset) == sizeof(file), "reading %s at 0x%llx: %m",
	      binary, (unsigned long long)offset);
	check(memcmp(file, fn, sizeof(file)) == 0, "%s: bytes at file offset 0x%llx differ from memory", what,
	      (unsigned long long)offset);
	if (fd >= 0)
		close(fd);
}

static void test_self(struct usyms *u)
{
	uint64_t addr = (uintptr_t)usyms_test_target;
	char buf[PATH_MAX + 64], want[PATH_MAX + 64];
	struct usym s;
	int r;

	r = usyms_format(u, getpid(), addr, buf, sizeof(buf));
	snprintf(want, sizeof(want), "usyms_test_target+0x0 (%s)", self_exe);
	check(r == 0 && strcmp(buf, want) == 0, "self: %d \"%s\", want \"%s\"", r, buf, want);

	r = usyms_format(u, getpid(), addr + 5, buf, sizeof(buf));
	check(r == 0 && starts_with(buf, "usyms_test_target+0x5 ("), "self+5: %d \"%s\"", r, buf);

	r = usyms_find(u, getpid(), (uintptr_t)main, &s);
	check(r == 0 && s.name && strcmp(s.name, "main") == 0 && s.offset == 0, "main: %d %s+0x%llx", r,
	      s.name ?: "(none)", (unsigned long long)s.offset);

	/* Truncation keeps a terminated string. */
	r = usyms_format(u, getpid(), addr, buf, 10);
	check(strcmp(buf, "usyms_tes") == 0, "truncated: \"%s\"", buf);
}

static void test_libc(struct usyms *u)
{
	void *fn = dlsym(RTLD_NEXT, "getpid");
	char buf[PATH_MAX + 64];
	struct usym s;
	int r;

	check(fn, "dlsym(getpid): %s", dlerror());
	if (!fn)
		return;
	r = usyms_find(u, getpid(), (uintptr_t)fn, &s);
	check(r == 0 && s.name && s.offset == 0 && s.path && ends_with(s.path, "/libc.so.6"),
	      "getpid: %d %s+0x%llx (%s)", r, s.name ?: "(none)", (unsigned long long)s.offset,
	      s.path ?: "(none)");
	/* Any alias will do, but it must name that very address. */
	if (s.name && dlsym(RTLD_DEFAULT, s.name))
		check(dlsym(RTLD_DEFAULT, s.name) == fn, "%s is not at getpid's address", s.name);

	r = usyms_format(u, getpid(), (uintptr_t)fn, buf, sizeof(buf));
	check(r == 0 && strstr(buf, "+0x0 (") && ends_with(buf, "/libc.so.6)"), "getpid: \"%s\"", buf);
	printf("getpid -> %s\n", buf);
}

static void test_unknown(struct usyms *u)
{
	char buf[128], want[128];
	int local = 0, r;
	unsigned long vdso = getauxval(AT_SYSINFO_EHDR);

	/* The stack is not executable: not a frame. */
	r = usyms_format(u, getpid(), (uintptr_t)&local, buf, sizeof(buf));
	snprintf(want, sizeof(want), "0x%llx", (unsigned long long)(uintptr_t)&local);
	check(r == -ENOENT && strcmp(buf, want) == 0, "stack: %d \"%s\"", r, buf);

	r = usyms_format(u, getpid(), 0, buf, sizeof(buf));
	check(r == -ENOENT && strcmp(buf, "0x0") == 0, "zero: %d \"%s\"", r, buf);

	if (vdso) {
		r = usyms_format(u, getpid(), vdso + 0x800, buf, sizeof(buf));
		check(r == -ENOENT && ends_with(buf, " ([vdso])"), "vdso: %d \"%s\"", r, buf);
	}

	/* Above pid_max: no such process. */
	r = usyms_format(u, 0x7ffffff0, 0x401000, buf, sizeof(buf));
	check(r == -ESRCH && strcmp(buf, "0x401000") == 0, "no process: %d \"%s\"", r, buf);
}

static void test_resolve(struct usyms *u)
{
	void *getpid_fn = dlsym(RTLD_NEXT, "getpid");
	uint64_t offset = 0, start, pgoff;
	char libc[PATH_MAX], path[] = "/tmp/test-usyms.XXXXXX";
	int r, fd;

	r = usyms_resolve(u, self_exe, "usyms_test_target", &offset);
	check(r == 0, "resolve self: %s", strerror(-r));
	if (r == 0)
		check_offset(self_exe, "usyms_test_target", usyms_test_target, offset);

	if (getpid_fn && self_mapping((uintptr_t)getpid_fn, &start, &pgoff, libc, sizeof(libc)) == 0) {
		r = usyms_resolve(u, libc, "getpid", &offset);
		check(r == 0, "resolve %s:getpid: %s", libc, strerror(-r));
		if (r == 0)
			check_offset(libc, "getpid", getpid_fn, offset);
		/* glibc keeps memcpy@GLIBC_2.2.5 beside memcpy@@GLIBC_2.14: the default wins. */
		r = usyms_resolve(u, libc, "memcpy", &offset);
		check(r == 0, "resolve %s:memcpy: %s", libc, strerror(-r));
	}

	r = usyms_resolve(u, self_exe, "no_such_function", &offset);
	check(r == -ENOENT, "resolve of a missing symbol: %d", r);
	/* A data symbol is no uprobe target. */
	r = usyms_resolve(u, self_exe, "self_exe", &offset);
	check(r == -ENOENT, "resolve of a data symbol: %d", r);
	r = usyms_resolve(u, "/nonexistent/binary", "main", &offset);
	check(r == -ENOENT, "resolve in a missing file: %d", r);

	fd = mkstemp(path);
	check(fd >= 0 && write(fd, "not an ELF file\n", 16) == 16, "mkstemp: %m");
	r = usyms_resolve(u, path, "main", &offset);
	check(r == -ENOEXEC, "resolve in a text file: %d", r);
	if (fd >= 0) {
		close(fd);
		unlink(path);
	}
}

struct seen {
	int n;
	uint64_t target_offset;
};

static int seen_one(const char *name, uint64_t offset, void *userdata)
{
	struct seen *s = userdata;

	check(starts_with(name, "usyms_test_"), "function %s outside the prefix", name);
	if (strcmp(name, "usyms_test_target") == 0)
		s->target_offset = offset;
	s->n++;
	return 0;
}

static int stop_at_first(const char *name, uint64_t offset, void *userdata)
{
	return -ECANCELED;
}

/* Which file defines a function for a program: itself, else a DT_NEEDED library. */
static void test_provider(struct usyms *u)
{
	void *getpid_fn = dlsym(RTLD_NEXT, "getpid");
	uint64_t offset = 0, start, pgoff;
	char libc[PATH_MAX], *path = NULL;
	struct seen seen = {};
	struct stat a, b;
	int r;

	r = usyms_provider(u, self_exe, "usyms_test_target", &path);
	check(r == 0 && path && strcmp(path, self_exe) == 0, "provider of a function of the program: %d %s",
	      r, path ? path : "-");
	free(path);
	path = NULL;

	if (getpid_fn && self_mapping((uintptr_t)getpid_fn, &start, &pgoff, libc, sizeof(libc)) == 0) {
		r = usyms_provider(u, self_exe, "getpid", &path);
		check(r == 0, "provider of getpid: %s", strerror(-r));
		/* the file the dynamic linker mapped, whatever symlinks lead there */
		check(r == 0 && stat(path, &a) == 0 && stat(libc, &b) == 0 && a.st_dev == b.st_dev &&
			      a.st_ino == b.st_ino,
		      "provider of getpid %s, mapped %s", path ? path : "-", libc);
		free(path);
		path = NULL;
	}
	r = usyms_provider(u, self_exe, "no_such_function_anywhere", &path);
	check(r == -ENOENT && !path, "provider of a missing function: %d", r);
	r = usyms_provider(u, "/nonexistent/binary", "main", &path);
	check(r == -ENOENT, "provider in a missing file: %d", r);

	r = usyms_functions(u, self_exe, "usyms_test_", seen_one, &seen);
	check(r == seen.n && r >= 1, "functions by prefix: %d, seen %d", r, seen.n);
	r = usyms_resolve(u, self_exe, "usyms_test_target", &offset);
	check(r == 0 && seen.target_offset == offset, "prefix offset 0x%llx, resolved 0x%llx",
	      (unsigned long long)seen.target_offset, (unsigned long long)offset);
	r = usyms_functions(u, self_exe, "usyms_test_", stop_at_first, NULL);
	check(r == -ECANCELED, "a callback error stops the walk: %d", r);
}

/* mkdir -p for the directory part of path. */
static void mkdirs(const char *path)
{
	char p[PATH_MAX];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		(void)mkdir(p, 0755);
		*s = '/';
	}
}

static int copy_file(const char *from, const char *to)
{
	int in = open(from, O_RDONLY | O_CLOEXEC), out;
	struct stat st;
	ssize_t n = -1;

	mkdirs(to);
	out = open(to, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);
	if (in >= 0 && out >= 0 && fstat(in, &st) == 0)
		n = sendfile(out, in, NULL, (size_t)st.st_size);
	if (in >= 0)
		close(in);
	if (out >= 0)
		close(out);
	return n < 0 ? -1 : 0;
}

static bool same_file(const char *a, const char *b)
{
	struct stat sa, sb;

	return a && b && stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
	       sa.st_ino == sb.st_ino;
}

/*
 * A program installed under another root (a debootstrap root seen from the
 * host): its libraries are the root's, found through the root's own
 * absolute symlinks, never the host's files of the same name.
 */
static void test_root(struct usyms *u)
{
	void *getpid_fn = dlsym(RTLD_NEXT, "getpid");
	char root[] = "/tmp/test-usyms-root.XXXXXX", libc[PATH_MAX], prog[PATH_MAX], lib[PATH_MAX],
	     ld[PATH_MAX], link[PATH_MAX], cmd[PATH_MAX + 16];
	char *interp = NULL, *path = NULL;
	uint64_t start, pgoff;
	int fd, r;

	r = usyms_root(self_exe, &path);
	check(r == 0 && path && strcmp(path, "/") == 0, "root of the host's program: %d %s", r,
	      path ? path : "-");
	free(path);
	path = NULL;
	fd = open(self_exe, O_RDONLY | O_CLOEXEC);
	if (!getpid_fn || self_mapping((uintptr_t)getpid_fn, &start, &pgoff, libc, sizeof(libc)) < 0 ||
	    fd < 0 || elf_file_interp(fd, &interp) < 0 || !mkdtemp(root)) {
		check(0, "no libc mapping, interpreter or directory for the root test");
		goto out;
	}
	/* root/usr/sbin/prog; its libc under the same directory as the host's; the
	 * dynamic linker as an absolute symlink, which the host would follow out */
	snprintf(prog, sizeof(prog), "%s/usr/sbin/prog", root);
	snprintf(lib, sizeof(lib), "%s%s", root, libc);
	snprintf(ld, sizeof(ld), "%s/usr/lib/ld-test.so", root);
	snprintf(link, sizeof(link), "%s%s", root, interp);
	check(copy_file(self_exe, prog) == 0 && copy_file(libc, lib) == 0 && copy_file(self_exe, ld) == 0,
	      "copies into %s", root);
	mkdirs(link);
	check(symlink("/usr/lib/ld-test.so", link) == 0, "symlink %s: %m", link);
	r = usyms_root(prog, &path);
	check(r == 0 && path && strcmp(path, root) == 0, "root of %s: %d %s", prog, r, path ? path : "-");
	free(path);
	path = NULL;
	r = usyms_provider(u, prog, "getpid", &path);
	check(r == 0 && same_file(path, lib) && !same_file(path, libc),
	      "provider of getpid in the root: %d %s", r, path ? path : "-");
	free(path);
	path = NULL;
	/* the root lacks it: not the host's file instead */
	unlink(lib);
	r = usyms_provider(u, prog, "getpid", &path);
	check(r == -ENOENT && !path, "provider of getpid in a root without it: %d %s", r, path ? path : "-");
	free(path);
	path = NULL;
	/* no dynamic linker there: not a root, the host's files */
	unlink(link);
	r = usyms_root(prog, &path);
	check(r == 0 && path && strcmp(path, "/") == 0, "root without its dynamic linker: %d %s", r,
	      path ? path : "-");
	free(path);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", root);
	check(system(cmd) == 0, "%s", cmd);
out:
	free(interp);
	if (fd >= 0)
		close(fd);
}

/* Another process: the same file, its own layout; and after exec, another program. */
static void test_child(struct usyms *u)
{
	int go[2];
	char buf[PATH_MAX + 64], exe[64], target[PATH_MAX];
	pid_t pid;
	int r;

	if (pipe(go) < 0) {
		perror("pipe");
		failures++;
		return;
	}
	pid = fork();
	if (pid == 0) {
		char c;

		close(go[1]);
		if (read(go[0], &c, 1) == 1)
			execl("/bin/sleep", "sleep", "30", (char *)NULL);
		_exit(0);
	}
	close(go[0]);

	r = usyms_format(u, pid, (uintptr_t)usyms_test_target + 2, buf, sizeof(buf));
	check(r == 0 && starts_with(buf, "usyms_test_target+0x2 ("), "child: %d \"%s\"", r, buf);

	/* exec: wait for it to show, then past the re-check interval. */
	check(write(go[1], "x", 1) == 1, "pipe write");
	snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)pid);
	for (int i = 0; i < 200; i++) {
		ssize_t n = readlink(exe, target, sizeof(target) - 1);

		if (n > 0 && (target[n] = 0, strstr(target, "sleep")))
			break;
		usleep(10000);
	}
	usleep(1100 * 1000);
	r = usyms_format(u, pid, (uintptr_t)usyms_test_target, buf, sizeof(buf));
	check(!starts_with(buf, "usyms_test_target"), "after exec: %d \"%s\"", r, buf);

	/* Gone, but what we saw of it stays for its last events. */
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	close(go[1]);
	r = usyms_format(u, pid, 0x1234, buf, sizeof(buf));
	check(r == -ENOENT, "exited: %d \"%s\"", r, buf);

	usyms_forget(u, pid);
	r = usyms_format(u, pid, 0x1234, buf, sizeof(buf));
	check(r == -ESRCH, "forgotten: %d \"%s\"", r, buf);
}

/* A process that exits right after its event still symbolizes from the cache. */
static void test_short_lived(struct usyms *u)
{
	char buf[PATH_MAX + 64];
	pid_t pid;
	int r;

	pid = fork();
	if (pid == 0) {
		pause();
		_exit(0);
	}
	r = usyms_format(u, pid, (uintptr_t)usyms_test_target, buf, sizeof(buf));
	check(r == 0 && starts_with(buf, "usyms_test_target+0x0"), "short-lived: %d \"%s\"", r, buf);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	r = usyms_format(u, pid, (uintptr_t)usyms_test_target + 1, buf, sizeof(buf));
	check(r == 0 && starts_with(buf, "usyms_test_target+0x1"), "after exit: %d \"%s\"", r, buf);
}

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static void test_speed(struct usyms *u)
{
	char buf[PATH_MAX + 64];
	double t = now_us();
	int n = 100000;

	for (int i = 0; i < n; i++)
		usyms_format(u, getpid(), (uintptr_t)usyms_test_target + (i & 7), buf, sizeof(buf));
	printf("cached usyms_format: %.2f us each\n", (now_us() - t) / n);
}

int main(void)
{
	struct usyms *u = NULL;
	ssize_t n;
	int r;

	check(usyms_test_target(3) >= 0, "target");
	n = readlink("/proc/self/exe", self_exe, sizeof(self_exe) - 1);
	if (n <= 0) {
		perror("readlink /proc/self/exe");
		return EXIT_FAILURE;
	}
	self_exe[n] = 0;

	r = usyms_new(&u);
	if (r < 0) {
		fprintf(stderr, "usyms_new: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	test_self(u);
	test_libc(u);
	test_unknown(u);
	test_resolve(u);
	test_provider(u);
	test_root(u);
	test_child(u);
	test_short_lived(u);
	test_speed(u);
	usyms_free(u);

	return check_done("usyms");
}
