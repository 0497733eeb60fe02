/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journald sink: one entry per slow call, per summary, per loss report. */
#pragma once

#include <stdbool.h>
#include <stdint.h>

#include "base/hist.h"
#include "base/log.h"
#include "decode/record.h"

/* MESSAGE_IDs, documented in the catalog (units/smblat.catalog). */
#define SMBLAT_MID_SLOW "a48f35af155e4887a8d221f2a9c1c250"
#define SMBLAT_MID_SUMMARY "ab8331e2b4474579a55840c9d3a77bac"
#define SMBLAT_MID_LOST "007f72e0507d4b96b52049ce539ad083"
/* Status entries, one per enum status_kind (base/log.h). */
#define SMBLAT_MID_AGENT_START "34875d28e8d74ae0835d1a43ea797a29"
#define SMBLAT_MID_AGENT_READY "6d4a741edd5141d1b887a019dbc27c13"
#define SMBLAT_MID_AGENT_STOP "000a570d70c34918a2d2b92626a85235"
#define SMBLAT_MID_AGENT_FAILED "d9f0e7479be54e2a93402d20c058f2d9"
#define SMBLAT_MID_AGENT_DEGRADED "4114fad0ff2740eca80cf1ac940e44d6"
#define SMBLAT_MID_LAYER_ATTACHED "70f3a1c5e2d349b5852ba8ebaca7f03f"
/* the ID all status entries shared before they had kinds; "cifs module unloaded" kept it */
#define SMBLAT_MID_LAYER_WAITING "7106711428c445b698f0b7f8871465e2"
#define SMBLAT_MID_LAYER_UNAVAILABLE "4785c1bdd50f433086649b46c3453a80"
#define SMBLAT_MID_LAYER_OFF "fb55e150488c49ce9e5fc54896673a65"
#define SMBLAT_MID_PROBE_ATTACHED "d64263b995be464ea9494a9f48ca0fde"
#define SMBLAT_MID_PROBE_WAITING "4111a39f587b4b4386b8024ac5b749ee"
#define SMBLAT_MID_PROBE_FAILED "54f66d96cd1445c1a2a205ae99a3daaa"
#define SMBLAT_MID_RELOAD_APPLIED "14507de9f48d4e27ad9cec800b9e680e"
#define SMBLAT_MID_RELOAD_REFUSED "41cf10865b7c4f0b81d93775fba5fb15"
#define SMBLAT_MID_WRITER_FAILING "38cbbbc494e840b499b4ed7043bb2219"
#define SMBLAT_MID_WRITER_RESUMED "dfa753592cc54982a469608e72db4a98"
/* The entries of the views beside the latency histograms. */
#define SMBLAT_MID_SYSCALLS "37696141c77044bb90174634b6002f95" /* per-syscall accounting summary */
#define SMBLAT_MID_STACKS "29fff22de3004d9c8fdf70318b61193f"   /* a counted stack of a FUNCTION */
#define SMBLAT_MID_SPLIT "2610ed9fe5674be1b0126b87a071d042"    /* an smbd's time split */
#define SMBLAT_MID_EXIT "3aefbceff9ca401c9d1fb860c0bd08d8"     /* an smbd process exited */
#define SMBLAT_MID_BREAK "06e3d38cf4f04c3c8e16f9276e76cd63"    /* an oplock or lease break answered */
/* SMB connection events (smb2 layer) */
#define SMBLAT_MID_SMB_RECONNECT "a936ebed06754f1283b3c504570f470f"
#define SMBLAT_MID_SMB_SESSION_SETUP "f95b658a9a114ac2b5a319ebdff7e4e1"
#define SMBLAT_MID_SMB_LOGOFF "6ac0619b14644612bd95457ad7005318"
#define SMBLAT_MID_SMB_SESSION_EXPIRED "895ca5666f9041d3bee0c9778ef5d300"
#define SMBLAT_MID_SMB_TREE_CONNECT "2e39dd28181a468bbe618a3a021c98ed"
#define SMBLAT_MID_SMB_CREDIT_STALL "28dcdd6eb1ea44efbc89c1b9de94d738"
#define SMBLAT_MID_SMB_SLOW_RESPONSE "aa3cc49f94e7446e82bc583a55646de4"
/* views: summaries per share and per server, the per-layer breakdown */
#define SMBLAT_MID_SHARE_SUMMARY "3fc21a16f1424ec8a54fe2f452147959"
#define SMBLAT_MID_SERVER_SUMMARY "e78ca87a34de4a1da3e39d418e9302a2"
#define SMBLAT_MID_BREAKDOWN "951a530d517b48cca8e44bac27398543"

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
	uint64_t untimed;      /* requests never timed (block, smb2, smbd): in no summary */
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
int journal_write_summary(struct journal *j, const struct func *f, const struct summary *s,
			  double interval_s);
int journal_write_loss(struct journal *j, const struct loss *l, unsigned int n, double interval_s);
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
int journal_summary_fields(const struct func *f, const struct summary *s, double interval_s, char ***fields);
int journal_loss_fields(const struct loss *l, unsigned int n, double interval_s, char ***fields);
int journal_status_fields(const struct status *s, char ***fields);

/* true when NAME is a valid journal field name (A-Z 0-9 _, not leading _ or digit, <= 64). */
bool journal_field_name_valid(const char *name);
