/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the BPF object and attaching it: fentry/fexit, kprobe.multi, kprobe, uprobe. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "btfargs.h"
#include "config.h"
#include "func.h"
#include "ksyms.h"

struct probes;

struct probes_opts {
	enum backend_choice choice;
	uint32_t tgid;
	const char *comm;
	uint64_t cgroup_id;
	uint64_t ringbuf_bytes;
	uint32_t func_capacity;     /* ids the histogram map must hold */
};

/*
 * Opens and loads the BPF object. Probes the kernel for fentry (by loading
 * the fentry template) and keeps going without it when refused.
 */
int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs,
		struct probes **ret);
void probes_close(struct probes *p);

/* Backend used for kernel functions, or BACKEND_NONE with a reason. */
enum backend probes_kernel_backend(struct probes *p, const char **why);

/* Publishes f->cfg to BPF (threshold, flags, argument layout). */
int probes_update(struct probes *p, const struct func *f);

/*
 * Attaches entry and exit probes to each kernel function; sets backend on
 * success and missing (malloc'd reason) on failure. Returns the count attached.
 */
int probes_attach_kernel(struct probes *p, struct func **fv, uint32_t n);

/* uprobe/uretprobe on binary:symbol for every process (pid -1) or one. */
int probes_attach_uprobe(struct probes *p, struct func *f, const char *binary,
			 const char *symbol, int pid);

/* Detaches f's probes (module going away); the id stays. */
void probes_detach(struct probes *p, uint32_t id);
/* Drops what is cached about module (its BTF): after a reload it is a new object. */
void probes_forget_module(struct probes *p, const char *module);

int probes_ringbuf_fd(const struct probes *p);
int probes_stats_fd(const struct probes *p);
int probes_hist_fd(const struct probes *p);
int probes_totals_fd(const struct probes *p);
/* Starts a new min/max interval; returns the epoch that ended. */
uint64_t probes_epoch_bump(struct probes *p);
/* Programs and links of ours, for --list-probes and tests. */
uint32_t probes_attached(const struct probes *p);
