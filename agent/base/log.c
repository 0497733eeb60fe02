// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"

static const char *const reason_names[_REASON_MAX] = {
	[REASON_NO_BACKEND] = "no-backend",
	[REASON_NO_MODULE] = "no-module",
	[REASON_MODULE_NOT_LOADED] = "module-not-loaded",
	[REASON_MODULE_UNLOADED] = "module-unloaded",
	[REASON_NO_BINARY] = "no-binary",
	[REASON_NOT_FOUND] = "not-found",
	[REASON_ATTACH_FAILED] = "attach-failed",
	[REASON_RESTART_NEEDED] = "restart-needed",
	[REASON_DISABLED] = "disabled",
	[REASON_CONFIG_INVALID] = "config-invalid",
	[REASON_NOTHING_TO_TRACE] = "nothing-to-trace",
	[REASON_NO_USER] = "no-user",
	[REASON_PRIVILEGES] = "privileges",
	[REASON_NO_JOURNAL] = "no-journal",
	[REASON_QUEUE_FULL] = "queue-full",
	[REASON_WRITE_REFUSED] = "write-refused",
	[REASON_SYSTEM] = "system-error",
};

static const char *const count_names[_COUNT_MAX] = {
	[COUNT_ATTACHED] = "ATTACHED",
	[COUNT_NOT_ATTACHED] = "NOT_ATTACHED",
	[COUNT_DETACHED] = "DETACHED",
	[COUNT_PROBES_ADDED] = "PROBES_ADDED",
	[COUNT_PROBES_REMOVED] = "PROBES_REMOVED",
	[COUNT_PROBES_KEPT] = "PROBES_KEPT",
	[COUNT_PROBES_FAILED] = "PROBES_FAILED",
	[COUNT_ENTRIES_WRITTEN] = "ENTRIES_WRITTEN",
	[COUNT_ENTRIES_FAILED] = "ENTRIES_FAILED",
	[COUNT_THRESHOLD_US] = "THRESHOLD_US",
};

const char *status_reason_name(enum status_reason r)
{
	return r > REASON_NONE && r < _REASON_MAX ? reason_names[r] : NULL;
}

const char *status_count_name(enum status_count c)
{
	return c < _COUNT_MAX ? count_names[c] : NULL;
}

const char *status_layer_state(enum status_kind k)
{
	switch (k) {
	case STATUS_LAYER_ATTACHED:
		return "attached";
	case STATUS_LAYER_WAITING:
		return "waiting";
	case STATUS_LAYER_UNAVAILABLE:
		return "unavailable";
	case STATUS_LAYER_OFF:
		return "off";
	default:
		return NULL;
	}
}

static struct {
	log_sink_fn fn;
	void *userdata;
	bool to_stderr;
	uint32_t skip; /* kinds not on stderr when the sink took them */
} sink = { .to_stderr = true };

void log_stderr_skip(uint32_t kinds)
{
	sink.skip = kinds;
}

void log_set_sink(log_sink_fn fn, void *userdata, bool to_stderr)
{
	sink.fn = fn;
	sink.userdata = userdata;
	sink.to_stderr = !fn || to_stderr;
}

static void emit(const struct status *s0, const char *fmt, va_list ap)
{
	struct status s = *s0;
	char *msg;
	bool taken = false;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	s.message = msg;
	if (sink.fn)
		taken = sink.fn(sink.userdata, &s) >= 0;
	if (!taken || (sink.to_stderr && !(sink.skip & (1u << s.kind))))
		fprintf(stderr, "smblat: %s%s%s\n", s.layer ? s.layer : "", s.layer ? ": " : "", msg);
	free(msg);
}

void log_emit(const struct status *s, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(s, fmt, ap);
	va_end(ap);
}

void log_status(enum status_kind kind, enum status_reason reason, int priority, const char *fmt, ...)
{
	struct status s = { .kind = kind, .reason = reason, .priority = priority };
	va_list ap;

	va_start(ap, fmt);
	emit(&s, fmt, ap);
	va_end(ap);
}

void log_layer(const char *layer, enum status_kind kind, enum status_reason reason, int priority,
	       const char *fmt, ...)
{
	struct status s = { .kind = kind, .reason = reason, .priority = priority, .layer = layer };
	va_list ap;

	va_start(ap, fmt);
	emit(&s, fmt, ap);
	va_end(ap);
}
