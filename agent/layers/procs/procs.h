/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The processes the kernel side follows (bpf/smbd.h, bpf/procs.bpf.h):
 * every smbd for the smbd layer's views, the chosen ones for the syscalls
 * layer. A service of those two layers over the BPF plumbing: it attaches
 * the process tracepoints once (exec, fork, exit) and the syscall pair as
 * asked, and tells the kernel side about the processes that ran before.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "probes/probes.h"

/* Who already runs and is to be followed: set in procs_ctl, plus a pid. */
struct procs_seed {
	uint32_t acct_pid; /* accounted, and its later children: 0 none */
	uint32_t count;    /* the processes followed for any of these (enum proc_flags) are counted */
};

/*
 * The tracepoints of following (sched_process_exec/fork/exit), sys_exit
 * and, with enter, sys_enter. What is attached already stays. Returns the
 * backend (tp_btf or raw_tp) or negative errno, with why (size n) said.
 */
/* Which syscall tracepoints procs_attach() adds to the process ones: each costs every syscall on the machine. */
enum procs_sys {
	PROCS_SYS_NONE,
	PROCS_SYS_EXIT, /* a followed process's failed syscalls, its client's address */
	PROCS_SYS_BOTH, /* and their time: the time split, syscall accounting */
};

int procs_attach(struct probes *p, enum procs_sys sys, char *why, size_t n);
struct probes_opts;
/* The process and syscall programs (bpf/tasks.bpf.c, sysacct.bpf.c), shared by the layers that follow processes. */
#define PROCS_UNITS 2
struct prog_unit;
extern const struct prog_unit *const procs_units[PROCS_UNITS];
/* Before the object loads: the process and syscall programs are to load (-E2BIG). */
int procs_want(struct probes_opts *po);
/* The processes followed and what is asked of them (bpf/smbd.h), live in the object's data. */
struct procs_ctl *procs_ctl(struct probes *p);
/*
 * Follows the processes running binary (the same file, whatever their
 * name: an smbd), those forked by them, and those procs_seed() finds.
 * Returns 0, or negative errno with why (size n) said.
 */
int procs_follow_smbd(struct probes *p, const char *binary, char *why, size_t n);
/*
 * Tells the kernel side of the running processes procs_ctl and seed choose
 * (a task iterator); returns how many of them are followed for what
 * seed->count names, or negative errno.
 */
int procs_seed(struct probes *p, const struct procs_seed *seed);
/* Syscall nr is accounted as function id (negative: not). */
int procs_set_acct_id(struct probes *p, int nr, int id);
/* --list-probes rows: the tracepoints attached for FUNCTION-less views. */
void procs_list(struct probes *p, FILE *out, const char *function, enum layer_id l);
/* "SMBD", "SYSCALL_OPENAT": a name the way FUNCTION spells it (buf of size n). */
const char *procs_upper(const char *prefix, const char *name, char *buf, size_t n);
