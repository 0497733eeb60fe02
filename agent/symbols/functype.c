// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A user function's return type: libbpf reads BTF, libdw DWARF. The
 * function is found in DWARF by the address its code starts at (the
 * uprobe's place), so that a static function of the same name elsewhere
 * is not taken for it; in BTF, which has no addresses, by its name.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwelf.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include <bpf/btf.h>

#include "symbols/functype.h"

#define DEBUG_DIR "/usr/lib/debug/.build-id"

static void set(struct functype *t, enum functype_class cls, unsigned int size)
{
	t->cls = cls;
	t->size = size;
}

/* ---- BTF ---- */

static void btf_name(const struct btf *btf, uint32_t id, char *buf, size_t n)
{
	const struct btf_type *t = btf__type_by_id(btf, id);
	const char *name = t ? btf__name_by_offset(btf, t->name_off) : NULL;

	if (name && *name)
		snprintf(buf, n, "%s", name);
	else if (t && btf_is_ptr(t) && !t->type)
		snprintf(buf, n, "void *");
	else if (t && btf_is_ptr(t))
		snprintf(buf, n, "%s *",
			 btf__name_by_offset(btf, btf__type_by_id(btf, t->type)->name_off) ?: "?");
	else
		snprintf(buf, n, "?");
}

static int btf_ret(const char *path, const char *symbol, struct functype *ret)
{
	struct btf *btf = btf__parse_elf(path, NULL);
	const struct btf_type *fn, *proto, *t;
	int id;

	if (!btf)
		return -ENOENT;
	id = btf__find_by_name_kind(btf, symbol, BTF_KIND_FUNC);
	fn = id > 0 ? btf__type_by_id(btf, id) : NULL;
	proto = fn ? btf__type_by_id(btf, fn->type) : NULL;
	if (!proto || !btf_is_func_proto(proto)) {
		btf__free(btf);
		return -ENOENT;
	}
	ret->from = "BTF";
	if (!proto->type) {
		set(ret, FUNCTYPE_VOID, 0);
		snprintf(ret->name, sizeof(ret->name), "void");
		btf__free(btf);
		return 0;
	}
	btf_name(btf, proto->type, ret->name, sizeof(ret->name));
	id = btf__resolve_type(btf, proto->type);
	t = id > 0 ? btf__type_by_id(btf, id) : NULL;
	if (t && btf_is_ptr(t))
		set(ret, FUNCTYPE_POINTER, 8);
	else if (t && btf_is_int(t) && t->size <= 8)
		set(ret, (btf_int_encoding(t) & BTF_INT_SIGNED) ? FUNCTYPE_SIGNED : FUNCTYPE_UNSIGNED,
		    t->size);
	else if (t && (btf_is_enum(t) || btf_is_enum64(t)) && t->size <= 8)
		/* kind_flag: a signed enum */
		set(ret, btf_kflag(t) ? FUNCTYPE_SIGNED : FUNCTYPE_UNSIGNED, t->size);
	else
		set(ret, FUNCTYPE_OTHER, 0);
	btf__free(btf);
	return 0;
}

/* ---- DWARF ---- */

static void die_name(Dwarf_Die *t, char *buf, size_t n, int depth)
{
	const char *name = dwarf_diename(t);
	Dwarf_Attribute a;
	Dwarf_Die inner;
	char sub[48]; /* with "const " and " *" it fits a name */
	bool has_inner = dwarf_attr_integrate(t, DW_AT_type, &a) && dwarf_formref_die(&a, &inner);

	if (name) {
		snprintf(buf, n, "%s", name);
		return;
	}
	if (depth < 4 && has_inner)
		die_name(&inner, sub, sizeof(sub), depth + 1);
	else
		snprintf(sub, sizeof(sub), "void");
	switch (dwarf_tag(t)) {
	case DW_TAG_pointer_type:
		snprintf(buf, n, "%s *", sub);
		break;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
		snprintf(buf, n, "%s &", sub);
		break;
	case DW_TAG_const_type:
		snprintf(buf, n, "const %s", sub);
		break;
	case DW_TAG_volatile_type:
		snprintf(buf, n, "volatile %s", sub);
		break;
	default:
		snprintf(buf, n, "%s", has_inner ? sub : "?");
	}
}

/* A base type's (or an enum's underlying type's) class. */
static enum functype_class base_class(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word enc;

	if (!dwarf_attr_integrate(t, DW_AT_encoding, &a) || dwarf_formudata(&a, &enc) != 0)
		return FUNCTYPE_OTHER;
	switch (enc) {
	case DW_ATE_signed:
	case DW_ATE_signed_char:
	case DW_ATE_signed_fixed:
		return FUNCTYPE_SIGNED;
	case DW_ATE_unsigned:
	case DW_ATE_unsigned_char:
	case DW_ATE_boolean:
	case DW_ATE_UTF:
	case DW_ATE_unsigned_fixed:
		return FUNCTYPE_UNSIGNED;
	}
	return FUNCTYPE_OTHER;
}

static void dwarf_classify(Dwarf_Die *fn, struct functype *ret)
{
	Dwarf_Attribute a;
	Dwarf_Die type, peeled, under;
	int size;

	ret->from = "DWARF";
	if (!dwarf_attr_integrate(fn, DW_AT_type, &a)) {
		set(ret, FUNCTYPE_VOID, 0);
		snprintf(ret->name, sizeof(ret->name), "void");
		return;
	}
	set(ret, FUNCTYPE_OTHER, 0);
	snprintf(ret->name, sizeof(ret->name), "?");
	if (!dwarf_formref_die(&a, &type))
		return;
	die_name(&type, ret->name, sizeof(ret->name), 0);
	if (dwarf_peel_type(&type, &peeled) != 0)
		return;
	size = dwarf_bytesize(&peeled);
	switch (dwarf_tag(&peeled)) {
	case DW_TAG_pointer_type:
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		set(ret, FUNCTYPE_POINTER, 8);
		break;
	case DW_TAG_base_type:
		if (size > 0 && size <= 8)
			set(ret, base_class(&peeled), (unsigned int)size);
		break;
	case DW_TAG_enumeration_type:
		/* C's enums are int; an underlying type, where given, says more */
		if (size <= 0 || size > 8)
			break;
		set(ret, FUNCTYPE_SIGNED, (unsigned int)size);
		if (dwarf_attr_integrate(&peeled, DW_AT_type, &a) && dwarf_formref_die(&a, &under) &&
		    dwarf_peel_type(&under, &type) == 0 && dwarf_tag(&type) == DW_TAG_base_type)
			ret->cls = base_class(&type);
		break;
	}
	if (ret->cls == FUNCTYPE_OTHER)
		ret->size = 0;
}

struct find {
	Dwarf_Addr pc;
	Dwarf_Die die;
	bool found;
};

static int find_func(Dwarf_Die *die, void *arg)
{
	struct find *f = arg;
	Dwarf_Addr lo;

	if (dwarf_lowpc(die, &lo) == 0 && lo == f->pc) {
		f->die = *die;
		f->found = true;
		return DWARF_CB_ABORT;
	}
	return DWARF_CB_OK;
}

/* The function whose code starts at pc: in the units covering pc, else in any (no ranges given). */
static bool dwarf_func_at(Dwarf *dw, Dwarf_Addr pc, Dwarf_Die *out)
{
	struct find f = { .pc = pc };

	for (int pass = 0; pass < 2 && !f.found; pass++) {
		Dwarf_CU *cu = NULL;
		Dwarf_Die cudie;
		uint8_t unit_type;

		while (!f.found && dwarf_get_units(dw, cu, &cu, NULL, &unit_type, &cudie, NULL) == 0) {
			if (unit_type != DW_UT_compile && unit_type != DW_UT_partial)
				continue;
			/* the first pass where the unit says it covers pc, the second where it says nothing */
			if ((dwarf_haspc(&cudie, pc) > 0) != (pass == 0))
				continue;
			(void)dwarf_getfuncs(&cudie, find_func, &f, 0);
		}
	}
	if (f.found)
		*out = f.die;
	return f.found;
}

/* The file's own DWARF, else its debug file's (by build ID under root), with what to close after. */
static Dwarf *dwarf_of(Elf *e, const char *root, int *dfd, Elf **de)
{
	Dwarf *dw = dwarf_begin_elf(e, DWARF_C_READ, NULL);
	const unsigned char *id;
	char path[PATH_MAX];
	ssize_t len;
	size_t n;

	*dfd = -1;
	*de = NULL;
	if (dw)
		return dw;
	len = dwelf_elf_gnu_build_id(e, (const void **)&id);
	if (len < 2)
		return NULL;
	n = (size_t)snprintf(path, sizeof(path), "%s" DEBUG_DIR "/%02x/", root, id[0]);
	for (ssize_t i = 1; i < len && n + 3 < sizeof(path); i++)
		n += (size_t)snprintf(path + n, sizeof(path) - n, "%02x", id[i]);
	snprintf(path + n, sizeof(path) - n, ".debug");
	*dfd = open(path, O_RDONLY | O_CLOEXEC);
	if (*dfd < 0)
		return NULL;
	*de = elf_begin(*dfd, ELF_C_READ_MMAP, NULL);
	return *de ? dwarf_begin_elf(*de, DWARF_C_READ, NULL) : NULL;
}

/* The virtual address file offset off is loaded at. */
static int offset_vaddr(Elf *e, uint64_t off, uint64_t *vaddr)
{
	size_t n;

	if (elf_getphdrnum(e, &n) != 0)
		return -ENOEXEC;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD && off >= ph.p_offset &&
		    off - ph.p_offset < ph.p_filesz) {
			*vaddr = off - ph.p_offset + ph.p_vaddr;
			return 0;
		}
	}
	return -ENOENT;
}

static int dwarf_ret(int fd, const char *root, uint64_t offset, struct functype *ret)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL), *de = NULL;
	Dwarf *dw = NULL;
	Dwarf_Die fn;
	uint64_t pc;
	int dfd = -1, r;

	if (!e || elf_kind(e) != ELF_K_ELF) {
		r = -ENOEXEC;
		goto out;
	}
	r = offset_vaddr(e, offset, &pc);
	if (r < 0)
		goto out;
	dw = dwarf_of(e, root, &dfd, &de);
	r = dw && dwarf_func_at(dw, pc, &fn) ? 0 : -ENOENT;
	if (r == 0)
		dwarf_classify(&fn, ret);
out:
	dwarf_end(dw);
	elf_end(de);
	if (dfd >= 0)
		close(dfd);
	elf_end(e);
	return r;
}

/* Whether the ELF file has a section of that name (libbpf would say it has none on stderr). */
static bool has_section(int fd, const char *name)
{
	Elf *e = elf_begin(fd, ELF_C_READ_MMAP, NULL);
	Elf_Scn *scn = NULL;
	size_t shstrndx;
	bool found = false;

	if (e && elf_kind(e) == ELF_K_ELF && elf_getshdrstrndx(e, &shstrndx) == 0)
		while (!found && (scn = elf_nextscn(e, scn))) {
			GElf_Shdr sh;
			const char *n = gelf_getshdr(scn, &sh) ? elf_strptr(e, shstrndx, sh.sh_name) : NULL;

			found = n && strcmp(n, name) == 0;
		}
	elf_end(e);
	return found;
}

int functype_ret(const char *path, const char *root, const char *symbol, uint64_t offset,
		 struct functype *ret)
{
	int fd, r;

	*ret = (struct functype) {};
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	elf_version(EV_CURRENT);
	if (has_section(fd, ".BTF") && btf_ret(path, symbol, ret) == 0) {
		close(fd);
		return 0;
	}
	r = dwarf_ret(fd, root ? root : "", offset, ret);
	close(fd);
	return r;
}
