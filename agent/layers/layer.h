/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The one interface every layer implements. The core holds the table of
 * layers (layers.c) and drives each through these operations: it names no
 * layer, and no layer calls into the core. A layer works with the services
 * of struct layer_env (configuration, function table, BPF plumbing,
 * symbols), says what it did through base/log.h, and keeps its own state
 * behind struct layer.
 *
 * Life of a layer: init -> prepare (before the BPF object loads) -> attach
 * -> [watch every few seconds] [apply after each reload] [detach when a
 * reload disables it] -> free. The core allocates each layer's state
 * (ops->size bytes, zeroed, env set: every struct layer begins with its
 * const struct layer_env *env). Teardown of what is attached is the BPF
 * plumbing's (probes_close), in one go.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>

#include "base/func.h"
#include "base/log.h"
#include "config/config.h"
#include "decode/record.h"
#include "probes/probes.h"

struct ksyms;
struct btfs;
struct usyms;
struct mounts;
struct decoder;
struct journal;
struct rec_head;

/*
 * Where the summaries of a layer's own views go (aggregation-only views
 * such as per-share or per-syscall tables): the journal
 * (journal_write_view_summary), or a table on the terminal.
 */
struct summary_out {
	struct journal *journal; /* NULL: the terminal */
	FILE *table;             /* the terminal's table stream */
	double interval_s;
	bool final; /* the last one, at exit */
	/* per function id, what the interval counted: a layer with own_summaries writes its functions' */
	const struct summary *acc;
};

/* The services a layer works with; the core owns them. */
struct layer_env {
	const struct config *cfg; /* the configuration in force; a reload changes it in place */
	struct func_table *funcs;
	struct probes *probes;
	const struct features *features; /* what the kernel offers (probes/features.h) */
	struct ksyms *ks;
	struct btfs *btfs;
	struct usyms *us;
	struct mounts *mounts;     /* SMB shares by device */
	const struct decoder *dec; /* records' shared parts: head, call, stacks (decode/event.h) */
};

enum layer_state {
	LAYER_OFF,         /* not enabled */
	LAYER_ACTIVE,      /* attached, at least in part */
	LAYER_WAITING,     /* nothing attached yet, but it can still come (a module loads) */
	LAYER_UNAVAILABLE, /* nothing attached, and nothing will be: why says it */
};

/* What one reload did, summed over the layers for its status line. */
struct reload_counts {
	unsigned int added;    /* [probe] sections attached anew */
	unsigned int removed;  /* [probe] sections gone */
	unsigned int kept;     /* [probe] sections updated in place */
	unsigned int failed;   /* added but not attached */
	unsigned int attached; /* layer functions attached again */
	unsigned int detached; /* layer functions detached */
};

struct layer;

/* One column of --breakdown (as IOStackBreakdown): a layer of the I/O stack. */
struct breakdown_column {
	const char *name;     /* BREAKDOWN_LAYER: "syscall", "smb", ... */
	const char *function; /* its summary's FUNCTION: BREAKDOWN_SYSCALL, ... */
	int depth;            /* top down: system calls 10 ... block requests 80 */
};

struct layer_ops {
	enum layer_id id;
	const char *traces; /* what it traces, for a reader who does not know the layers */
	size_t size;        /* sizeof(struct layer) of the layer */
	/*
	 * Its section of smblat.conf, named as the layer: its keys beyond
	 * those every layer has (config/section.h). NULL: none.
	 */
	const struct config_section *config;
	/* The core writes no summaries of its functions: its summarize hook does, from out->acc. */
	bool own_summaries;
	/* Function ids a configuration may need at most (the BPF maps are sized once). */
	uint32_t (*ids_needed)(const struct config *c);
	/*
	 * Optional, before the BPF object loads (env->probes still NULL): the
	 * units of programs the layer needs (probes_opts_want()) and their
	 * settings. Negative errno stops the start (said why).
	 */
	int (*prepare)(struct layer *l, struct probes_opts *po);
	/* The layer's own unit of bpf/ (its programs), or NULL; prepare asks for it when needed. */
	const struct prog_unit *unit;
	/* Optional: state beyond zeroes and env. */
	int (*init)(struct layer *l);
	/* Attaches what the configuration selects and says what it did. */
	void (*attach)(struct layer *l);
	/* After a reload replaced env->cfg (old: the one before), the layer staying enabled. */
	void (*apply)(struct layer *l, const struct config *old, struct reload_counts *n);
	/* Detaches everything, each function left in state why; returns how many. */
	unsigned int (*detach)(struct layer *l, enum func_state why);
	/* Optional, every few seconds: modules loaded, unloaded or replaced. */
	void (*watch)(struct layer *l);
	/* Optional: --list-probes rows for what is not in the function table. */
	void (*list)(struct layer *l, FILE *out);
	/* The kinds of ring buffer records the layer owns (REC_BIT()s of bpf/record.h). */
	uint32_t records;
	/*
	 * Decodes a record of one of those kinds, size bytes at h, whose head
	 * is in r already (layers_decode()); a kind built on a call decodes its
	 * call part with event_decode_call(). Negative errno: malformed.
	 */
	int (*decode)(const struct layer_env *env, const struct rec_head *h, size_t size, struct record *r);
	/*
	 * Optional: at each summary interval and at exit, after the summaries
	 * of the function table, the layer's own views (counted in its maps).
	 */
	void (*summarize)(struct layer *l, const struct summary_out *out);
	/* Optional: the layer's --breakdown columns. */
	const struct breakdown_column *columns;
	unsigned int n_columns;
	/* Optional: which of them function f of the layer is in (-1: none); without it, the first. */
	int (*column_of)(const struct func *f);
	/* Optional: what --breakdown adds to c (the probes, the layer on); layers_given: --layers chose. */
	int (*breakdown)(struct config *c, bool layers_given);
	/* Whether it traces, waits for something, or never will (why: static or the layer's). */
	enum layer_state (*state)(struct layer *l, const char **why);
	/* Optional: what the layer's state owns; the core frees the state itself. */
	void (*free)(struct layer *l);
};

/* The table of layers, indexed by enum layer_id (layers.c). */
extern const struct layer_ops *const layer_table[_LAYER_MAX];

/*
 * A ring buffer record of size bytes into r: its head, then the rest by
 * its kind: a plain call here, any other kind by the layer owning it.
 * -EINVAL for a record malformed or of a kind no layer owns; r must be
 * cleared with event_record_clear() either way.
 */
int layers_decode(const struct layer_env *env, const void *data, size_t size, struct record *r);

/* The state of layer id, allocated and initialised; NULL without memory. */
struct layer *layer_new(enum layer_id id, const struct layer_env *env);
void layer_free(enum layer_id id, struct layer *l);

/*
 * Why a layer traces nothing, written to buf (size bytes) and said; returns
 * buf. layer_unavailable(): it cannot run here (a warning); layer_off():
 * enabled = auto and the machine lacks what the layer traces (a notice).
 */
const char *layer_say(const char *layer, enum status_kind kind, enum status_reason why, char *buf,
		      size_t size, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
#define layer_unavailable(layer, why, buf, size, ...) \
	layer_say(layer, STATUS_LAYER_UNAVAILABLE, why, buf, size, __VA_ARGS__)
#define layer_off(layer, why, buf, size, ...) layer_say(layer, STATUS_LAYER_OFF, why, buf, size, __VA_ARGS__)
/*
 * For the layers of the cifs module with enabled = auto: NULL where this
 * kernel has cifs (loaded or in /lib/modules), else the layer is off and
 * says why (the backend too when there is none); returns buf.
 */
const char *layer_cifs_missing(const char *layer, const struct layer_env *env, char *buf, size_t size);
/* The REASON= code of a function's state: module-not-loaded, attach-failed, ... */
enum status_reason layer_func_reason(const struct func *f);

struct inflight_sweep;
/*
 * Drops the entries of in-flight table (a map of the layer's unit) that s calls stale (probes/inflight.h)
 * and says how many went, why (words of the layer: "never completed in 10
 * min") and what describe() adds about them. Returns how many went, or
 * negative errno (said too).
 */
int layer_sweep(const struct layer_env *env, const char *layer, struct bpf_map *table,
		struct inflight_sweep *s, const char *why,
		void (*describe)(void *userdata, char *buf, size_t size));

/* --list-probes: one row, in the columns of the function table. */
void layer_list_row(FILE *out, const char *function, enum layer_id l, const char *target, const char *backend,
		    const char *status);
