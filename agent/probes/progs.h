/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The programs of the BPF object, named by their place in its skeleton:
 * each unit of bpf/ is a table of its programs and their kinds, defined by
 * the layer (or service) that uses it and handed to probes_open() by the
 * layer's prepare. A program renamed in bpf/ fails the build here, not at
 * run time, and no program's kind or unit is read off its name.
 */
#pragma once

#include <stdbool.h>
#include <stddef.h>

#include "base/macro.h"
#include "bpf/smblat.h" /* the types the skeleton names */
#include "smblat.skel.h"

/* What the kernel must take for a program to load, beside plain BPF. */
enum prog_kind {
	PROG_PLAIN,        /* kprobe, uprobe, USDT, raw tracepoint, iterator */
	PROG_FENTRY,       /* fentry/fexit: templates cloned per function, in an object of their own */
	PROG_KMULTI,       /* kprobe.multi */
	PROG_UMULTI,       /* uprobe.multi (declared kprobe.multi, attached as uprobe.multi) */
	PROG_USESSION,     /* uprobe.session */
	PROG_TP_BTF,       /* BTF tracepoint; its raw_tp twin is a plain program */
	PROG_USLEEP,       /* a sleepable uprobe (it may fault user pages in: Linux 6.0) */
	PROG_UMULTI_SLEEP, /* a sleepable uprobe.multi: both of the above */
	_PROG_KIND_MAX,
};

/* One program: where the skeleton keeps it, and its kind. */
struct prog_spec {
	size_t at; /* offsetof(struct smblat_bpf, progs.NAME) */
	enum prog_kind kind;
};

#define PROG_AT(name) offsetof(struct smblat_bpf, progs.name)
#define PROG(name, kind)            \
	{                           \
		PROG_AT(name), kind \
	}

/* A unit of bpf/: programs loaded together, when a layer asks for it. */
struct prog_unit {
	const char *name; /* for messages */
	const struct prog_spec *progs;
	size_t n;
	/* only tracepoint programs: the object may load without them (they fail alone) */
	bool tracepoints;
	/* Optional, before the object loads: the unit's read-only data and map sizes (arg: the requester's). */
	void (*setup)(struct smblat_bpf *skel, void *arg);
};

#define PROG_UNIT(name_, table, tp)                                                      \
	{                                                                                \
		.name = name_, .progs = table, .n = ELEMENTSOF(table), .tracepoints = tp \
	}

/* The programs that time a kernel function by each backend (0: the family has none). */
struct kprog_family {
	size_t fentry, fexit, kprobe, kretprobe, kmulti, kretmulti;
};

/* A uprobe program and its uprobe.multi twin (0: none). */
struct uprog_pair {
	size_t single, multi;
};

#define UPROG_PAIR(single, multi)               \
	{                                       \
		PROG_AT(single), PROG_AT(multi) \
	}

/* The program at `at` of skel; NULL for 0 or no skeleton. */
static inline struct bpf_program *prog_at(const struct smblat_bpf *skel, size_t at)
{
	return skel && at ? *(struct bpf_program *const *)((const char *)skel + at) : NULL;
}

/* The call template: plain calls of any function, by every backend (always loaded). */
extern const struct prog_unit prog_unit_call;
extern const struct kprog_family kprogs_call;
