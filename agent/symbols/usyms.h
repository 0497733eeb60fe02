/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * User-space symbols: addresses of a process turned into function+offset of
 * the ELF file mapped there, read through /proc/PID/root so that processes
 * in other mount namespaces resolve against their own files.
 *
 * Parsed ELF files are shared by every process mapping them (keyed by device
 * and inode); each process's executable mappings are cached, bounded, and
 * re-read when the pid was reused or an address falls outside them (dlopen).
 *
 * Not thread safe.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct usyms;

struct usym {
	const char *name;      /* NULL when no symbol covers the address */
	uint64_t offset;       /* from name, else from file_name's start */
	const char *path;      /* mapped file as the process names it, NULL if none */
	const char *file_name; /* a frame told by its file, no symbol there: "[libc.so.6]", else NULL */
};

struct objfile;

int usyms_new(struct usyms **ret);
void usyms_free(struct usyms *u);

/*
 * Frames told by their file (bpf/ustack.h: UFRAME_IN_FILE) are looked up in
 * the file of their index, which the probes name in a note (the kernel's
 * dev_t and inode number, and its path; opened when a frame needs it) or
 * the agent opened itself at index (fd is copied: readable after the drop).
 */
int usyms_file_note(struct usyms *u, uint32_t index, uint32_t kdev, uint64_t ino, const char *path);
int usyms_file_set(struct usyms *u, uint32_t index, int fd, const char *path);
bool usyms_file_known(const struct usyms *u, uint32_t index);
/* The file of index, read (opened at the first call); NULL when unknown or unreadable. */
struct objfile *usyms_file_obj(struct usyms *u, uint32_t index);

/*
 * What is at addr in pid, addr a raw address or a frame told by its file.
 * The strings stay valid until the next call on u.
 * 0 with name set; -ENOENT when no symbol covers addr (path may still be
 * set); -ESRCH when the process is gone and was never seen.
 */
int usyms_find(struct usyms *u, uint32_t pid, uint64_t addr, struct usym *ret);

/*
 * "main+0x1a (/usr/bin/foo)", "0x7f0123456789 (/usr/lib/x86_64-linux-gnu/libc.so.6)",
 * "0x7f0123456789"; a frame told by its file without a symbol there,
 * "[libc.so.6]+0x271ca (/usr/lib/x86_64-linux-gnu/libc.so.6)". Returns as
 * usyms_find(); buf is always filled.
 */
int usyms_format(struct usyms *u, uint32_t pid, uint64_t addr, char *buf, size_t len);

/*
 * File offset of a function in an ELF file, where a uprobe on binary:symbol
 * goes. -ENOENT when there is no such function, -ENOTUNIQ when several
 * functions by that name sit at different addresses.
 */
int usyms_resolve(struct usyms *u, const char *binary, const char *symbol, uint64_t *offset);

/* Drops what is cached about pid, on process exit. */
void usyms_forget(struct usyms *u, uint32_t pid);

/*
 * Calls cb for each exported function of binary whose name starts with
 * prefix (see elf_file_functions()); returns the count or cb's error.
 */
int usyms_functions(struct usyms *u, const char *binary, const char *prefix,
		    int (*cb)(const char *name, uint64_t offset, void *userdata), void *userdata);

/*
 * The file of a library as funcslower users name it: a path, a file name
 * or soname (libc.so.6), or bcc's shorthand NAME for libNAME.so (c: libc),
 * looked up in the dynamic linker's default directories. *ret is malloc'd.
 * -ENOENT when there is none.
 */
int usyms_library(const char *name, char **ret);

/*
 * The root directory binary is installed under, as its dynamic linker sees
 * the files: the deepest directory above it holding usr/ and the binary's
 * program interpreter (a debootstrap root, a container's root file system
 * seen from the host), else "/". *ret is malloc'd.
 */
int usyms_root(const char *binary, char **ret);

/*
 * The file defining the exported function symbol for binary: binary itself,
 * else the first of its DT_NEEDED libraries, looked up like the dynamic
 * linker does (DT_RUNPATH with $ORIGIN, then the default directories) inside
 * the binary's root (usyms_root()), that does; the path is the host's. *ret
 * is malloc'd. -ENOENT when none does, -EISDIR when binary is a directory.
 */
int usyms_provider(struct usyms *u, const char *binary, const char *symbol, char **ret);

/*
 * The version tag the exports of the ELF file at path carry (its first
 * version definition past the file's own: "SAMBA_4.17.12_DEBIAN_SAMBA4").
 * *ret is malloc'd; -ENOENT when the file defines none.
 */
int usyms_version_def(const char *path, char **ret);
/* Calls cb with each DT_NEEDED name of binary (libc.so.6); stops at cb's first negative return. */
int usyms_needed(const char *binary, int (*cb)(const char *name, void *userdata), void *userdata);
