/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a user function returns, from the type information its ELF file
 * carries: BTF (a .BTF section), else DWARF (the file's own, or the
 * separate debug file of a stripped one, by build ID, as -dbgsym packages
 * install it). It decides how RETVAL reads and what errors= calls a
 * failure; without it the value is shown as the register holds it and a
 * failure needs a convention (errors = negative, minus1, null).
 */
#pragma once

#include <stdint.h>

enum functype_class {
	FUNCTYPE_VOID,     /* no value: void */
	FUNCTYPE_SIGNED,   /* a signed integer or enum */
	FUNCTYPE_UNSIGNED, /* an unsigned integer, a bool, a character */
	FUNCTYPE_POINTER,  /* a pointer or reference */
	FUNCTYPE_OTHER,    /* not in the integer register: floating point, a struct */
};

struct functype {
	enum functype_class cls;
	unsigned int size; /* bytes of an integer */
	char name[64];     /* the type as declared: "ssize_t", "long int", "char *" */
	const char *from;  /* "BTF" or "DWARF" */
};

/*
 * The return type of the function symbol whose code starts at file offset
 * offset of the ELF file path (a uprobe's place); root is the directory
 * the file's / is ("" for the host's), where its debug file is looked for.
 * -ENOENT when the file has no type information of it, -ENOEXEC when path
 * is no ELF file.
 */
int functype_ret(const char *path, const char *root, const char *symbol, uint64_t offset,
		 struct functype *ret);
