/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One ELF file's function symbols (.symtab, .dynsym, or the separate debug
 * file of a stripped one) and loadable segments: what turns a function name
 * into the offset a uprobe needs, with the dynamic linker's rules (exported
 * over local, symbol versions). Addresses into names: objfile.h.
 *
 * Named elffile.h, not elf.h: the agent directory is on the include path,
 * and libelf.h includes the system <elf.h>.
 *
 * elf_version() must have been called before elf_file_new().
 */
#pragma once

#include <stdint.h>

struct elf_file;

/*
 * Reads the ELF file open at fd (which the caller keeps). root is the
 * directory the file's / is, to find its debug file under; "" for the
 * host's. -ENOEXEC when fd is no ELF file or has no loadable segment.
 */
int elf_file_new(int fd, const char *root, struct elf_file **ret);
void elf_file_free(struct elf_file *f);

/*
 * File offset of the function named symbol, the default version for a plain
 * name as the dynamic linker binds it. Exported functions win over local ones;
 * -ENOTUNIQ when several of the winning kind sit at different addresses,
 * -ENOENT when there is none.
 */
int elf_file_resolve(const struct elf_file *f, const char *symbol, uint64_t *ret);

/*
 * Calls cb for each exported function (not local, default version) whose
 * name starts with prefix, in address order, with its file offset. Stops at
 * the first negative cb return and returns it; else the count of calls.
 */
int elf_file_functions(const struct elf_file *f, const char *prefix,
		       int (*cb)(const char *name, uint64_t offset, void *userdata), void *userdata);

/*
 * The DT_NEEDED names (NULL-terminated, NULL when none) and the search path
 * (DT_RUNPATH, else DT_RPATH; NULL when none) of the ELF file open at fd.
 * Both are malloc'd. -ENOEXEC when fd is no ELF file.
 */
int elf_file_needed(int fd, char ***ret_needed, char **ret_runpath);

/* The program interpreter (PT_INTERP: the dynamic linker) the ELF file open at fd names; -ENOENT when none. */
int elf_file_interp(int fd, char **ret);

/*
 * The name of the first version the ELF file open at fd defines for its
 * symbols, past the file's own (VER_FLG_BASE): the ABI tag a library's
 * exports carry ("SAMBA_4.17.12_DEBIAN_SAMBA4"). -ENOENT when it defines none.
 */
int elf_file_version_def(int fd, char **ret);
