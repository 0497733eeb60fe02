/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The system calls of the architecture built for: names and numbers. */
#pragma once

/* Number of syscall NAME on this architecture, or -ENOENT. */
int syscalls_nr(const char *name);
/* The known name closest to a misspelt one, or NULL. */
const char *syscalls_suggest(const char *name);
/* The name of syscall nr, or NULL. */
const char *syscalls_name(int nr);
/* The table in order: how many, and the i-th name (its number in *nr), NULL past the end. */
unsigned int syscalls_count(void);
const char *syscalls_at(unsigned int i, int *nr);
