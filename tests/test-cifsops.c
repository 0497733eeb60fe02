/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * cifsops: FUNCTION names of ops members, and the resolution of the cifs ops
 * tables against a fake kernel: a synthetic kallsyms file and memory images
 * laid out with the member offsets of this host's vmlinux BTF.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/btf.h>
#include <linux/btf.h>

#include "layers/cifs/cifsops.h"
#include "symbols/ksyms.h"

#include "check.h"
#include "base/macro.h"

/* ---- cifsops_op_name ---- */

static void check_name(enum op_group g, const char *member, bool dir, const char *want)
{
	char buf[SMBLAT_NAME_LEN];
	int r;

	memset(buf, 'x', sizeof(buf));
	buf[sizeof(buf) - 1] = '\0';
	r = cifsops_op_name(g, member, dir, buf, sizeof(buf));
	check(r == 0 && strcmp(buf, want) == 0, "op_name(%d, %s, %s) = %d \"%s\", want \"%s\"", g, member,
	      dir ? "dir" : "file", r, r == 0 ? buf : "", want);
}

static void check_name_fails(enum op_group g, const char *member, size_t len, int want)
{
	char buf[SMBLAT_NAME_LEN];
	int r;

	r = cifsops_op_name(g, member, false, buf, len);
	check(r == want, "op_name(%d, %s, len %zu) = %d, want %d", g, member ? member : "(null)", len, r,
	      want);
}

static void test_op_name(void)
{
	/* Plain members, one per group: prefix + upper-cased member. */
	check_name(GROUP_INODE, "unlink", false, "INODE_OP_UNLINK");
	check_name(GROUP_INODE, "lookup", false, "INODE_OP_LOOKUP");
	check_name(GROUP_INODE, "atomic_open", false, "INODE_OP_ATOMIC_OPEN");
	check_name(GROUP_FILE, "read_iter", false, "FILE_READ_ITER");
	check_name(GROUP_FILE, "llseek", true, "FILE_LLSEEK");
	check_name(GROUP_ADSPACE, "read_folio", false, "ADSPACE_OP_READ_FOLIO");
	check_name(GROUP_ADSPACE, "direct_IO", false, "ADSPACE_OP_DIRECT_IO");
	check_name(GROUP_SUPER, "statfs", false, "SUPER_OP_STATFS");

	/* Aliases. */
	check_name(GROUP_INODE, "rename", false, "INODE_OP_RENAME2");
	check_name(GROUP_INODE, "rename", true, "INODE_OP_RENAME2");
	check_name(GROUP_FILE, "release", false, "FILE_CLOSE");
	check_name(GROUP_FILE, "release", true, "FILE_CLOSEDIR");
	check_name(GROUP_FILE, "iterate", false, "FILE_READDIR");
	check_name(GROUP_FILE, "iterate_shared", false, "FILE_READDIR");
	check_name(GROUP_FILE, "iterate_shared", true, "FILE_READDIR");
	check_name(GROUP_FILE, "open", true, "FILE_OPENDIR");
	check_name(GROUP_FILE, "open", false, "FILE_OPEN");
	check_name(GROUP_ADSPACE, "write_begin", false, "ADSPACE_OP_WRITE_BEGIN");
	check_name(GROUP_SUPER, "evict_inode", false, "SUPER_OP_EVICT_INODE");

	/* Aliases belong to their group only. */
	check_name(GROUP_FILE, "rename", false, "FILE_RENAME");
	check_name(GROUP_SUPER, "release", false, "SUPER_OP_RELEASE");
	check_name(GROUP_INODE, "iterate_shared", false, "INODE_OP_ITERATE_SHARED");
	check_name(GROUP_INODE, "open", true, "INODE_OP_OPEN");
	check_name(GROUP_ADSPACE, "release_folio", true, "ADSPACE_OP_RELEASE_FOLIO");

	/* Bad input. */
	check_name_fails(GROUP_NONE, "unlink", SMBLAT_NAME_LEN, -EINVAL);
	check_name_fails((enum op_group)42, "unlink", SMBLAT_NAME_LEN, -EINVAL);
	check_name_fails(GROUP_INODE, NULL, SMBLAT_NAME_LEN, -EINVAL);
	check_name_fails(GROUP_INODE, "", SMBLAT_NAME_LEN, -EINVAL);
	/* "INODE_OP_UNLINK" is 15 characters: 16 bytes fit, 15 do not. */
	check_name_fails(GROUP_INODE, "unlink", 15, -ENAMETOOLONG);
	check_name_fails(GROUP_INODE, "unlink", 16, 0);
}

/* ---- BTF layout helpers ---- */

static const struct btf_type *struct_type(const struct btf *btf, const char *name)
{
	int id = btf__find_by_name_kind(btf, name, BTF_KIND_STRUCT);

	if (id < 0) {
		fprintf(stderr, "vmlinux BTF has no struct %s\n", name);
		exit(EXIT_FAILURE);
	}
	return btf__type_by_id(btf, id);
}

/* Byte offset of a member, found by name; exits when the host kernel lacks it. */
static size_t member_offset(const struct btf *btf, const char *type, const char *member)
{
	const struct btf_type *t = struct_type(btf, type);
	const struct btf_member *m = btf_members(t);

	for (unsigned int i = 0; i < btf_vlen(t); i++, m++) {
		const char *n = btf__name_by_offset(btf, m->name_off);

		if (n && strcmp(n, member) == 0)
			return btf_member_bit_offset(t, i) / 8;
	}
	fprintf(stderr, "vmlinux BTF: struct %s has no member %s\n", type, member);
	exit(EXIT_FAILURE);
}

/* Whether a member is a function pointer, through typedefs and modifiers. */
static bool member_is_fn(const struct btf *btf, const struct btf_member *m)
{
	const struct btf_type *t = btf__type_by_id(btf, m->type);

	while (t && (btf_is_typedef(t) || btf_is_mod(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return false;
	t = btf__type_by_id(btf, t->type);
	return t && btf_is_func_proto(t);
}

/* Every name of cifsops_known comes from some function pointer member of this kernel. */
static void test_known_names(const struct btf *btf)
{
	static const struct {
		const char *type;
		enum op_group g;
	} types[] = {
		{ "inode_operations", GROUP_INODE },
		{ "file_operations", GROUP_FILE },
		{ "address_space_operations", GROUP_ADSPACE },
		{ "super_operations", GROUP_SUPER },
	};
	size_t n_known = 0;

	for (const char *const *k = cifsops_known; *k; k++, n_known++) {
		bool found = false;

		for (size_t ti = 0; !found && ti < ELEMENTSOF(types); ti++) {
			const struct btf_type *t = struct_type(btf, types[ti].type);
			const struct btf_member *m = btf_members(t);

			for (unsigned int i = 0; !found && i < btf_vlen(t); i++, m++) {
				for (int dir = 0; dir < 2 && !found; dir++) {
					char buf[SMBLAT_NAME_LEN];

					if (!member_is_fn(btf, m))
						continue;
					if (cifsops_op_name(types[ti].g,
							    btf__name_by_offset(btf, m->name_off), dir, buf,
							    sizeof(buf)) == 0 &&
					    strcmp(buf, *k) == 0)
						found = true;
				}
			}
		}
		check(found, "known FUNCTION %s is no ops member name on this kernel", *k);
	}
	check(n_known >= 40, "only %zu known FUNCTION names", n_known);
}

/* ---- the fake kernel ---- */

#define A_DIR_INODE_OPS 0xffffffffc1000000ull
#define A_FILE_OPS 0xffffffffc1001000ull
#define A_DIR_OPS 0xffffffffc1002000ull
#define A_ADDR_OPS 0xffffffffc1003000ull
#define A_SUPER_OPS 0xffffffffc1004000ull

#define A_CIFS_LOOKUP 0xffffffffc0a00000ull
#define A_CIFS_UNLINK 0xffffffffc0a00100ull
#define A_CIFS_RENAME2 0xffffffffc0a00200ull
#define A_CIFS_OPEN 0xffffffffc0a00300ull
#define A_CIFS_CLOSE 0xffffffffc0a00400ull
#define A_CIFS_READDIR 0xffffffffc0a00500ull
#define A_CIFS_CLOSEDIR 0xffffffffc0a00600ull
#define A_CIFS_DIROPEN 0xffffffffc0a00700ull
#define A_CIFS_WBEGIN 0xffffffffc0a00800ull
#define A_CIFS_EVICT 0xffffffffc0a00900ull
#define A_CIFS_STATFS 0xffffffffc0a00a00ull
#define A_CIFS_IOCTL 0xffffffffc0a00b00ull
#define A_CIFS_NOTOP 0xffffffffc0a00c00ull
#define A_NETFS_READ 0xffffffffc0900000ull
#define A_LLSEEK 0xffffffff81200000ull
#define A_VMLINUX_FIRST 0xffffffff81000000ull

static const char kallsyms_text[] = "ffffffff81000000 T _stext\n"
				    "ffffffff81200000 T generic_file_llseek\n"
				    "ffffffff81300000 D some_vmlinux_data\n"
				    "ffffffffc0900000 T netfs_read_folio\t[netfs]\n"
				    "ffffffffc0a00000 t cifs_lookup\t[cifs]\n"
				    "ffffffffc0a00100 t cifs_unlink\t[cifs]\n"
				    "ffffffffc0a00200 t cifs_rename2\t[cifs]\n"
				    "ffffffffc0a00300 t cifs_open\t[cifs]\n"
				    "ffffffffc0a00400 t cifs_close\t[cifs]\n"
				    "ffffffffc0a00500 t cifs_readdir\t[cifs]\n"
				    "ffffffffc0a00600 t cifs_closedir\t[cifs]\n"
				    "ffffffffc0a00700 t cifs_dir_open\t[cifs]\n"
				    "ffffffffc0a00800 t cifs_write_begin\t[cifs]\n"
				    "ffffffffc0a00900 t cifs_evict_inode\t[cifs]\n"
				    "ffffffffc0a00a00 t cifs_statfs\t[cifs]\n"
				    "ffffffffc0a00b00 T cifs_ioctl\t[cifs]\n"
				    "ffffffffc0a00c00 t cifs_not_an_op\t[cifs]\n"
				    "ffffffffc1000000 d cifs_dir_inode_ops\t[cifs]\n"
				    "ffffffffc1001000 d cifs_file_ops\t[cifs]\n"
				    "ffffffffc1002000 d cifs_dir_ops\t[cifs]\n"
				    "ffffffffc1003000 d cifs_addr_ops\t[cifs]\n"
				    "ffffffffc1004000 d cifs_super_ops\t[cifs]\n";

struct image {
	uint64_t addr;
	const char *type;
	uint8_t *mem;
	size_t size;
};

struct fake_kernel {
	struct image img[5];
	size_t n;
	unsigned int reads;
	uint64_t fail_addr; /* reads of this address fail */
	bool bad_len;       /* a read asked for other than the struct size */
};

static int fake_read(void *ctx, uint64_t addr, void *buf, size_t len)
{
	struct fake_kernel *k = ctx;

	k->reads++;
	if (addr == k->fail_addr)
		return -EFAULT;
	for (size_t i = 0; i < k->n; i++) {
		if (k->img[i].addr != addr)
			continue;
		if (len != k->img[i].size) {
			k->bad_len = true;
			if (len > k->img[i].size)
				return -EFAULT;
		}
		memcpy(buf, k->img[i].mem, len);
		return 0;
	}
	return -EFAULT;
}

static struct image *image_add(const struct btf *btf, struct fake_kernel *k, uint64_t addr, const char *type)
{
	struct image *im = &k->img[k->n++];

	im->addr = addr;
	im->type = type;
	im->size = struct_type(btf, type)->size;
	im->mem = malloc(im->size);
	if (!im->mem)
		exit(EXIT_FAILURE);
	/* Pattern, not zeros: members left alone must not read as NULL by accident. */
	for (size_t i = 0; i < im->size; i += sizeof(uint64_t)) {
		uint64_t junk = 0x5a5a5a5a5a5a5a5aull;

		memcpy(im->mem + i, &junk, im->size - i < sizeof(junk) ? im->size - i : sizeof(junk));
	}
	return im;
}

/* Zeroes every function pointer, then the test fills what it wants. */
static void image_clear_fns(const struct btf *btf, struct image *im)
{
	const struct btf_type *t = struct_type(btf, im->type);
	const struct btf_member *m = btf_members(t);

	for (unsigned int i = 0; i < btf_vlen(t); i++, m++)
		if (member_is_fn(btf, m))
			memset(im->mem + btf_member_bit_offset(t, i) / 8, 0, sizeof(uint64_t));
}

static void set_ptr(const struct btf *btf, struct image *im, const char *member, uint64_t v)
{
	size_t off = member_offset(btf, im->type, member);

	memcpy(im->mem + off, &v, sizeof(v));
}

static void fake_free(struct fake_kernel *k)
{
	for (size_t i = 0; i < k->n; i++)
		free(k->img[i].mem);
}

static void build_kernel(const struct btf *btf, struct fake_kernel *k)
{
	struct image *im;

	memset(k, 0, sizeof(*k));

	im = image_add(btf, k, A_DIR_INODE_OPS, "inode_operations");
	image_clear_fns(btf, im);
	set_ptr(btf, im, "lookup", A_CIFS_LOOKUP);
	set_ptr(btf, im, "unlink", A_CIFS_UNLINK);
	set_ptr(btf, im, "rename", A_CIFS_RENAME2);
	set_ptr(btf, im, "permission", A_CIFS_UNLINK + 0x10); /* inside a function */
	set_ptr(btf, im, "setattr", 0xffffffff80000000ull);   /* below every symbol */
	set_ptr(btf, im, "getattr", A_DIR_OPS);               /* a data address */
	/* create stays NULL */

	im = image_add(btf, k, A_FILE_OPS, "file_operations");
	image_clear_fns(btf, im);
	set_ptr(btf, im, "owner", A_CIFS_NOTOP); /* not a function pointer */
	set_ptr(btf, im, "llseek", A_LLSEEK);
	set_ptr(btf, im, "open", A_CIFS_OPEN);
	set_ptr(btf, im, "release", A_CIFS_CLOSE);
	set_ptr(btf, im, "unlocked_ioctl", A_CIFS_IOCTL);

	im = image_add(btf, k, A_DIR_OPS, "file_operations");
	image_clear_fns(btf, im);
	set_ptr(btf, im, "llseek", A_LLSEEK); /* also in cifs_file_ops */
	set_ptr(btf, im, "open", A_CIFS_DIROPEN);
	set_ptr(btf, im, "iterate_shared", A_CIFS_READDIR);
	set_ptr(btf, im, "release", A_CIFS_CLOSEDIR);
	set_ptr(btf, im, "unlocked_ioctl", A_CIFS_IOCTL); /* also in cifs_file_ops */

	im = image_add(btf, k, A_ADDR_OPS, "address_space_operations");
	image_clear_fns(btf, im);
	set_ptr(btf, im, "read_folio", A_NETFS_READ);
	set_ptr(btf, im, "write_begin", A_CIFS_WBEGIN);

	im = image_add(btf, k, A_SUPER_OPS, "super_operations");
	image_clear_fns(btf, im);
	set_ptr(btf, im, "evict_inode", A_CIFS_EVICT);
	set_ptr(btf, im, "statfs", A_CIFS_STATFS);
}

static char *write_tmp(const char *text)
{
	static char path[64];
	int fd;

	snprintf(path, sizeof(path), "/tmp/test-cifsops.XXXXXX");
	fd = mkstemp(path);
	if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text) || close(fd) < 0) {
		perror(path);
		exit(EXIT_FAILURE);
	}
	return path;
}

static struct ksyms *load_ksyms(const char *text)
{
	char *path = write_tmp(text);
	struct ksyms *ks = NULL;
	int r = ksyms_load_file(path, &ks);

	unlink(path);
	if (r < 0) {
		fprintf(stderr, "ksyms_load_file: %s\n", strerror(-r));
		exit(EXIT_FAILURE);
	}
	return ks;
}

static const struct cifs_op *op_by_name(const struct cifs_op *ops, size_t n, const char *name)
{
	for (size_t i = 0; i < n; i++)
		if (strcmp(ops[i].name, name) == 0)
			return &ops[i];
	return NULL;
}

static size_t count_symbol(const struct cifs_op *ops, size_t n, const char *symbol)
{
	size_t c = 0;

	for (size_t i = 0; i < n; i++)
		c += strcmp(ops[i].symbol, symbol) == 0;
	return c;
}

static void check_op(const struct cifs_op *ops, size_t n, const char *name, const char *symbol,
		     const char *module, enum op_group g, bool generic)
{
	const struct cifs_op *o = op_by_name(ops, n, name);

	check(o, "no op %s", name);
	if (!o)
		return;
	check(strcmp(o->symbol, symbol) == 0, "%s: symbol %s, want %s", name, o->symbol, symbol);
	check((!o->module && !module) || (o->module && module && strcmp(o->module, module) == 0),
	      "%s: module %s, want %s", name, o->module ?: "(vmlinux)", module ?: "(vmlinux)");
	check(o->group == g, "%s: group %d, want %d", name, o->group, g);
	check(o->generic == generic, "%s: generic %d, want %d", name, o->generic, generic);
	check(count_symbol(ops, n, symbol) == 1, "%s listed %zu times", symbol, count_symbol(ops, n, symbol));
}

static void test_resolve(const struct btf *btf)
{
	struct ksyms *ks = load_ksyms(kallsyms_text);
	struct fake_kernel k;
	struct cifs_op *ops = NULL;
	size_t n = 99;
	int r;

	build_kernel(btf, &k);
	r = cifsops_resolve(ks, btf, fake_read, &k, &ops, &n);
	check(r == 0, "resolve = %d (%s)", r, strerror(-r));
	check(k.reads == 5, "%u table reads, want 5 (one per table present)", k.reads);
	check(!k.bad_len, "a table was read with a length other than its struct size");

	for (size_t i = 0; i < n; i++)
		printf("  %-24s %-20s %-6s group %d%s\n", ops[i].name, ops[i].symbol, ops[i].module ?: "-",
		       ops[i].group, ops[i].generic ? " generic" : "");

	check_op(ops, n, "INODE_OP_LOOKUP", "cifs_lookup", "cifs", GROUP_INODE, false);
	check_op(ops, n, "INODE_OP_UNLINK", "cifs_unlink", "cifs", GROUP_INODE, false);
	check_op(ops, n, "INODE_OP_RENAME2", "cifs_rename2", "cifs", GROUP_INODE, false);
	check_op(ops, n, "FILE_LLSEEK", "generic_file_llseek", NULL, GROUP_FILE, true);
	check_op(ops, n, "FILE_OPEN", "cifs_open", "cifs", GROUP_FILE, false);
	check_op(ops, n, "FILE_CLOSE", "cifs_close", "cifs", GROUP_FILE, false);
	check_op(ops, n, "FILE_UNLOCKED_IOCTL", "cifs_ioctl", "cifs", GROUP_FILE, false);
	check_op(ops, n, "FILE_OPENDIR", "cifs_dir_open", "cifs", GROUP_FILE, false);
	check_op(ops, n, "FILE_READDIR", "cifs_readdir", "cifs", GROUP_FILE, false);
	check_op(ops, n, "FILE_CLOSEDIR", "cifs_closedir", "cifs", GROUP_FILE, false);
	check_op(ops, n, "ADSPACE_OP_READ_FOLIO", "netfs_read_folio", "netfs", GROUP_ADSPACE, true);
	check_op(ops, n, "ADSPACE_OP_WRITE_BEGIN", "cifs_write_begin", "cifs", GROUP_ADSPACE, false);
	check_op(ops, n, "SUPER_OP_EVICT_INODE", "cifs_evict_inode", "cifs", GROUP_SUPER, false);
	check_op(ops, n, "SUPER_OP_STATFS", "cifs_statfs", "cifs", GROUP_SUPER, false);

	/* Exactly those: no NULL member, no unknown pointer, no non-function member. */
	check(n == 14, "%zu ops resolved, want 14", n);
	check(!op_by_name(ops, n, "INODE_OP_CREATE"), "NULL create member resolved");
	check(!op_by_name(ops, n, "INODE_OP_PERMISSION"), "pointer inside cifs_unlink resolved");
	check(!op_by_name(ops, n, "INODE_OP_SETATTR"), "pointer below every symbol resolved");
	check(!op_by_name(ops, n, "INODE_OP_GETATTR"), "pointer to data resolved");
	check(!op_by_name(ops, n, "FILE_OWNER"), "file_operations.owner resolved as an op");
	check(count_symbol(ops, n, "cifs_not_an_op") == 0, "cifs_not_an_op resolved");
	/* Patterned (non-NULL) junk in members never set must not resolve either. */
	check(!op_by_name(ops, n, "FILE_FOP_FLAGS"), "fop_flags resolved");
	cifsops_free(ops, n);

	/* A table that cannot be read fails the whole resolution, leaving nothing behind. */
	k.fail_addr = A_ADDR_OPS;
	ops = (struct cifs_op *)1;
	n = 99;
	r = cifsops_resolve(ks, btf, fake_read, &k, &ops, &n);
	check(r == -EFAULT, "resolve with an unreadable table = %d, want -EFAULT", r);
	check(!ops && n == 0, "failed resolve left ops %p n %zu", (void *)ops, n);
	k.fail_addr = 0;

	fake_free(&k);
	ksyms_free(ks);
}

/* Only some tables present: those are read, the others are not looked for in memory. */
static void test_partial(const struct btf *btf)
{
	struct ksyms *ks = load_ksyms("ffffffff81000000 T _stext\n"
				      "ffffffffc0a00100 t cifs_unlink\t[cifs]\n"
				      "ffffffffc0a00900 t cifs_evict_inode\t[cifs]\n"
				      "ffffffffc1004000 d cifs_super_ops\t[cifs]\n"
				      /* The right name in another module is not cifs's table. */
				      "ffffffffc1000000 d cifs_dir_inode_ops\t[notcifs]\n");
	struct fake_kernel k;
	struct cifs_op *ops = NULL;
	size_t n = 0;
	int r;

	build_kernel(btf, &k);
	r = cifsops_resolve(ks, btf, fake_read, &k, &ops, &n);
	check(r == 0, "partial resolve = %d", r);
	check(k.reads == 1, "%u reads, want 1", k.reads);
	check(n == 1 && op_by_name(ops, n, "SUPER_OP_EVICT_INODE"), "partial resolve gave %zu ops", n);
	/* statfs points at cifs_statfs, absent from these symbols: skipped. */
	check(!op_by_name(ops, n, "SUPER_OP_STATFS"), "unknown pointer resolved");
	cifsops_free(ops, n);
	fake_free(&k);
	ksyms_free(ks);
}

static void test_no_tables(const struct btf *btf)
{
	struct ksyms *ks = load_ksyms("ffffffff81000000 T _stext\n"
				      "ffffffff81200000 T generic_file_llseek\n"
				      "ffffffffc0a00100 t cifs_unlink\t[cifs]\n"
				      "ffffffffc1001000 d cifs_file_ops\t[smb3_lookalike]\n");
	struct fake_kernel k;
	struct cifs_op *ops = (struct cifs_op *)1;
	size_t n = 99;
	int r;

	build_kernel(btf, &k);
	r = cifsops_resolve(ks, btf, fake_read, &k, &ops, &n);
	check(r == -ENOENT, "resolve without cifs tables = %d, want -ENOENT", r);
	check(!ops && n == 0, "ops %p n %zu after -ENOENT", (void *)ops, n);
	check(k.reads == 0, "%u reads without any table symbol", k.reads);
	fake_free(&k);
	ksyms_free(ks);
}

int main(void)
{
	struct btf *btf;

	test_op_name();

	btf = btf__load_vmlinux_btf();
	if (!btf) {
		fprintf(stderr, "no vmlinux BTF: %m\n");
		return EXIT_FAILURE;
	}
	test_known_names(btf);
	test_resolve(btf);
	test_partial(btf);
	test_no_tables(btf);
	btf__free(btf);

	return check_done("cifsops");
}
