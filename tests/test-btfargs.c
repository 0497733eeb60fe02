/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * btfargs against this host's vmlinux BTF: which argument leads to the
 * super_block and to a name, and what kind of value a function returns.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <bpf/btf.h>
#include <linux/btf.h>

#include "probes/btfargs.h"

#include "check.h"

/* A func_cfg full of values btfargs_fill must overwrite. */
static struct func_cfg junk_cfg(void)
{
	struct func_cfg c;

	memset(&c, 0, sizeof(c));
	c.threshold_ns = 12345;
	c.flags = FF_ENABLED | FF_KSTACK;
	c.sb_arg = 5;
	c.sb_kind = AK_VMA;
	c.name_arg = 5;
	c.name_kind = AK_VMA;
	c.nargs = 3;
	c.ret_kind = RK_UINT;
	return c;
}

/*
 * sb_arg/name_arg are only compared when their kind is not AK_NONE; -1 for
 * nparams: not checked.
 */
static void check_fill(const struct btf *btf, const char *func, unsigned int sb_arg, enum arg_kind sb_kind,
		       unsigned int name_arg, enum arg_kind name_kind, enum ret_kind rk, int nparams)
{
	struct func_cfg c = junk_cfg();
	unsigned int n = 999;
	int r;

	r = btfargs_fill(btf, func, &c, &n);
	check(r == 0, "btfargs_fill(%s) = %d (%s)", func, r, strerror(-r));
	if (r < 0)
		return;
	printf("  %-22s sb %u/%u name %u/%u ret %u params %u\n", func, c.sb_arg, c.sb_kind, c.name_arg,
	       c.name_kind, c.ret_kind, n);
	check(c.sb_kind == sb_kind, "%s: sb_kind %u, want %u", func, c.sb_kind, sb_kind);
	if (sb_kind != AK_NONE)
		check(c.sb_arg == sb_arg, "%s: sb_arg %u, want %u", func, c.sb_arg, sb_arg);
	check(c.name_kind == name_kind, "%s: name_kind %u, want %u", func, c.name_kind, name_kind);
	if (name_kind != AK_NONE)
		check(c.name_arg == name_arg, "%s: name_arg %u, want %u", func, c.name_arg, name_arg);
	check(c.ret_kind == rk, "%s: ret_kind %u, want %u", func, c.ret_kind, rk);
	if (nparams >= 0)
		check(n == (unsigned int)nparams, "%s: %u params, want %d", func, n, nparams);
	/* What the caller owns stays as it was. */
	check(c.threshold_ns == 12345 && c.flags == (FF_ENABLED | FF_KSTACK) && c.nargs == 3,
	      "%s: fill changed threshold/flags/nargs", func);
}

/* Type id of parameter idx of func, or exits: the host kernel lacks what the test needs. */
static uint32_t param_type(const struct btf *btf, const char *func, unsigned int idx)
{
	int id = btf__find_by_name_kind(btf, func, BTF_KIND_FUNC);
	const struct btf_type *proto;

	if (id < 0) {
		fprintf(stderr, "vmlinux BTF has no function %s\n", func);
		exit(EXIT_FAILURE);
	}
	proto = btf__type_by_id(btf, btf__type_by_id(btf, id)->type);
	if (!proto || !btf_is_func_proto(proto) || idx >= btf_vlen(proto)) {
		fprintf(stderr, "%s has no parameter %u\n", func, idx);
		exit(EXIT_FAILURE);
	}
	return btf_params(proto)[idx].type;
}

static void check_kind(const struct btf *btf, const char *func, unsigned int idx, enum arg_kind want)
{
	enum arg_kind k = btfargs_kind(btf, param_type(btf, func, idx));

	check(k == want, "btfargs_kind(%s arg %u) = %u, want %u", func, idx, k, want);
}

static void test_kind(const struct btf *btf)
{
	int id;

	/* Non-pointers and pointers to what is no VFS object. */
	check_kind(btf, "vfs_read", 2, AK_NONE);   /* size_t: typedef of an integer */
	check_kind(btf, "vfs_fsync", 1, AK_NONE);  /* int */
	check_kind(btf, "vfs_read", 1, AK_NONE);   /* char * */
	check_kind(btf, "vfs_read", 3, AK_NONE);   /* loff_t * */
	check_kind(btf, "vfs_unlink", 0, AK_NONE); /* struct mnt_idmap * */
	check_kind(btf, "vfs_unlink", 3, AK_NONE); /* struct inode **: not an inode */
	check(btfargs_kind(btf, 0) == AK_NONE, "void is AK_NONE");
	check(btfargs_kind(btf, 0x7fffffff) == AK_NONE, "a type id out of range is AK_NONE");

	/* A struct itself, not a pointer to it. */
	id = btf__find_by_name_kind(btf, "inode", BTF_KIND_STRUCT);
	check(id > 0 && btfargs_kind(btf, id) == AK_NONE, "struct inode (not a pointer) is %u",
	      id > 0 ? btfargs_kind(btf, id) : 99);

	/* Each kind from a real prototype. */
	check_kind(btf, "vfs_unlink", 1, AK_INODE);
	check_kind(btf, "vfs_unlink", 2, AK_DENTRY);
	check_kind(btf, "vfs_read", 0, AK_FILE);
	check_kind(btf, "filemap_read_folio", 2, AK_FOLIO);
	check_kind(btf, "generic_file_read_iter", 0, AK_KIOCB);
	check_kind(btf, "vfs_getattr", 0, AK_PATH); /* const struct path *: through const */
	check_kind(btf, "readahead_expand", 0, AK_RAC);
	check_kind(btf, "iput", 0, AK_INODE);
}

static void test_fill(const struct btf *btf)
{
	struct func_cfg c;
	unsigned int n;
	int r;

	/* int vfs_unlink(struct mnt_idmap *, struct inode *dir, struct dentry *, struct inode **) */
	check_fill(btf, "vfs_unlink", 1, AK_INODE, 2, AK_DENTRY, RK_INT, 4);
	/* ssize_t vfs_read(struct file *, char *, size_t, loff_t *) */
	check_fill(btf, "vfs_read", 0, AK_FILE, 0, AK_FILE, RK_LONG, 4);
	/* int filemap_read_folio(struct file *, filler_t, struct folio *): the file comes first */
	check_fill(btf, "filemap_read_folio", 0, AK_FILE, 0, AK_FILE, RK_INT, 3);
	/* void folio_mark_accessed(struct folio *): a folio has a superblock, not a name */
	check_fill(btf, "folio_mark_accessed", 0, AK_FOLIO, 0, AK_NONE, RK_VOID, 1);
	/* bool folio_mark_dirty(struct folio *): unsigned, never an error */
	check_fill(btf, "folio_mark_dirty", 0, AK_FOLIO, 0, AK_NONE, RK_UINT, 1);
	/* struct dentry *d_alloc(struct dentry *, const struct qstr *) */
	check_fill(btf, "d_alloc", 0, AK_DENTRY, 0, AK_DENTRY, RK_PTR, 2);
	/* void iput(struct inode *) */
	check_fill(btf, "iput", 0, AK_INODE, 0, AK_NONE, RK_VOID, 1);
	/* ssize_t generic_file_read_iter(struct kiocb *, struct iov_iter *) */
	check_fill(btf, "generic_file_read_iter", 0, AK_KIOCB, 0, AK_KIOCB, RK_LONG, 2);
	/* int vfs_getattr(const struct path *, struct kstat *, u32, unsigned int) */
	check_fill(btf, "vfs_getattr", 0, AK_PATH, 0, AK_PATH, RK_INT, 4);
	/* void readahead_expand(struct readahead_control *, loff_t, size_t) */
	check_fill(btf, "readahead_expand", 0, AK_RAC, 0, AK_NONE, RK_VOID, 3);
	/* int vfs_rename(struct renamedata *): nothing to follow; junk kinds reset */
	check_fill(btf, "vfs_rename", 0, AK_NONE, 0, AK_NONE, RK_INT, 1);
	/* vm_fault_t filemap_fault(struct vm_fault *): typedef'd unsigned int */
	check_fill(btf, "filemap_fault", 0, AK_NONE, 0, AK_NONE, RK_UINT, 1);

	/* Missing function: -ENOENT, cfg untouched. */
	c = junk_cfg();
	n = 999;
	r = btfargs_fill(btf, "smblat_no_such_function", &c, &n);
	check(r == -ENOENT, "btfargs_fill(missing) = %d, want -ENOENT", r);
	check(c.sb_kind == AK_VMA && c.ret_kind == RK_UINT && n == 999,
	      "btfargs_fill(missing) changed its outputs");
	/* A struct of that name is no function either. */
	r = btfargs_fill(btf, "inode", &c, NULL);
	check(r == -ENOENT, "btfargs_fill(struct name) = %d, want -ENOENT", r);

	/* nparams may be NULL. */
	c = junk_cfg();
	r = btfargs_fill(btf, "vfs_unlink", &c, NULL);
	check(r == 0 && c.sb_kind == AK_INODE, "btfargs_fill(NULL nparams) = %d", r);
}

/* The index answers as libbpf's walk over every type does, for every function. */
static void test_index(struct btfs *b, const struct btf *btf)
{
	uint32_t n = btf__type_cnt(btf), checked = 0;
	const struct btf *got;

	for (uint32_t id = 1; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		const char *name;
		int want, have;

		if (!btf_is_func(t))
			continue;
		name = btf__name_by_offset(btf, t->name_off);
		want = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);
		have = btfs_func(b, NULL, name, &got);
		check(have == want && got == btf, "btfs_func(%s) = %d, libbpf %d", name, have, want);
		if (have != want && ++checked > 5)
			return;
		/* the walk is slow: every function once costs minutes, a sample says as much */
		id += 37;
	}
	check(btfs_func(b, NULL, "smblat_no_such_function", &got) == -ENOENT, "missing function found");
	check(btfs_func(b, NULL, "inode", &got) == -ENOENT, "a struct name found as a function");
}

int main(void)
{
	struct btfs *b = NULL;
	struct btf *btf;
	int r;

	r = btfs_new(&b);
	if (r < 0) {
		fprintf(stderr, "btfs_new: %s\n", strerror(-r));
		return EXIT_FAILURE;
	}
	btf = btfs_get(b, NULL);
	if (!btf) {
		fprintf(stderr, "no vmlinux BTF\n");
		return EXIT_FAILURE;
	}
	check(btfs_get(b, NULL) == btf, "vmlinux BTF loaded twice");

	test_kind(btf);
	test_fill(btf);
	test_index(b, btf);
	btfs_free(b);

	return check_done("btfargs");
}
