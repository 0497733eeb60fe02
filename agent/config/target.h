/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The target grammar of [probe NAME] target= and -f, parsed in one place
 * for the command line, the configuration file and reloads alike:
 *
 *   vfs_read                        kernel function (vmlinux)
 *   NAME:function                   kernel module NAME, or library NAME
 *                                   (c:malloc is libc's; see target_library)
 *   libfoo.so.1:function            a library by file or soname
 *   /usr/sbin/smbd:function         a binary or library by path
 *   usdt:PATH:PROVIDER:START,END    two USDT probes, start and end
 *   syscall:NAME                    a system call
 *
 * Whether NAME: is a kernel module or a library is known only on the
 * machine that runs the probe: the parser says QUALIFIED and the func layer
 * decides (a module of the running kernel wins).
 */
#pragma once

enum target_kind {
	TARGET_KERNEL,    /* symbol in vmlinux */
	TARGET_QUALIFIED, /* object:symbol, object a module or a library name */
	TARGET_USER,      /* object (path or soname):symbol */
	TARGET_USDT,      /* object (path):provider:symbol,end */
	TARGET_SYSCALL,   /* symbol is the syscall name */
};

struct target {
	enum target_kind kind;
	char *object;   /* module, library or path; NULL for vmlinux and syscalls */
	char *symbol;   /* function, syscall name, or the USDT start probe */
	char *provider; /* USDT */
	char *end;      /* USDT end probe */
};

/*
 * Parses s into t (freed with target_done). -EINVAL with *problem set to
 * what is wrong ("needs two USDT probes, ..."), to follow the target in a
 * message. A syscall name is checked for shape only; whether it exists is
 * the syscall table's to say.
 */
int target_parse(const char *s, struct target *t, const char **problem);
void target_done(struct target *t);
