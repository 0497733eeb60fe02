/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * One ELF object file as stacks need it, read through elfutils' libdwfl:
 * its functions from wherever libdwfl finds them (.symtab; a separate
 * debug file by build id under /usr/lib/debug/.build-id/ or by
 * .gnu_debuglink; MiniDebugInfo in .gnu_debugdata; .dynsym), looked up by
 * file offset, and its call frame information (.eh_frame, .debug_frame)
 * for the unwind tables cfi.c compiles. libdwfl never goes to the network
 * for debug files here (no debuginfod): the agent must not stall on one.
 *
 * Not thread safe.
 */
#pragma once

#include <stdint.h>

#include <elfutils/libdwfl.h>

struct objfile;

/*
 * Reads the ELF file open at fd (the caller keeps fd; the file stays
 * readable through a copy, also after privileges are dropped). path names
 * it; debug files are looked for under root (the directory the file's /
 * is, "" for the host's) and beside path. -ENOEXEC when fd holds no ELF
 * file with loadable segments.
 */
int objfile_open(int fd, const char *path, const char *root, struct objfile **ret);
void objfile_free(struct objfile *o);

const char *objfile_path(const struct objfile *o);

/*
 * The function covering file offset off, and how far into it off is;
 * -ENOENT when no function symbol does (*name untouched). *name stays
 * valid until objfile_free().
 */
int objfile_symbol(struct objfile *o, uint64_t off, const char **name, uint64_t *delta);

/*
 * The loadable segments with code, as file offsets and where the file's
 * own addresses put them: calls cb for each; stops at cb's first negative
 * return and returns it.
 */
int objfile_exec_segments(struct objfile *o,
			  int (*cb)(uint64_t offset, uint64_t vaddr, uint64_t size, void *userdata),
			  void *userdata);

/* The libdwfl module, its addresses the file's own (bias 0); for cfi.c. */
Dwfl_Module *objfile_module(struct objfile *o);
