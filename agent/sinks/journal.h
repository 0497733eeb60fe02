/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journald sink: one entry per slow call, per summary, per loss report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/hist.h"
#include "base/log.h"
#include "decode/record.h"

#include "base/messages.h" /* the MESSAGE_IDs */

#define JOURNAL_STACK_MAX 4000 /* STACK stays under 4 KiB so json output keeps it */

struct journal;

struct journal_opts {
	int priority_slow;    /* LOG_WARNING by default */
	int priority_summary; /* LOG_INFO */
	int priority_lost;    /* LOG_ERR */
};

/* Loss counts of one FUNCTION since the last report. */
struct loss {
	const struct func *func;
	uint64_t ringbuf;      /* BPF ring buffer had no room */
	uint64_t suppressed;   /* dropped by the agent's rate limit */
	uint64_t write_failed; /* journald did not take the entry */
	uint64_t untimed;      /* requests never timed (started, never seen to end): in no summary */
};

/*
 * Checks that journald listens (/run/systemd/journal/socket is a socket
 * that accepts a datagram); -ENOENT/-ECONNREFUSED when it does not, after
 * logging nothing: the caller decides how to degrade.
 */
int journal_probe(void);

int journal_new(const struct journal_opts *o, struct journal **ret);
void journal_free(struct journal *j);

/* Returns 0 or a negative errno (-EAGAIN: the writer's queue is full); counts failures itself. */
int journal_write_event(struct journal *j, const struct record *r);
int journal_write_summary(struct journal *j, const struct func *f, const struct summary *s,
			  double interval_s);
int journal_write_loss(struct journal *j, const struct loss *l, unsigned int n, uint64_t misses,
		       double interval_s);
/*
 * A summary of a layer's own view (per share, per syscall, per stack...):
 * the histogram of s under FUNCTION function, the view's fields, and its
 * MESSAGE_ID (NULL: the summary one).
 */
int journal_write_view_summary(struct journal *j, const char *function, enum layer_id layer,
			       const struct summary *s, double interval_s, const struct record_field *extra,
			       unsigned int n, const char *message_id);
/*
 * An entry of a layer's own view that is no latency histogram (an smbd's
 * time split, a counted stack): MESSAGE, its MESSAGE_ID, FUNCTION, LAYER
 * and the view's fields (those with a NULL value left out), at the summary
 * priority.
 */
int journal_write_view(struct journal *j, const char *function, enum layer_id layer, const char *message_id,
		       const char *message, const struct record_field *extra, unsigned int n);
/* Its fields, as journal_event_fields() (for tests). */
int journal_view_fields(const char *function, enum layer_id layer, const char *message_id,
			const char *message, const struct record_field *extra, unsigned int n,
			char ***fields);
/* Status entries, MESSAGE_ID by their kind: start-up, layers, probes, reloads, writes, stop. */
int journal_write_status(struct journal *j, const struct status *s);
/* Whether stderr is the journal (JOURNAL_STREAM): then status lines go there once. */
bool journal_is_stderr(void);

/*
 * reliability: from now on entries are queued to w's thread (see writer.c)
 * instead of sent by the caller; a queued entry returns 0, a full queue
 * -EAGAIN. Loss entries that fail later give their counts back to w.
 */
struct writer;
void journal_set_writer(struct journal *j, struct writer *w);
/* Event entries are queued until a batch is ready: the caller has no more for now. */
void journal_flush(struct journal *j);

/*
 * Entries sent, and refused or never sent (a field that could not be
 * built or sent), since start, by the journal itself: before the writer
 * was set, and entries with an error; the writer counts its own.
 */
uint64_t journal_failed(const struct journal *j);
uint64_t journal_written(const struct journal *j);

/*
 * Builds the entry's fields as "NAME=value" strings (for tests and for the
 * fuzzer); returns the count, fields[] malloc'd, caller frees each and the array.
 */
int journal_event_fields(const struct record *r, char ***fields);
/*
 * The same for summary and loss entries. These builders have no journal_opts:
 * PRIORITY is the default of each kind (slow: warning, summary: info, lost: err).
 */
int journal_summary_fields(const struct func *f, const struct summary *s, double interval_s, char ***fields);
int journal_loss_fields(const struct loss *l, unsigned int n, uint64_t misses, double interval_s,
			char ***fields);
int journal_status_fields(const struct status *s, char ***fields);

/* true when NAME is a valid journal field name (A-Z 0-9 _, not leading _ or digit, <= 64). */
bool journal_field_name_valid(const char *name);
