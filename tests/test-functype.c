/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * A user function's return type from the ELF file's type information:
 * DWARF of this very program (built with -g), of a stripped copy whose
 * debug file sits under a root by build ID as -dbgsym packages put it, and
 * BTF added to a copy; nothing where there is none.
 */
#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "symbols/functype.h"
#include "symbols/usyms.h"

#include "check.h"

enum colour { RED = -1, GREEN };
typedef long my_ssize;

/* The functions looked up: out of line, kept, and each returning its own type. */
#define KEEP __attribute__((noinline, used))
KEEP long ft_long(void)
{
	return 1;
}
KEEP int ft_int(void)
{
	return -1;
}
KEEP my_ssize ft_typedef(void)
{
	return 2;
}
KEEP unsigned short ft_ushort(void)
{
	return 3;
}
KEEP _Bool ft_bool(void)
{
	return 1;
}
KEEP char *ft_ptr(void)
{
	return (char *)"x";
}
KEEP const void *ft_cptr(void)
{
	return "y";
}
KEEP void ft_void(void)
{
	__asm__ volatile("");
}
KEEP double ft_double(void)
{
	return 1.5;
}
KEEP enum colour ft_enum(void)
{
	return RED;
}
KEEP signed char ft_schar(void)
{
	return -3;
}

static struct usyms *us;

static int lookup(const char *path, const char *root, const char *sym, struct functype *t)
{
	uint64_t off;
	int r = usyms_resolve(us, path, sym, &off);

	check(r == 0, "%s: no %s: %d", path, sym, r);
	return r < 0 ? r : functype_ret(path, root, sym, off, t);
}

/* name is one of the '|'-separated spellings: gcc's DWARF says "long int", clang's "long" */
static bool name_is(const char *got, const char *names)
{
	size_t n = strlen(got);

	for (const char *p = names; p; p = strchr(p, '|'), p = p ? p + 1 : NULL)
		if (strncmp(p, got, n) == 0 && (p[n] == '\0' || p[n] == '|'))
			return true;
	return false;
}

static void expect(const char *path, const char *root, const char *sym, enum functype_class cls,
		   unsigned int size, const char *name, const char *from)
{
	struct functype t;
	int r = lookup(path, root, sym, &t);

	check(r == 0, "%s: %s: %s", path, sym, strerror(-r));
	if (r < 0)
		return;
	check(t.cls == cls && t.size == size, "%s: class %d size %u, want %d %u", sym, t.cls, t.size, cls,
	      size);
	check(name_is(t.name, name), "%s: name \"%s\", want \"%s\"", sym, t.name, name);
	check(t.from && strcmp(t.from, from) == 0, "%s: from %s, want %s", sym, t.from, from);
}

static void test_dwarf(const char *self)
{
	expect(self, "", "ft_long", FUNCTYPE_SIGNED, 8, "long int|long", "DWARF");
	expect(self, "", "ft_int", FUNCTYPE_SIGNED, 4, "int", "DWARF");
	expect(self, "", "ft_typedef", FUNCTYPE_SIGNED, 8, "my_ssize", "DWARF");
	expect(self, "", "ft_ushort", FUNCTYPE_UNSIGNED, 2, "short unsigned int|unsigned short", "DWARF");
	expect(self, "", "ft_bool", FUNCTYPE_UNSIGNED, 1, "_Bool", "DWARF");
	expect(self, "", "ft_ptr", FUNCTYPE_POINTER, 8, "char *", "DWARF");
	expect(self, "", "ft_cptr", FUNCTYPE_POINTER, 8, "const void *", "DWARF");
	expect(self, "", "ft_void", FUNCTYPE_VOID, 0, "void", "DWARF");
	expect(self, "", "ft_double", FUNCTYPE_OTHER, 0, "double", "DWARF");
	expect(self, "", "ft_enum", FUNCTYPE_SIGNED, 4, "colour", "DWARF");
	expect(self, "", "ft_schar", FUNCTYPE_SIGNED, 1, "signed char", "DWARF");
}

static int run(const char *cmd)
{
	int r = system(cmd);

	check(r == 0, "%s: %d", cmd, r);
	return r;
}

/* The build ID of path as "ab/cdef..." from readelf. */
static int build_id(const char *path, char *out, size_t n)
{
	char cmd[PATH_MAX + 64], line[256];
	FILE *p;
	int ok = -1;

	snprintf(cmd, sizeof(cmd), "readelf -n '%s'", path);
	p = popen(cmd, "r");
	if (!p)
		return -1;
	while (fgets(line, sizeof(line), p)) {
		char *id = strstr(line, "Build ID: ");

		if (id && strlen(id += 10) > 3) {
			id[strcspn(id, "\n")] = '\0';
			snprintf(out, n, "%.2s/%s", id, id + 2);
			ok = 0;
		}
	}
	pclose(p);
	return ok;
}

/* A stripped copy finds its types in the debug file under root, by build ID; without it, none. */
static void test_debug_file(const char *self, const char *dir)
{
	char copy[PATH_MAX], root[PATH_MAX], dbg[2 * PATH_MAX], cmd[8 * PATH_MAX], id[128];
	struct functype t;

	snprintf(copy, sizeof(copy), "%s/stripped", dir);
	snprintf(root, sizeof(root), "%s/root", dir);
	if (build_id(self, id, sizeof(id)) < 0) {
		check(false, "%s has no build ID", self);
		return;
	}
	snprintf(dbg, sizeof(dbg), "%s/usr/lib/debug/.build-id/%s.debug", root, id);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --strip-debug '%s' '%s' && mkdir -p \"$(dirname '%s')\" && "
		 "objcopy --only-keep-debug '%s' '%s'",
		 self, copy, dbg, self, dbg);
	if (run(cmd))
		return;
	/* no debug file where root says: nothing known */
	check(lookup(copy, "/nonexistent", "ft_long", &t) == -ENOENT, "stripped copy without its debug file");
	expect(copy, root, "ft_long", FUNCTYPE_SIGNED, 8, "long int|long", "DWARF");
	expect(copy, root, "ft_ptr", FUNCTYPE_POINTER, 8, "char *", "DWARF");
	expect(copy, root, "ft_void", FUNCTYPE_VOID, 0, "void", "DWARF");
}

/* BTF in the file (as pahole -J adds it) is read before DWARF. */
static void test_btf(const char *self, const char *dir)
{
	char copy[PATH_MAX], raw[PATH_MAX], cmd[3 * PATH_MAX + 128];
	struct btf *btf = btf__new_empty();
	const void *data;
	uint32_t size;
	int i64, ptr, proto;
	FILE *f;

	if (!btf) {
		check(false, "btf__new_empty");
		return;
	}
	/* ft_int declared as returning a 64-bit signed integer, ft_long a pointer: BTF's word wins */
	i64 = btf__add_int(btf, "int64_t", 8, BTF_INT_SIGNED);
	ptr = btf__add_ptr(btf, 0);
	proto = btf__add_func_proto(btf, i64);
	btf__add_func(btf, "ft_int", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(btf, ptr);
	btf__add_func(btf, "ft_long", BTF_FUNC_GLOBAL, proto);
	proto = btf__add_func_proto(btf, 0);
	btf__add_func(btf, "ft_ushort", BTF_FUNC_GLOBAL, proto);
	data = btf__raw_data(btf, &size);
	snprintf(raw, sizeof(raw), "%s/btf.raw", dir);
	snprintf(copy, sizeof(copy), "%s/with-btf", dir);
	f = fopen(raw, "w");
	check(f && data && fwrite(data, 1, size, f) == size, "writing %s", raw);
	if (f)
		fclose(f);
	btf__free(btf);
	snprintf(cmd, sizeof(cmd),
		 "objcopy --add-section .BTF='%s' --set-section-flags .BTF=readonly '%s' '%s'", raw, self,
		 copy);
	if (run(cmd))
		return;
	expect(copy, "", "ft_int", FUNCTYPE_SIGNED, 8, "int64_t", "BTF");
	expect(copy, "", "ft_long", FUNCTYPE_POINTER, 8, "void *", "BTF");
	expect(copy, "", "ft_ushort", FUNCTYPE_VOID, 0, "void", "BTF");
	/* not in BTF: DWARF still tells */
	expect(copy, "", "ft_ptr", FUNCTYPE_POINTER, 8, "char *", "DWARF");
}

int main(void)
{
	char self[PATH_MAX], dir[] = "/tmp/test-functype.XXXXXX", cmd[PATH_MAX + 16];
	ssize_t n = readlink("/proc/self/exe", self, sizeof(self) - 1);

	if (n < 0 || !mkdtemp(dir) || usyms_new(&us) < 0) {
		perror("test-functype");
		return EXIT_FAILURE;
	}
	self[n] = '\0';
	test_dwarf(self);
	test_debug_file(self, dir);
	test_btf(self, dir);
	/* the calls themselves, so that nothing is optimised away */
	check(ft_long() + ft_int() + ft_typedef() + ft_ushort() + ft_bool() + ft_schar() == 3, "calls");
	check(ft_ptr() && ft_cptr() && ft_double() > 1 && ft_enum() == RED, "calls");
	ft_void();
	usyms_free(us);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	(void)system(cmd);
	return check_done("functype");
}
