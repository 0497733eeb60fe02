/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What the running kernel offers for tracing, probed once at start: each
 * feature is tried the way the agent would use it (a map created, a
 * program loaded, a link made), never guessed from the kernel version.
 * The layers and the BPF loader choose from the result; --list-probes
 * shows it.
 */
#pragma once

#include <stdbool.h>
#include <stdio.h>

struct btfs;

enum kfeature {
	KF_BTF,             /* vmlinux BTF, for CO-RE */
	KF_MODULE_BTF,      /* modules' BTF in /sys/kernel/btf */
	KF_RINGBUF,         /* BPF ring buffer */
	KF_TASK_STORAGE,    /* task local storage maps: per-thread state */
	KF_COOKIE,          /* bpf_get_attach_cookie() in kprobes and uprobes */
	KF_FUNC_IP,         /* bpf_get_func_ip() in kprobes */
	KF_TASK_PT_REGS,    /* bpf_task_pt_regs(): a task's user registers */
	KF_KPROBE,          /* the kprobe event source */
	KF_KPROBE_MULTI,    /* kprobe.multi links */
	KF_KPROBE_SESSION,  /* kprobe.session programs */
	KF_FENTRY,          /* fentry/fexit programs load (attached when first wanted) */
	KF_FENTRY_ARGS,     /* bpf_get_func_arg() in trampolines */
	KF_FENTRY_COOKIE,   /* bpf_get_attach_cookie() in trampolines */
	KF_FENTRY_MODULE,   /* trampolines on module functions */
	KF_TP_BTF,          /* BTF-typed raw tracepoints, attached */
	KF_UPROBE_MULTI,    /* uprobe.multi links */
	KF_KRETPROBE_STACK, /* a kretprobe's stack unwinds past its trampoline */
	KF_UPROBE_SLEEP,    /* sleepable uprobe programs (bpf_copy_from_user faults pages in) */
	KF_FIND_VMA,        /* bpf_find_vma(): user frames told by their file (ustack.bpf.h) */
	KF_LOOP,            /* bpf_loop(): the user stack walk's steps */
	_KF_MAX,
};

struct features;

/*
 * Probes the kernel (vmlinux BTF from btfs). Returns 0 with *ret set, or
 * negative errno for the agent's own failures (memory); a kernel without
 * a feature is a result, not an error.
 */
int features_probe(struct btfs *btfs, struct features **ret);
void features_free(struct features *f);

/* A result set by hand, for tests: every feature as has says. */
struct features *features_new(const bool has[_KF_MAX]);

bool features_has(const struct features *f, enum kfeature k);
/* "task storage maps" */
const char *features_name(enum kfeature k);
/* Where the kernel has it: "Linux 5.11", "CONFIG_FPROBE, Linux 5.18". */
const char *features_since(enum kfeature k);
/* What the probe saw when it is missing ("Invalid argument"), or NULL. */
const char *features_why(const struct features *f, enum kfeature k);
/*
 * "task storage maps (Linux 5.11)": the missing feature and where to get
 * it, for one line about what cannot run; buf of size bytes.
 */
const char *features_missing(enum kfeature k, char *buf, size_t size);

/* --list-probes: one comment line per feature, yes or what is missing. */
void features_list(const struct features *f, FILE *out);
