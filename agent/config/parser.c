// SPDX-License-Identifier: LGPL-2.1-or-later
/* The failure of a value: the first one of a text is kept, with its line, for the loader to say. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "base/utf8.h"
#include "config/config-int.h"

static int parser_failv(struct config_parser *p, int error, const char *fmt, va_list ap)
{
	char raw[sizeof(p->message)];

	if (p->error)
		return p->error;
	vsnprintf(raw, sizeof(raw), fmt, ap);
	/* it echoes what the file says, which may be any bytes */
	utf8_escape(p->message, sizeof(p->message), raw);
	p->error = error;
	p->error_line = p->line;
	return error;
}

int parser_fail(struct config_parser *p, int error, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = parser_failv(p, error, fmt, ap);
	va_end(ap);
	return r;
}

int config_fail(struct config_parser *p, const char *fmt, ...)
{
	va_list ap;
	int r;

	va_start(ap, fmt);
	r = parser_failv(p, -EINVAL, fmt, ap);
	va_end(ap);
	return r;
}

int config_oom(struct config_parser *p)
{
	return parser_fail(p, -ENOMEM, "%s", strerror(ENOMEM));
}

const char *config_parser_key(const struct config_parser *p)
{
	return p->key;
}
