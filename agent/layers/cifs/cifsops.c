// SPDX-License-Identifier: LGPL-2.1-or-later
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/btf.h>

#include "layers/cifs/cifsops.h"
#include "base/macro.h"

#define CIFS_MODULE "cifs"

static const struct {
	const char *symbol;
	const char *type; /* vmlinux struct describing it */
	enum op_group group;
	bool dir;
} tables[] = {
	{ "cifs_dir_inode_ops", "inode_operations", GROUP_INODE },
	{ "cifs_file_inode_ops", "inode_operations", GROUP_INODE },
	{ "cifs_symlink_inode_ops", "inode_operations", GROUP_INODE },
	{ "cifs_namespace_inode_operations", "inode_operations", GROUP_INODE },
	{ "cifs_file_ops", "file_operations", GROUP_FILE },
	{ "cifs_file_strict_ops", "file_operations", GROUP_FILE },
	{ "cifs_file_direct_ops", "file_operations", GROUP_FILE },
	{ "cifs_file_nobrl_ops", "file_operations", GROUP_FILE },
	{ "cifs_file_strict_nobrl_ops", "file_operations", GROUP_FILE },
	{ "cifs_file_direct_nobrl_ops", "file_operations", GROUP_FILE },
	{ "cifs_dir_ops", "file_operations", GROUP_FILE, true },
	{ "cifs_addr_ops", "address_space_operations", GROUP_ADSPACE },
	{ "cifs_addr_ops_smallbuf", "address_space_operations", GROUP_ADSPACE },
	{ "cifs_super_ops", "super_operations", GROUP_SUPER },
};

const char *const cifsops_known[] = {
	"INODE_OP_CREATE",
	"INODE_OP_LOOKUP",
	"INODE_OP_LINK",
	"INODE_OP_UNLINK",
	"INODE_OP_SYMLINK",
	"INODE_OP_MKDIR",
	"INODE_OP_RMDIR",
	"INODE_OP_MKNOD",
	"INODE_OP_RENAME2",
	"INODE_OP_PERMISSION",
	"INODE_OP_SETATTR",
	"INODE_OP_GETATTR",
	"INODE_OP_LISTXATTR",
	"INODE_OP_ATOMIC_OPEN",
	"INODE_OP_GET_LINK",
	"FILE_OPEN",
	"FILE_CLOSE",
	"FILE_FLUSH",
	"FILE_READ_ITER",
	"FILE_WRITE_ITER",
	"FILE_FSYNC",
	"FILE_LLSEEK",
	"FILE_MMAP",
	"FILE_LOCK",
	"FILE_FLOCK",
	"FILE_READDIR",
	"FILE_CLOSEDIR",
	"FILE_SPLICE_READ",
	"FILE_SPLICE_WRITE",
	"FILE_UNLOCKED_IOCTL",
	"FILE_COPY_FILE_RANGE",
	"FILE_FALLOCATE",
	"FILE_SETLEASE",
	"ADSPACE_OP_READ_FOLIO",
	"ADSPACE_OP_READAHEAD",
	"ADSPACE_OP_WRITEPAGES",
	"ADSPACE_OP_WRITE_BEGIN",
	"ADSPACE_OP_WRITE_END",
	"ADSPACE_OP_DIRTY_FOLIO",
	"ADSPACE_OP_RELEASE_FOLIO",
	"ADSPACE_OP_INVALIDATE_FOLIO",
	"ADSPACE_OP_LAUNDER_FOLIO",
	"ADSPACE_OP_DIRECT_IO",
	"SUPER_OP_ALLOC_INODE",
	"SUPER_OP_FREE_INODE",
	"SUPER_OP_WRITE_INODE",
	"SUPER_OP_DROP_INODE",
	"SUPER_OP_EVICT_INODE",
	"SUPER_OP_STATFS",
	"SUPER_OP_UMOUNT_BEGIN",
	"SUPER_OP_SHOW_OPTIONS",
	"SUPER_OP_SHOW_DEVNAME",
	NULL,
};

static const char *group_prefix(enum op_group g)
{
	switch (g) {
	case GROUP_INODE:
		return "INODE_OP_";
	case GROUP_FILE:
		return "FILE_";
	case GROUP_ADSPACE:
		return "ADSPACE_OP_";
	case GROUP_SUPER:
		return "SUPER_OP_";
	default:
		return NULL;
	}
}

enum op_group cifsops_name_group(const char *name)
{
	for (enum op_group g = GROUP_NONE + 1; g < _GROUP_MAX; g++)
		if (strncmp(name, group_prefix(g), strlen(group_prefix(g))) == 0)
			return g;
	return GROUP_NONE;
}

/* Members whose operator-facing name differs from the struct member. */
static const char *member_alias(enum op_group g, const char *member, bool dir)
{
	if (g == GROUP_INODE && strcmp(member, "rename") == 0)
		return "RENAME2";
	if (g != GROUP_FILE)
		return NULL;
	if (strcmp(member, "iterate") == 0 || strcmp(member, "iterate_shared") == 0)
		return "READDIR";
	if (strcmp(member, "release") == 0)
		return dir ? "CLOSEDIR" : "CLOSE";
	if (dir && strcmp(member, "open") == 0)
		return "OPENDIR";
	return NULL;
}

int cifsops_op_name(enum op_group g, const char *member, bool dir, char *buf, size_t len)
{
	const char *prefix = group_prefix(g), *alias;
	size_t n;

	if (!prefix || !member || !*member)
		return -EINVAL;
	alias = member_alias(g, member, dir);
	n = snprintf(buf, len, "%s%s", prefix, alias ?: member);
	if (n >= len)
		return -ENAMETOOLONG;
	for (char *p = buf; *p; p++)
		*p = toupper((unsigned char)*p);
	return 0;
}

static int ops_add(struct cifs_op **ops, size_t *n, const char *name, const struct ksym *ks, enum op_group g,
		   uint32_t proto)
{
	struct cifs_op *v;

	for (size_t i = 0; i < *n; i++)
		if (strcmp((*ops)[i].symbol, ks->name) == 0)
			return 0; /* one function, one FUNCTION: the first table wins */
	v = realloc(*ops, (*n + 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	*ops = v;
	v[*n] = (struct cifs_op) {
		.name = strdup(name),
		.symbol = strdup(ks->name),
		.module = ks->module ? strdup(ks->module) : NULL,
		.group = g,
		.generic = !ks->module || strcmp(ks->module, CIFS_MODULE) != 0,
		.proto = proto,
	};
	if (!v[*n].name || !v[*n].symbol || (ks->module && !v[*n].module))
		return -ENOMEM;
	(*n)++;
	return 0;
}

/* The prototype a function pointer member points to, or 0. */
static uint32_t member_proto(const struct btf *btf, const struct btf_member *m)
{
	const struct btf_type *t = btf__type_by_id(btf, m->type);

	while (t && (btf_is_mod(t) || btf_is_typedef(t)))
		t = btf__type_by_id(btf, t->type);
	if (!t || !btf_is_ptr(t))
		return 0;
	return btf_is_func_proto(btf__type_by_id(btf, t->type)) ? t->type : 0;
}

static int table_read(const struct ksyms *ks, const struct btf *btf, kread_fn rd, void *rdctx, size_t ti,
		      struct cifs_op **ops, size_t *n)
{
	const struct ksym *sym = ksyms_lookup(ks, tables[ti].symbol, CIFS_MODULE);
	const struct btf_type *t;
	const struct btf_member *m;
	uint8_t buf[4096];
	int id, r;

	if (!sym)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, tables[ti].type, BTF_KIND_STRUCT);
	if (id < 0)
		return -ENOENT;
	t = btf__type_by_id(btf, id);
	if (t->size > sizeof(buf) - 1)
		return -E2BIG;
	r = rd(rdctx, sym->addr, buf, t->size);
	if (r < 0)
		return r;
	m = btf_members(t);
	for (unsigned int i = 0; i < btf_vlen(t); i++, m++) {
		uint32_t off = btf_member_bit_offset(t, i) / 8;
		const struct ksym *fn;
		uint32_t proto = member_proto(btf, m);
		uint64_t ptr, delta;
		char name[SMBLAT_NAME_LEN];

		if (!proto || off + sizeof(ptr) > t->size)
			continue;
		memcpy(&ptr, buf + off, sizeof(ptr));
		if (!ptr)
			continue;
		fn = ksyms_find(ks, ptr, &delta);
		if (!fn || delta != 0)
			continue;
		if (cifsops_op_name(tables[ti].group, btf__name_by_offset(btf, m->name_off), tables[ti].dir,
				    name, sizeof(name)) < 0)
			continue;
		r = ops_add(ops, n, name, fn, tables[ti].group, proto);
		if (r < 0)
			return r;
	}
	return 0;
}

int cifsops_resolve(const struct ksyms *ks, const struct btf *vmlinux, kread_fn rd, void *rdctx,
		    struct cifs_op **ops, size_t *n)
{
	size_t found = 0;
	int r;

	*ops = NULL;
	*n = 0;
	for (size_t i = 0; i < ELEMENTSOF(tables); i++) {
		r = table_read(ks, vmlinux, rd, rdctx, i, ops, n);
		if (r == -ENOENT)
			continue;
		if (r < 0) {
			cifsops_free(*ops, *n);
			*ops = NULL;
			*n = 0;
			return r;
		}
		found++;
	}
	return found ? 0 : -ENOENT;
}

void cifsops_free(struct cifs_op *ops, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		free(ops[i].name);
		free(ops[i].symbol);
		free(ops[i].module);
	}
	free(ops);
}
