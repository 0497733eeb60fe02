// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Syscall numbers come from the C library's <sys/syscall.h> for the
 * architecture we are built for, turned into a table at build time: the
 * numbers are ABI and never change, while the kernel's own sources of them
 * are not always there (sys_call_table left kallsyms when x86 moved to a
 * switch in 6.9; the syscalls tracefs events need CONFIG_FTRACE_SYSCALLS
 * and a mounted tracefs; vmlinux BTF has the handlers but not their numbers).
 */
#include <errno.h>
#include <string.h>
#include <sys/syscall.h>

#include "base/syscalls.h"
#include "base/macro.h"
#include "base/suggest.h"

static const struct {
	const char *name;
	int nr;
} table[] = {
#define SYSCALL(n) { #n, __NR_##n },
#include "syscall-names.h"
#undef SYSCALL
};

static const char *const names[] = {
#define SYSCALL(n) #n,
#include "syscall-names.h"
#undef SYSCALL
};

int syscalls_nr(const char *name)
{
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (strcmp(table[i].name, name) == 0)
			return table[i].nr;
	return -ENOENT;
}

const char *syscalls_suggest(const char *name)
{
	return suggest_name(name, names, ELEMENTSOF(names));
}

const char *syscalls_name(int nr)
{
	for (size_t i = 0; i < ELEMENTSOF(table); i++)
		if (table[i].nr == nr)
			return table[i].name;
	return NULL;
}

unsigned int syscalls_count(void)
{
	return ELEMENTSOF(table);
}

const char *syscalls_at(unsigned int i, int *nr)
{
	if (i >= syscalls_count())
		return NULL;
	*nr = table[i].nr;
	return table[i].name;
}
