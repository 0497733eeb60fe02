/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Status entries: what the agent says about itself (start, layers, probes,
 * reload, journal writes, stop). Every part of the agent says it here,
 * below the layers, so that no part calls back up into the main loop; the
 * core tells this service where the entries go besides stderr (the
 * journal, once that sink exists).
 *
 * A status carries codes, not only text, so that alerts match fields
 * instead of parsing MESSAGE: its kind (its own MESSAGE_ID, and for layers
 * LAYER_STATE), the layer or function it is about, a reason code (REASON=)
 * and counts. smblat-fields(7) lists them.
 */
#pragma once

#include <stdbool.h>
#include <stdint.h>

/* What a status is about and which state it reports. */
enum status_kind {
	STATUS_AGENT_START,       /* starting */
	STATUS_AGENT_READY,       /* tracing: ATTACHED, THRESHOLD_US */
	STATUS_AGENT_STOP,        /* stopped: ENTRIES_WRITTEN, ENTRIES_FAILED */
	STATUS_AGENT_FAILED,      /* did not start: REASON */
	STATUS_AGENT_DEGRADED,    /* runs with less than was asked for: REASON */
	STATUS_LAYER_ATTACHED,    /* LAYER traces: ATTACHED, NOT_ATTACHED */
	STATUS_LAYER_WAITING,     /* LAYER attaches once REASON is gone: DETACHED after an unload */
	STATUS_LAYER_UNAVAILABLE, /* LAYER cannot trace here: REASON */
	STATUS_LAYER_OFF,         /* LAYER off: disabled by a reload, not found by auto: DETACHED */
	STATUS_PROBE_ATTACHED,    /* FUNCTION (of LAYER) attached again: its module came back */
	STATUS_PROBE_WAITING,     /* FUNCTION attaches when its module loads */
	STATUS_PROBE_FAILED,      /* FUNCTION, or NOT_ATTACHED functions of LAYER, not attached: REASON */
	STATUS_RELOAD_APPLIED,    /* SIGHUP: PROBES_ADDED, ..., ATTACHED, DETACHED, THRESHOLD_US */
	STATUS_RELOAD_REFUSED,    /* SIGHUP: the file, or keys of it, not applied: REASON */
	STATUS_WRITER_FAILING,    /* journal writes fail, entries are counted as lost: REASON */
	STATUS_WRITER_RESUMED,    /* journal writes work again */
	_STATUS_KIND_MAX,
};

/* Why: the REASON= codes, named in log.c. */
enum status_reason {
	REASON_NONE,
	REASON_NO_BACKEND,        /* no-backend: the kernel attaches no kernel function */
	REASON_NO_MODULE,         /* no-module: this kernel has no such module */
	REASON_MODULE_NOT_LOADED, /* module-not-loaded: attached when it loads */
	REASON_MODULE_UNLOADED,   /* module-unloaded: attached again when it loads */
	REASON_NO_BINARY,         /* no-binary: no such program (smbd) */
	REASON_NOT_FOUND,         /* not-found: function, symbol, library, probe or device */
	REASON_ATTACH_FAILED,     /* attach-failed: the kernel refused the probe */
	REASON_RESTART_NEEDED,    /* restart-needed: takes effect at the next start */
	REASON_DISABLED,          /* disabled: by the configuration or a reload */
	REASON_CONFIG_INVALID,    /* config-invalid: the file was refused */
	REASON_NOTHING_TO_TRACE,  /* nothing-to-trace */
	REASON_NO_USER,           /* no-user: user= does not exist, running as root */
	REASON_PRIVILEGES,        /* privileges: capabilities could not be raised */
	REASON_NO_JOURNAL,        /* no-journal: journald is not running */
	REASON_QUEUE_FULL,        /* queue-full: journald does not keep up */
	REASON_WRITE_REFUSED,     /* write-refused: journald refuses entries */
	REASON_SYSTEM,            /* system-error: memory, files, kernel symbols: see MESSAGE */
	_REASON_MAX,
};

/* Counts a status may carry, each a field of its own (named in log.c). */
enum status_count {
	COUNT_ATTACHED,     /* functions attached */
	COUNT_NOT_ATTACHED, /* functions wanted but not attached */
	COUNT_DETACHED,     /* functions detached */
	COUNT_PROBES_ADDED, /* reload: [probe] sections attached anew */
	COUNT_PROBES_REMOVED,
	COUNT_PROBES_KEPT,
	COUNT_PROBES_FAILED,
	COUNT_ENTRIES_WRITTEN, /* journal entries since start */
	COUNT_ENTRIES_FAILED,
	COUNT_THRESHOLD_US, /* the [agent] threshold in force */
	_COUNT_MAX,
};

/* One status, as the sink gets it. */
struct status {
	enum status_kind kind;
	int priority; /* syslog priority */
	enum status_reason reason;
	const char *layer;    /* layer name, or NULL */
	const char *function; /* the FUNCTION of a probe, or NULL */
	uint32_t has;         /* bit (1 << enum status_count) set: count[] holds it */
	uint64_t count[_COUNT_MAX];
	const char *message;
};

/* "no-backend", ...; NULL for REASON_NONE. */
const char *status_reason_name(enum status_reason r);
/* "ATTACHED", ... */
const char *status_count_name(enum status_count c);
/* For layer kinds "attached", "waiting", "unavailable", "off" (LAYER_STATE); else NULL. */
const char *status_layer_state(enum status_kind k);

static inline void status_count_set(struct status *s, enum status_count c, uint64_t v)
{
	s->has |= 1u << c;
	s->count[c] = v;
}

/*
 * Where statuses go besides stderr; NULL: stderr only. to_stderr false:
 * not on stderr when the sink takes them (stderr is the journal). A sink
 * returns negative when it could not take one: that one goes to stderr.
 */
typedef int (*log_sink_fn)(void *userdata, const struct status *s);
void log_set_sink(log_sink_fn fn, void *userdata, bool to_stderr);

/*
 * Statuses of these kinds (bits 1 << enum status_kind) stay off stderr when
 * the sink takes them: a terminal gets a summary of them instead. 0: none.
 */
void log_stderr_skip(uint32_t kinds);

/* s, its message formatted: "layer: message" on stderr, the fields in the journal. */
void log_emit(const struct status *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* About the agent (no layer). */
void log_status(enum status_kind kind, enum status_reason reason, int priority, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* About one layer. */
void log_layer(const char *layer, enum status_kind kind, enum status_reason reason, int priority,
	       const char *fmt, ...) __attribute__((format(printf, 5, 6)));
