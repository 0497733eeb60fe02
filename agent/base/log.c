// SPDX-License-Identifier: LGPL-2.1-or-later
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "base/log.h"

static struct {
	log_sink_fn fn;
	void *userdata;
	bool to_stderr;
} sink = { .to_stderr = true };

void log_set_sink(log_sink_fn fn, void *userdata, bool to_stderr)
{
	sink.fn = fn;
	sink.userdata = userdata;
	sink.to_stderr = !fn || to_stderr;
}

static void emit(enum status_kind kind, int priority, const char *layer, const char *fmt,
		 va_list ap)
{
	struct status s = { .kind = kind, .priority = priority, .layer = layer };
	char *msg;

	if (vasprintf(&msg, fmt, ap) < 0)
		return;
	s.message = msg;
	if (sink.to_stderr)
		fprintf(stderr, "smblat: %s%s%s\n", layer ? layer : "", layer ? ": " : "", msg);
	if (sink.fn)
		sink.fn(sink.userdata, &s);
	free(msg);
}

void log_status(enum status_kind kind, int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(kind, priority, NULL, fmt, ap);
	va_end(ap);
}

void log_layer(const char *layer, int priority, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	emit(STATUS_LAYER, priority, layer, fmt, ap);
	va_end(ap);
}
