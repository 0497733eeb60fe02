/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The core's own state, shared by its files (agent.c, report.c, reload.c) and nothing else. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <time.h>
#include <bpf/libbpf.h>
#include <systemd/sd-event.h>

#include "core/agent.h"
#include "base/folded.h"
#include "decode/event.h"
#include "decode/offcpu.h"
#include "decode/stacks.h"
#include "layers/layer.h"
#include "probes/btfargs.h"
#include "probes/features.h"
#include "probes/stats.h"
#include "sinks/journal.h"
#include "symbols/mounts.h"
#include "base/clock.h"

struct agent {
	struct config *cfg;
	const struct run_opts *opt;
	sd_event *loop;
	struct ksyms *ks;
	struct btfs *btfs;
	struct usyms *us;
	struct mounts *mounts;
	struct features *features;
	struct probes *probes;
	struct ring_buffer *rb;
	struct ring_buffer *notes; /* the programs' notes on files of user frames, or NULL */
	struct journal *journal;
	struct stats *stats;
	struct func_table funcs;
	struct decoder dec;
	struct layer_env env;
	struct layer *layer[_LAYER_MAX];
	bool dropped;        /* privileges dropped */
	bool raise_failed;   /* the last raise of the attach capabilities failed (said once) */
	uint64_t started_ns; /* agent_run() began (base/profile.h clock) */
	char waiting[512];   /* nothing attached yet: what the layers wait for */
	bool overview;       /* a terminal gets the first screen, not the layer lines */
	int name_width;      /* the terminal's FUNCTION column: the longest name at start */
	unsigned int batch;  /* events taken in this turn of the loop */
	bool stopping;       /* the final report is being written */
	/* per function id */
	struct summary *acc; /* since the last summary */
	struct loss *loss;   /* since the last loss report */
	uint64_t written, failed;
	uint64_t misses_reported; /* the probes' recursion misses in loss reports so far */
	struct ratelimit *rate;   /* which slow calls are written (base/ratelimit.h) */
	uint64_t hist_interval_ns;
	uint64_t last_summary_ns;
	uint64_t last_loss_ns;
	/* the journal writer thread (writer.c), its last reported error and failure count */
	struct writer *writer;
	sd_event_source *ring_source; /* the slow calls' ring buffer: off while the writer has no room */
	sd_event_source *room_source; /* the writer's room again: on while the ring's is off */
	bool until_full;              /* this drain stops at the first event the writer refuses */
	bool backlogged;              /* ... and one was refused */
	bool paused;                  /* the ring is not read until the writer has room */
	int writer_error;
	uint64_t writer_failed;
	/* what SIGHUP compares with (reload.c) */
	struct reload *reload;
	/* counted stacks (NULL: no probe counts them), and all of the run's for --svg */
	struct stacks *stacks;
	struct offcpu *offcpu; /* off-CPU stacks (offcpu = yes), or NULL */
	struct folded run_stacks;
};

/* events.c: at most max events of the ring buffer to their sink; how many were taken. */
#define DRAIN_BATCH 4096
unsigned int agent_drain(struct agent *a, unsigned int max);
/* Everything the ring buffer holds, also while the loop's turns pause for the writer. */
unsigned int agent_drain_all(struct agent *a);
/* The slow calls' ring buffer: ringbuf_size=, or sized from rate_limit. */
uint64_t agent_ringbuf_bytes(const struct config *c);
int agent_on_ringbuf(sd_event_source *s, int fd, uint32_t revents, void *ctx);
int agent_on_room(sd_event_source *s, int fd, uint32_t revents, void *ctx);
/* The ring buffer's callback: one event decoded and written or counted. */
int agent_on_event(void *ctx, void *data, size_t size);
/*
 * privileged.c: the attach capabilities made effective (after the drop;
 * nothing to do before it), negative errno when they cannot be, and made
 * ineffective again.
 */
int agent_privileged_enter(struct agent *a);
void agent_privileged_leave(struct agent *a);
/* Runs fn on every layer there is. */
void agent_layers_each(struct agent *a, void (*fn)(struct agent *a, enum layer_id l, void *), void *userdata);
/*
 * Runs fn on every layer there is, privileges raised around (attaching
 * needs them); when they cannot be raised runs nothing and returns the
 * negative errno, for the caller to say what it did not do.
 */
int agent_layers_privileged(struct agent *a, void (*fn)(struct agent *a, enum layer_id l, void *),
			    void *userdata);
/* events.c: the notes on files of user frames taken: before frames that may name them are symbolized. */
void agent_notes(struct agent *a);
int agent_on_notes(sd_event_source *s, int fd, uint32_t revents, void *ctx);
int agent_on_note(void *ctx, void *data, size_t size);

/* loop.c: the loop set up with its signals, ring buffers and timers. */
int agent_loop_setup(struct agent *a);
/* loop.c: the writer's room fd in the loop, for the ring's backpressure (events.c) */
int agent_loop_watch_room(struct agent *a);
/* What only attaching needs (BTF, kernel data symbols) let go, with the heap it leaves free. */
void agent_services_trim(struct agent *a);

/* overview.c: the first screen on a terminal, what is traced and what not, and why. */
void overview_print(struct agent *a, FILE *out);
/* overview.c: one line per layer, each after prefix. */
void overview_layers(struct agent *a, const char *prefix, FILE *out);
void overview_list_probes(struct agent *a, FILE *out);

/* reload.c: SIGHUP. Applies the file again; a broken one changes nothing. */
int reload_init(struct agent *a);
int reload_config(struct agent *a);
void reload_free(struct agent *a);

/*
 * breakdown.c: the interval's summaries acc (per function id) merged per
 * layer of the stack: one BREAKDOWN entry per layer, or side by side on table.
 */
void breakdown_emit(struct agent *a, const struct summary *acc, double interval_s, FILE *table);

/* report.c: reads the BPF counters; writes summaries and/or loss reports. */
void report_now(struct agent *a, bool summaries, bool losses);
/* report.c: at exit, the run's counted stacks as a flame graph (--svg); -errno said. */
int report_flame(struct agent *a);
/* report.c: entries written and failed since start, wherever they were counted. */
void report_counts(struct agent *a, uint64_t *written, uint64_t *failed);
/* report.c: says when journal writes start or stop failing. */
void report_writer_health(struct agent *a);
/*
 * report.c: at exit, after the last loss report: stops the writer and says
 * on stderr what it could not deliver (the journal is what failed).
 */
void report_writer_stop(struct agent *a);
