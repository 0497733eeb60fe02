/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Kernel symbols from /proc/kallsyms, vmlinux and modules: text symbols to
 * symbolize kernel stacks, every symbol by name to find named objects.
 *
 * Not thread safe. Pointers handed out (struct ksym, names) stay valid until
 * the next ksyms_reload() or ksyms_free().
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ksyms;

struct ksym {
	uint64_t addr;
	const char *name;
	const char *module; /* "cifs", NULL for vmlinux */
	char type;          /* kallsyms type letter: t T w W d D r R b B */
};

/*
 * Reads /proc/kallsyms. -EPERM when every address reads as zero
 * (kernel.kptr_restrict, or no CAP_SYSLOG at open); ksyms_explain() words it.
 */
int ksyms_load(struct ksyms **ret);
int ksyms_load_file(const char *path, struct ksyms **ret);
/* A table without symbols, where /proc/kallsyms hides them and no kernel function is traced. */
int ksyms_new_empty(struct ksyms **ret);
void ksyms_free(struct ksyms *k);

/* Re-reads the same file, for modules loaded since; on failure k is unchanged. */
int ksyms_reload(struct ksyms *k);
/*
 * Makes sure the table holds the symbols of the loaded instance of module:
 * re-reads the file only when the last read does not (the module was not
 * loaded then, or has been loaded again since).
 */
int ksyms_refresh(struct ksyms *k, const char *module);

/*
 * Keeps what symbolizing stacks needs (text symbols and their names) and
 * lets go of what only finding objects by name does (data symbols, the name
 * index): after attaching, until the next ksyms_refresh() or ksyms_reload(),
 * which read the file again. Pointers to text symbols stay valid; their
 * names move.
 */
bool ksyms_trim(struct ksyms *k); /* true: it let go of something */

/* Why ksyms_load() failed, in words for the user; NULL when errno says it all. */
const char *ksyms_explain(int r);

/*
 * The text symbol covering addr: the nearest at or below it, up to the next
 * symbol; the last one of vmlinux or of a module covers a page at most.
 * NULL when addr is zero, below them all, or in no symbol's reach.
 */
const struct ksym *ksyms_find(const struct ksyms *k, uint64_t addr, uint64_t *offset);

/*
 * Any symbol, text or data, by name. module NULL: any, the vmlinux one first;
 * "vmlinux": vmlinux only; otherwise that module only. Among duplicates (static
 * symbols of the same name) global wins, then the lowest address.
 */
const struct ksym *ksyms_lookup(const struct ksyms *k, const char *name, const char *module);

/*
 * "cifs_unlink+0x4e [cifs]", "vfs_unlink+0x12f", or "0xffffffffc0123456" with
 * -ENOENT when no symbol covers addr. Truncates silently to len.
 */
int ksyms_format(const struct ksyms *k, uint64_t addr, char *buf, size_t len);

/* Counts, for start-up logging and tests. */
size_t ksyms_count_text(const struct ksyms *k);
size_t ksyms_count_data(const struct ksyms *k);
