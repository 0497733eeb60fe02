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

struct probes;

/* The units of bpf/ (one per layer that has programs of its own), loaded as the layers ask. */
enum prog_unit {
	UNIT_FUNC, /* plain calls: [probe] targets, uprobes, USDT (always) */
	UNIT_VFS,  /* the smb layer's calls */
	UNIT_SMB2, /* cifs mid hooks */
	UNIT_BLOCK,
	UNIT_SYSCALL,
	UNIT_SMBD,    /* smbd's SMB2 requests and views */
	UNIT_TASKS,   /* following processes: exec, fork, exit */
	UNIT_SYSACCT, /* syscall accounting, smbd's syscall parts */
	_UNIT_MAX,
};
#define UNIT_BIT(u) (1u << (u))

/* Which programs time kernel functions of a layer. */
enum kprog_family {
	KPROGS_CALL,       /* plain calls (func layer) */
	KPROGS_VFS,        /* smb layer */
	KPROGS_SMB2_ALLOC, /* cifs mid allocation: header at entry, mid at return */
	KPROGS_SMB2_MID,   /* a mid seen, a request submitted: entry only */
	KPROGS_SMB2_SENT,  /* a submission sent: return only */
};

struct probes_opts {
	const struct features *features; /* what the kernel offers (features.h) */
	enum backend_choice choice;
	enum thread_state_choice thread_state;
	uint32_t max_threads; /* threads the frames hash holds, without task storage */
	uint32_t tgid;
	const char *comm;
	uint64_t cgroup_id;
	uint64_t ringbuf_bytes;
	uint32_t func_capacity;     /* ids the stats map must hold */
	uint32_t self_tgid;         /* never traced: the agent's own process */
	uint32_t units;             /* UNIT_BIT()s the layers asked for */
	uint32_t share_view_max;    /* pairs the per-share view holds (0: the default) */
	struct block_cfg block_cfg; /* with UNIT_BLOCK */
	bool stacks;                /* some probe counts stacks: size the stack maps */
};

/*
 * Opens and loads the BPF object with the programs the layers asked for,
 * of the kinds o->features says the kernel takes, and where it lacks one
 * what does instead (a hash for per-thread state, ids by probed place).
 * Says why and returns negative errno when it cannot.
 */
int probes_open(const struct probes_opts *o, const struct ksyms *ks, struct btfs *btfs, struct probes **ret);
/* How per-thread state is kept: "task storage", or "hash of N threads". */
const char *probes_thread_state(const struct probes *p, char *buf, size_t size);
/* Sweeps the frames of threads gone from the hash; how many went, or negative errno. */
int probes_frames_sweep(struct probes *p);
void probes_close(struct probes *p);

/* Backend used for kernel functions, or BACKEND_NONE with a reason (valid until the next call). */
enum backend probes_kernel_backend(struct probes *p, const char **why);

/* Publishes f->cfg to BPF (threshold, flags, argument layout). */
int probes_update(struct probes *p, const struct func *f);

/*
 * Attaches entry and exit probes to each kernel function; sets its state
 * (attached with its backend, or why not). Returns the count attached.
 */
int probes_attach_kernel(struct probes *p, struct func **fv, uint32_t n, enum kprog_family fam);
/* Whether the programs of unit u were loaded (a layer enabled only by a reload may lack them). */
bool probes_unit_loaded(const struct probes *p, enum prog_unit u);

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
int probes_attach_tracepoint(struct probes *p, enum prog_unit u, const char *tp);
/* Detaches what probes_attach_tracepoint(u, tp) attached. */
void probes_detach_tracepoint(struct probes *p, enum prog_unit u, const char *tp);
/* The backend unit u's program of tp is attached with, or BACKEND_NONE. */
enum backend probes_tracepoint_backend(const struct probes *p, enum prog_unit u, const char *tp);
/*
 * Runs the iterator program name once over its kernel list; returns the
 * bytes it wrote, or negative errno (-ENOENT: not loaded).
 */
ssize_t probes_iter_run(struct probes *p, const char *name);
/* Tracepoint links of ours. */
uint32_t probes_attached_tracepoints(const struct probes *p);
/* Why tp_btf is not used, or NULL. */
const char *probes_tp_btf_why(const struct probes *p);
/* Routes enum block_op op, or syscall number nr, to func id (negative: none). */
int probes_set_block_id(struct probes *p, uint32_t op, int id);
int probes_set_syscall_id(struct probes *p, uint32_t nr, int id);

int probes_ringbuf_fd(const struct probes *p);
/*
 * The kernel stack id names in the kstacks map (taken at a call's entry
 * where kretprobes cannot unwind) into frames (room for n); returns how
 * many, or negative errno.
 */
int probes_kstack_read(struct probes *p, uint32_t id, uint64_t *frames, size_t n);
int probes_stats_fd(const struct probes *p);
int probes_totals_fd(const struct probes *p);
/* Starts a new min/max interval; returns the epoch that ended. */
uint64_t probes_epoch_bump(struct probes *p);
/* The epoch of the interval running now. */
uint64_t probes_epoch(const struct probes *p);
/* smb2 layer: which hooks are the mid hooks, and the func id of each command. */
void probes_smb2_set(struct probes *p, const struct smb2_ctl *ctl);
/* smbd layer: where a request's inbound SMB2 header is (struct smbd_hdr_layout of bpf/smbd.h). */
struct smbd_hdr_layout;
void probes_smbd_layout_set(struct probes *p, const struct smbd_hdr_layout *l);
/* Views: per-share counting on or off; its maps (struct share_key -> per-CPU struct func_stats). */
void probes_share_view_set(struct probes *p, bool on);
int probes_share_view_fd(const struct probes *p);
int probes_share_overflow_fd(const struct probes *p);
/* Programs and links of ours, for --list-probes and tests. */
uint32_t probes_attached(const struct probes *p);

/* uprobe/uretprobe at a file offset already resolved (no ELF parse per call). */
int probes_attach_uprobe_at(struct probes *p, struct func *f, const char *binary, uint64_t offset, int pid);

/* USDT probes START (entry) and END (exit) of PROVIDER in binary, for every process or one. */
int probes_attach_usdt(struct probes *p, struct func *f, const char *binary, const char *provider,
		       const char *start, const char *end, int pid);

/*
 * smbd's SMB2 requests: begin at smbd_smb2_request_process_<cmd>(req) for
 * f, end at whichever completion function offset is (done_ex, error_ex).
 */
int probes_attach_smbd_begin(struct probes *p, struct func *f, const char *binary, uint64_t offset);
int probes_attach_smbd_end(struct probes *p, const char *binary, uint64_t offset);

/*
 * uprobe/uretprobe on many functions of one file for every process: fv[i]
 * at offsets[i]. Two uprobe.multi links when the kernel has them, else one
 * pair per function; ids a batch still holds dormant come back in place
 * (fv and offsets are reordered for it). Returns the count attached.
 */
int probes_attach_uprobes(struct probes *p, struct func **fv, uint64_t *offsets, uint32_t n,
			  const char *binary);

/* The same for smbd's SMB2 requests: fv[i] begins at begins[i], all end at ends[]. */
int probes_attach_smbd_requests(struct probes *p, struct func **fv, uint64_t *begins, uint32_t n,
				const uint64_t *ends, uint32_t n_ends, const char *binary);
/*
 * Program prog (entry, or ret: return probes) on n offsets of binary, each
 * with its cookie, for every process, as function f's links (probes_detach
 * takes them): one uprobe.multi link through its twin umulti_<prog> when the
 * kernel has them, else one uprobe per offset. Sets f attached (or why not);
 * returns 0 or negative errno, nothing left attached on failure.
 */
int probes_attach_uprobe_set(struct probes *p, struct func *f, const char *prog, const char *binary,
			     const uint64_t *offsets, const uint64_t *cookies, uint32_t n, bool ret);
/* A map of the object by name (fd), or negative errno. */
int probes_map_fd(const struct probes *p, const char *name);
/* The processes followed and what is asked of them (bpf/smbd.h), live in the object's data. */
struct procs_ctl *probes_procs_ctl(struct probes *p);
/* The epoch now (probes_epoch_bump() returned the one before). */
uint64_t probes_epoch(const struct probes *p);

/* Function ids the stats map holds (probes_opts.func_capacity). */
uint32_t probes_func_capacity(const struct probes *p);

/* The in-flight tables of BPF (probes/inflight.h). */
enum inflight_table {
	INFLIGHT_BLOCK, /* block requests, by struct request */
	INFLIGHT_SMB2,  /* cifs mids */
	INFLIGHT_SMBD,  /* smbd's SMB2 requests, by process and request */
};
struct inflight_sweep;
/* Drops what s calls stale from table t; how many entries went, or negative errno. */
int probes_sweep(struct probes *p, enum inflight_table t, const struct inflight_sweep *s);
