/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Loading the BPF object and attaching it: fentry/fexit, kprobe.multi, kprobe, uprobe. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "probes/btfargs.h"
#include "probes/features.h"
#include "config/config.h"
#include "base/func.h"
#include "symbols/ksyms.h"
#include "probes/progs.h"

struct bpf_map;

struct usyms;

struct probes;

#define PROBES_UNITS_MAX 16

struct probes_opts {
	const struct features *features; /* what the kernel offers (features.h) */
	enum backend_choice choice;
	enum thread_state_choice thread_state;
	uint32_t max_threads; /* threads the frames hash holds, without task storage */
	bool offcpu;          /* off-CPU time of timed calls (bpf/offcpu.bpf.h): sched_switch */
	uint32_t tgid;
	const char *comm;
	uint64_t cgroup_id;
	uint64_t ringbuf_bytes;
	uint32_t func_capacity; /* ids the stats map must hold */
	uint32_t self_tgid;     /* never traced: the agent's own process */
	/* the units the layers asked for (probes_opts_want()), the call unit besides */
	struct probes_unit_req {
		const struct prog_unit *unit;
		void *arg; /* the unit's setup() gets it */
	} units[PROBES_UNITS_MAX];
	unsigned int n_units;
	bool stacks;      /* some probe counts stacks: size the stack maps */
	struct usyms *us; /* where the files of user frames are registered */
};

/* Unit u is to load, its setup() called with arg before the object loads; -E2BIG. */
int probes_opts_want(struct probes_opts *o, const struct prog_unit *u, void *arg);

/*
 * Opens and loads the BPF object with the programs the layers asked for,
 * of the kinds o->features says the kernel takes, and where it lacks one
 * what does instead (a hash for per-thread state, ids by probed place).
 * Returns negative errno when it cannot, why (n bytes) saying why.
 */
int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs, struct probes **ret,
		char *why, size_t n);
/* How per-thread state is kept: "task storage", or "hash of N threads". */
const char *probes_thread_state(const struct probes *p, char *buf, size_t size);
/* Sweeps the frames of threads gone from the hash; how many went, or negative errno. */
int probes_frames_sweep(struct probes *p);
void probes_close(struct probes *p);
/*
 * The embedded BPF objects (several MiB of the executable, read while
 * opening) leave the resident set; opened again, they are read back.
 */
void probes_trim(void);

/* Backend used for kernel functions, or BACKEND_NONE with a reason (valid until the next call). */
enum backend probes_kernel_backend(struct probes *p, const char **why);

/* Publishes f->cfg to BPF (threshold, flags, argument layout). */
int probes_update(struct probes *p, const struct func *f);

/*
 * Attaches entry and exit probes of family fam to each kernel function;
 * sets its state (attached with its backend, or why not). Returns the
 * count attached.
 */
int probes_attach_kernel(struct probes *p, struct func **fv, uint32_t n, const struct kprog_family *fam);
/* Whether the programs of unit u were loaded (a layer enabled only by a reload may lack them). */
bool probes_unit_loaded(const struct probes *p, const struct prog_unit *u);
/*
 * The loaded object, for a layer's own maps and data (skel->maps.NAME,
 * skel->bss->NAME): the layer that owns a unit reads and sets them itself.
 */
struct smblat_bpf *probes_skel(const struct probes *p);

/* uprobe/uretprobe on binary:symbol for every process (pid -1) or one. */
int probes_attach_uprobe(struct probes *p, struct func *f, const char *binary, const char *symbol, int pid);

/*
 * Detaches f (disabled first, so that nothing counts for it meanwhile),
 * leaving it in state why; the id stays, never reused for another function.
 */
void probes_detach(struct probes *p, struct func *f, enum func_state why, const char *detail);
/* Drops what is cached about module (its BTF): after a reload it is a new object. */
void probes_forget_module(struct probes *p, const char *module);

/*
 * Attaches unit u's program of tracepoint tp: tp_btf when the kernel takes
 * it, raw_tp otherwise. Returns the backend used, or negative errno.
 */
int probes_attach_tracepoint(struct probes *p, const struct prog_unit *u, const char *tp);
/* Detaches what probes_attach_tracepoint(u, tp) attached. */
void probes_detach_tracepoint(struct probes *p, const struct prog_unit *u, const char *tp);
/* The backend unit u's program of tp is attached with, or BACKEND_NONE. */
enum backend probes_tracepoint_backend(const struct probes *p, const struct prog_unit *u, const char *tp);
/*
 * Runs the iterator program at `at` once over its kernel list; returns
 * the bytes it wrote, or negative errno (-ENOENT: not loaded).
 */
ssize_t probes_iter_run(struct probes *p, size_t at);
/*
 * The same over the task tid alone (its threads' files, for a task_file
 * iterator) where the kernel narrows iterators (Linux 6.1), else over all.
 */
ssize_t probes_iter_run_task(struct probes *p, size_t at, pid_t tid);
/* Tracepoint links of ours. */
uint32_t probes_attached_tracepoints(const struct probes *p);
/* Why tp_btf is not used, or NULL. */
const char *probes_tp_btf_why(const struct probes *p);
/* Routes key of an id table of the object (a u32 array: id + 1, 0 for none) to func id (negative: none). */
int probes_route(struct bpf_map *table, uint32_t key, int id);

int probes_ringbuf_fd(const struct probes *p);
/* Every key of the map fd deleted (a generation of counts read). */
void probes_map_clear(int fd, size_t key_size);
/*
 * User stacks (bpf/ustack.h): whether the programs walk them (else the
 * kernel does, with raw addresses); the ring buffer of their notes on
 * files first met (-1: none), and what to do with one (registered with
 * probes_opts.us).
 */
bool probes_walks_ustacks(const struct probes *p);
int probes_ufile_notes_fd(const struct probes *p);
int probes_ufile_note(struct probes *p, const void *data, size_t size);
/*
 * The files process pid runs code from, opened and indexed now, with their
 * unwind tables: called while the agent may still read them (before the
 * drop), its stacks stay whole after it, where a file met first after the
 * drop in a directory only root may enter could not be read. Returns how
 * many code mappings it has, or negative errno (no such process).
 */
int probes_ufiles_process(struct probes *p, pid_t pid);
int probes_stats_fd(const struct probes *p);
/*
 * Whether this process may read the maps (the counters) by bpf(): 0, or
 * -EPERM where the kernel refuses bpf() to it altogether.
 */
int probes_maps_readable(const struct probes *p);
/*
 * Runs of our programs the kernel skipped (recursion misses) since load,
 * over every program loaded, also those closed since (probes/misses.c).
 */
uint64_t probes_recursion_misses(const struct probes *p);
int probes_totals_fd(const struct probes *p);
/* Starts a new min/max interval; returns the epoch that ended. */
uint64_t probes_epoch_bump(struct probes *p);
/* The epoch of the interval running now. */
uint64_t probes_epoch(const struct probes *p);
/*
 * Publishes ctl (size bytes, its first member the uint32_t that switches
 * its programs on) to the object's live copy: off first, so that no
 * program runs on half of one setting and half of another.
 */
void probes_publish(void *live, const void *ctl, size_t size);
/* Programs and links of ours, for --list-probes and tests. */
uint32_t probes_attached(const struct probes *p);

/* uprobe/uretprobe at a file offset already resolved (no ELF parse per call). */
int probes_attach_uprobe_at(struct probes *p, struct func *f, const char *binary, uint64_t offset, int pid);

/* USDT probes START (entry) and END (exit) of PROVIDER in binary, for every process or one. */
int probes_attach_usdt(struct probes *p, struct func *f, const char *binary, const char *provider,
		       const char *start, const char *end, int pid);

/*
 * uprobe/uretprobe on many functions of one file for every process: fv[i]
 * at offsets[i]. Two uprobe.multi links when the kernel has them, else one
 * pair per function; ids a batch still holds dormant come back in place
 * (fv and offsets are reordered for it). Returns the count attached.
 */
int probes_attach_uprobes(struct probes *p, struct func **fv, uint64_t *offsets, uint32_t n,
			  const char *binary);

/*
 * Requests that begin in many functions and end in a few shared ones: fv[i]
 * begins at begins[i] with program pair begin (its id the cookie), and all
 * end at ends[] with end, attached once for all (*ends_on says whether they
 * are). Returns the count attached.
 */
int probes_attach_uprobe_requests(struct probes *p, struct func **fv, uint64_t *begins, uint32_t n,
				  const struct uprog_pair *begin, const struct uprog_pair *end,
				  const uint64_t *ends, uint32_t n_ends, bool *ends_on, const char *binary);
/*
 * Program pair prog (entry, or ret: return probes) on n offsets of binary,
 * each with its cookie, for every process, as function f's links
 * (probes_detach takes them): one uprobe.multi link through its twin when
 * the kernel has them, else one uprobe per offset. Sets f attached (or why
 * not); returns 0 or negative errno, nothing left attached on failure.
 */
int probes_attach_uprobe_set(struct probes *p, struct func *f, const struct uprog_pair *prog,
			     const char *binary, const uint64_t *offsets, const uint64_t *cookies, uint32_t n,
			     bool ret);
/* The epoch now (probes_epoch_bump() returned the one before). */
uint64_t probes_epoch(const struct probes *p);

/* Function ids the stats map holds (probes_opts.func_capacity). */
uint32_t probes_func_capacity(const struct probes *p);

struct inflight_sweep;
/* Drops what s calls stale from in-flight table m (probes/inflight.h); how many went, or negative errno. */
int probes_sweep(struct bpf_map *m, const struct inflight_sweep *s);
