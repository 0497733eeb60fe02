/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journald sink: one entry per slow call, per summary, per loss report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/hist.h"
#include "base/log.h"
#include "decode/record.h"

/* MESSAGE_IDs, documented in the catalog (units/smblat.catalog). */
#define SMBLAT_MID_SLOW     "a48f35af155e4887a8d221f2a9c1c250"
#define SMBLAT_MID_SUMMARY  "ab8331e2b4474579a55840c9d3a77bac"
#define SMBLAT_MID_LOST     "007f72e0507d4b96b52049ce539ad083"
#define SMBLAT_MID_STATUS   "7106711428c445b698f0b7f8871465e2"   /* start, stop, degraded layers */
/* SMB connection events (smb2 layer) */
#define SMBLAT_MID_SMB_RECONNECT       "a936ebed06754f1283b3c504570f470f"
#define SMBLAT_MID_SMB_SESSION_SETUP   "f95b658a9a114ac2b5a319ebdff7e4e1"
#define SMBLAT_MID_SMB_LOGOFF          "6ac0619b14644612bd95457ad7005318"
#define SMBLAT_MID_SMB_SESSION_EXPIRED "895ca5666f9041d3bee0c9778ef5d300"
#define SMBLAT_MID_SMB_TREE_CONNECT    "2e39dd28181a468bbe618a3a021c98ed"
#define SMBLAT_MID_SMB_CREDIT_STALL    "28dcdd6eb1ea44efbc89c1b9de94d738"
#define SMBLAT_MID_SMB_SLOW_RESPONSE   "aa3cc49f94e7446e82bc583a55646de4"
/* views: summaries per share and per server, the per-layer breakdown */
#define SMBLAT_MID_SHARE_SUMMARY       "3fc21a16f1424ec8a54fe2f452147959"
#define SMBLAT_MID_SERVER_SUMMARY      "e78ca87a34de4a1da3e39d418e9302a2"
#define SMBLAT_MID_BREAKDOWN           "951a530d517b48cca8e44bac27398543"

#define JOURNAL_STACK_MAX 4000      /* STACK stays under 4 KiB so json output keeps it */

struct journal;

struct journal_opts {
	int priority_slow;          /* LOG_WARNING by default */
	int priority_summary;       /* LOG_INFO */
	int priority_lost;          /* LOG_ERR */
};

/* Loss counts of one FUNCTION since the last report. */
struct loss {
	const struct func *func;
	uint64_t ringbuf;           /* BPF ring buffer had no room */
	uint64_t suppressed;        /* dropped by the agent's rate limit */
	uint64_t write_failed;      /* journald did not take the entry */
	uint64_t untimed;           /* requests never timed (block, smb2, smbd): in no summary */
};

/*
 * Checks that journald listens (/run/systemd/journal/socket is a socket
 * that accepts a datagram); -ENOENT/-ECONNREFUSED when it does not, after
 * logging nothing: the caller decides how to degrade.
 */
int journal_probe(void);

int journal_new(const struct journal_opts *o, struct journal **ret);
void journal_free(struct journal *j);

/* Returns 0 or negative errno from sd_journal_sendv; counts failures itself. */
int journal_write_event(struct journal *j, const struct record *r);
int journal_write_summary(struct journal *j, const struct func *f,
			  const struct summary *s, double interval_s);
int journal_write_loss(struct journal *j, const struct loss *l, unsigned int n,
		       double interval_s);
/*
 * A summary of a layer's own view (per share, per syscall, per stack...):
 * the histogram of s under FUNCTION function, the view's fields, and its
 * MESSAGE_ID (NULL: the summary one).
 */
int journal_write_view_summary(struct journal *j, const char *function, enum layer_id layer,
			       const struct summary *s, double interval_s,
			       const struct record_field *extra, unsigned int n, const char *message_id);
/* Status entries (MESSAGE_ID=SMBLAT_MID_STATUS): start-up, layers, reloads, stop. */
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

/* Entries that sd_journal_sendv() refused, since start. */
uint64_t journal_failed(const struct journal *j);

/*
 * Builds the entry's fields as "NAME=value" strings (for tests and for the
 * fuzzer); returns the count, fields[] malloc'd, caller frees each and the array.
 */
int journal_event_fields(const struct record *r, char ***fields);
/*
 * The same for summary and loss entries. These builders have no journal_opts:
 * PRIORITY is the default of each kind (slow: warning, summary: info, lost: err).
 */
int journal_summary_fields(const struct func *f, const struct summary *s, double interval_s,
			   char ***fields);
int journal_loss_fields(const struct loss *l, unsigned int n, double interval_s, char ***fields);

/* true when NAME is a valid journal field name (A-Z 0-9 _, not leading _ or digit, <= 64). */
bool journal_field_name_valid(const char *name);
