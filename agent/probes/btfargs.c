// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/btf.h>
#include <linux/btf.h>

#include "base/profile.h"
#include "probes/btfargs.h"
#include "base/macro.h"
#include "base/clock.h"

#define BTFS_MAX 16

/*
 * Function names of one BTF, by open addressing: libbpf's
 * btf__find_by_name_kind() walks every type of vmlinux (100k and more) per
 * call, which at a few dozen functions is most of a start-up under
 * emulation. Built on the first look-up, one pass.
 */
struct func_index {
	uint32_t *slot; /* type ids, 0: empty */
	size_t mask;
	bool built;
};

struct btfs {
	struct btf *vmlinux;
	bool vmlinux_tried;
	struct func_index vmlinux_funcs;
	struct {
		char *module;
		struct btf *btf;
		struct func_index funcs; /* the module's own types only */
	} mod[BTFS_MAX];
	unsigned int n;
};

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;

	while (*s)
		h = (h ^ (unsigned char)*s++) * 16777619u;
	return h;
}

/* Indexes the FUNC types of btf from id `from` on. */
static void index_build(struct func_index *x, const struct btf *btf, uint32_t from)
{
	uint32_t n = btf__type_cnt(btf), count = 0;
	size_t size = 16;

	x->built = true;
	for (uint32_t id = from; id < n; id++)
		count += btf_is_func(btf__type_by_id(btf, id));
	while (size < 2 * (size_t)count)
		size *= 2;
	x->slot = calloc(size, sizeof(*x->slot));
	if (!x->slot)
		return; /* look-ups fall back to libbpf's walk */
	x->mask = size - 1;
	for (uint32_t id = from; id < n; id++) {
		const struct btf_type *t = btf__type_by_id(btf, id);
		size_t i;

		if (!btf_is_func(t))
			continue;
		for (i = name_hash(btf__name_by_offset(btf, t->name_off)) & x->mask; x->slot[i];
		     i = (i + 1) & x->mask)
			;
		x->slot[i] = id;
	}
}

/* The id of FUNC name in btf, or -ENOENT; the first one as libbpf's walk would find. */
static int index_find(struct func_index *x, const struct btf *btf, uint32_t from, const char *name)
{
	int best = -ENOENT;

	if (!x->built)
		index_build(x, btf, from);
	if (!x->slot) {
		int id = btf__find_by_name_kind(btf, name, BTF_KIND_FUNC);

		return id >= (int)from ? id : -ENOENT;
	}
	for (size_t i = name_hash(name) & x->mask; x->slot[i]; i = (i + 1) & x->mask) {
		const struct btf_type *t = btf__type_by_id(btf, x->slot[i]);

		if (strcmp(btf__name_by_offset(btf, t->name_off), name) == 0 &&
		    (best < 0 || x->slot[i] < (uint32_t)best))
			best = (int)x->slot[i];
	}
	return best;
}

static void index_free(struct func_index *x)
{
	free(x->slot);
	*x = (struct func_index) {};
}

int btfs_new(struct btfs **ret)
{
	*ret = calloc(1, sizeof(**ret));
	return *ret ? 0 : -ENOMEM;
}

void btfs_free(struct btfs *b)
{
	if (!b)
		return;
	for (unsigned int i = 0; i < b->n; i++) {
		btf__free(b->mod[i].btf);
		free(b->mod[i].module);
		index_free(&b->mod[i].funcs);
	}
	btf__free(b->vmlinux);
	index_free(&b->vmlinux_funcs);
	free(b);
}

struct btf *btfs_get(struct btfs *b, const char *module)
{
	struct btf *btf;
	uint64_t t0;

	if (!b->vmlinux_tried) {
		t0 = now_ns();
		b->vmlinux_tried = true;
		b->vmlinux = btf__load_vmlinux_btf();
		if (!b->vmlinux)
			b->vmlinux = NULL;
		prof_add(PROF_BTF, t0);
	}
	if (!module || !b->vmlinux)
		return b->vmlinux;
	for (unsigned int i = 0; i < b->n; i++)
		if (strcmp(b->mod[i].module, module) == 0)
			return b->mod[i].btf;
	if (b->n == BTFS_MAX)
		return NULL;
	/* Cached even when missing, so a kernel without module BTF costs one try. */
	t0 = now_ns();
	btf = btf__load_module_btf(module, b->vmlinux);
	prof_add(PROF_BTF, t0);
	b->mod[b->n].module = strdup(module);
	b->mod[b->n].btf = btf;
	if (!b->mod[b->n].module) {
		btf__free(btf);
		return NULL;
	}
	b->n++;
	return btf;
}

bool btfs_trim(struct btfs *b)
{
	bool any = b->vmlinux || b->n;

	for (unsigned int i = 0; i < b->n; i++) {
		btf__free(b->mod[i].btf);
		free(b->mod[i].module);
		index_free(&b->mod[i].funcs);
	}
	b->n = 0;
	btf__free(b->vmlinux);
	b->vmlinux = NULL;
	b->vmlinux_tried = false;
	index_free(&b->vmlinux_funcs);
	return any;
}

void btfs_forget(struct btfs *b, const char *module)
{
	for (unsigned int i = 0; i < b->n; i++)
		if (strcmp(b->mod[i].module, module) == 0) {
			btf__free(b->mod[i].btf);
			free(b->mod[i].module);
			index_free(&b->mod[i].funcs);
			b->mod[i] = b->mod[--b->n];
			return;
		}
}

int btfs_func(struct btfs *b, const char *module, const char *name, const struct btf **ret)
{
	struct btf *btf = btfs_get(b, module);
	int id;

	*ret = btf;
	if (!btf)
		return -ENOENT;
	if (!module)
		return index_find(&b->vmlinux_funcs, btf, 1, name);
	for (unsigned int i = 0; i < b->n; i++)
		if (b->mod[i].btf == btf) {
			/* the module's own function first, then one of vmlinux, as libbpf does */
			id = index_find(&b->mod[i].funcs, btf, btf__type_cnt(b->vmlinux), name);
			return id >= 0 ? id : index_find(&b->vmlinux_funcs, b->vmlinux, 1, name);
		}
	return -ENOENT;
}

int btfs_module_fd(struct btfs *b, const char *module)
{
	uint32_t id = 0;

	while (bpf_btf_get_next_id(id, &id) == 0) {
		char name[64] = "";
		struct bpf_btf_info info = {
			.name = (uintptr_t)name,
			.name_len = sizeof(name),
		};
		uint32_t len = sizeof(info);
		int fd = bpf_btf_get_fd_by_id(id);

		if (fd < 0)
			continue;
		if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0 && info.kernel_btf &&
		    strcmp(name, module) == 0)
			return fd;
		close(fd);
	}
	return -ENOENT;
}

static const struct btf_type *skip_mods(const struct btf *btf, uint32_t *id)
{
	const struct btf_type *t = btf__type_by_id(btf, *id);

	while (t && (btf_is_mod(t) || btf_is_typedef(t))) {
		*id = t->type;
		t = btf__type_by_id(btf, *id);
	}
	return t;
}

static const struct {
	const char *name;
	enum arg_kind kind;
} struct_kinds[] = {
	{ "inode", AK_INODE },           { "dentry", AK_DENTRY },      { "file", AK_FILE },
	{ "super_block", AK_SB },        { "folio", AK_FOLIO },        { "page", AK_PAGE },
	{ "address_space", AK_MAPPING }, { "kiocb", AK_KIOCB },        { "path", AK_PATH },
	{ "readahead_control", AK_RAC }, { "vm_area_struct", AK_VMA },
};

enum arg_kind btfargs_kind(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t = skip_mods(btf, &type_id);
	const char *name;

	if (!t || !btf_is_ptr(t))
		return AK_NONE;
	type_id = t->type;
	t = skip_mods(btf, &type_id);
	if (!t || !(btf_is_struct(t) || btf_is_fwd(t)))
		return AK_NONE;
	name = btf__name_by_offset(btf, t->name_off);
	for (size_t i = 0; name && i < ELEMENTSOF(struct_kinds); i++)
		if (strcmp(name, struct_kinds[i].name) == 0)
			return struct_kinds[i].kind;
	return AK_NONE;
}

static enum ret_kind ret_kind(const struct btf *btf, uint32_t type_id)
{
	const struct btf_type *t;

	if (type_id == 0)
		return RK_VOID;
	t = skip_mods(btf, &type_id);
	if (!t)
		return RK_UINT;
	if (btf_is_ptr(t))
		return RK_PTR;
	if (btf_is_int(t) && (btf_int_encoding(t) & BTF_INT_SIGNED))
		return t->size == 8 ? RK_LONG : RK_INT;
	return RK_UINT;
}

static bool has_name(enum arg_kind k)
{
	return k == AK_DENTRY || k == AK_FILE || k == AK_PATH || k == AK_KIOCB || k == AK_VMA;
}

int btfargs_fill(const struct btf *btf, const char *func, struct func_cfg *cfg, unsigned int *nparams)
{
	if (!btf)
		return -ENOENT; /* a kernel, or a module, without BTF */
	return btfargs_fill_id(btf, btf__find_by_name_kind(btf, func, BTF_KIND_FUNC), cfg, nparams);
}

int btfs_fill(struct btfs *b, const char *module, const char *func, struct func_cfg *cfg)
{
	const struct btf *btf;
	int id = btfs_func(b, module, func, &btf);

	return btfargs_fill_id(btf, id, cfg, NULL);
}

int btfargs_fill_id(const struct btf *btf, int id, struct func_cfg *cfg, unsigned int *nparams)
{
	const struct btf_type *fn;

	if (!btf || id < 0)
		return -ENOENT;
	fn = btf__type_by_id(btf, id);
	if (!fn || !btf_is_func(fn))
		return -ENOENT;
	return btfargs_fill_proto(btf, fn->type, cfg, nparams);
}

int btfargs_fill_proto(const struct btf *btf, uint32_t proto_id, struct func_cfg *cfg, unsigned int *nparams)
{
	const struct btf_type *proto = btf ? btf__type_by_id(btf, proto_id) : NULL;
	const struct btf_param *p;
	unsigned int n;

	if (!proto || !btf_is_func_proto(proto))
		return -EINVAL;
	p = btf_params(proto);
	n = btf_vlen(proto);
	cfg->sb_kind = AK_NONE;
	cfg->name_kind = AK_NONE;
	for (unsigned int i = 0; i < n && i < SMBLAT_MAX_ARGS; i++) {
		enum arg_kind k = btfargs_kind(btf, p[i].type);

		if (k == AK_NONE)
			continue;
		if (cfg->sb_kind == AK_NONE) {
			cfg->sb_kind = k;
			cfg->sb_arg = i;
		}
		if (cfg->name_kind == AK_NONE && has_name(k)) {
			cfg->name_kind = k;
			cfg->name_arg = i;
		}
	}
	cfg->ret_kind = ret_kind(btf, proto->type);
	if (nparams)
		*nparams = n;
	return 0;
}
