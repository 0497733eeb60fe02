/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Status lines: what the agent says about itself (start, layers, reload,
 * stop). Every part of the agent says it here, below the layers, so that no
 * part calls back up into the main loop; the core tells this service where
 * the lines go besides stderr (the journal, once that sink exists).
 */
#pragma once

#include <stdbool.h>

/* What a status line is about: each kind has its own MESSAGE_ID in the journal. */
enum status_kind {
	STATUS_AGENT,               /* start, ready, stop, privileges */
	STATUS_LAYER,               /* a layer attached, waits, degraded, unavailable */
	STATUS_RELOAD,              /* SIGHUP applied or refused */
	STATUS_WRITER,              /* journal writes failing or resumed */
	_STATUS_KIND_MAX,
};

/* One status line, as the sink gets it. */
struct status {
	enum status_kind kind;
	int priority;               /* syslog priority */
	const char *layer;          /* layer name, or NULL */
	const char *message;
};

typedef void (*log_sink_fn)(void *userdata, const struct status *s);

/*
 * Where status lines go besides stderr; NULL: stderr only. to_stderr
 * false: not on stderr when the sink has them (stderr is the journal).
 */
void log_set_sink(log_sink_fn fn, void *userdata, bool to_stderr);

void log_status(enum status_kind kind, int priority, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* A line about one layer: "smb: ..." on stderr, LAYER=smb in the journal. */
void log_layer(const char *layer, int priority, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
