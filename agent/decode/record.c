// SPDX-License-Identifier: LGPL-2.1-or-later
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "decode/record.h"

int record_add(struct record *r, const char *name, const char *fmt, ...)
{
	va_list ap;
	char *v;
	int n;

	if (r->n_fields >= RECORD_FIELDS_MAX) {
		r->fields_dropped++;
		return -E2BIG;
	}
	va_start(ap, fmt);
	n = vasprintf(&v, fmt, ap);
	va_end(ap);
	if (n < 0) {
		r->fields_dropped++;
		return -ENOMEM;
	}
	r->fields[r->n_fields++] = (struct record_field) { .name = name, .value = v };
	return 0;
}

/* *dst replaced by the formatted text; NULL and -ENOMEM without memory. */
static int text_set(char **dst, const char *fmt, va_list ap)
{
	free(*dst);
	if (vasprintf(dst, fmt, ap) < 0) {
		*dst = NULL;
		return -ENOMEM;
	}
	return 0;
}

int record_set_place(struct record *r, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = text_set(&r->place, fmt, ap);
	va_end(ap);
	return k;
}

int record_set_message(struct record *r, const char *message_id, const char *fmt, ...)
{
	va_list ap;
	int k;

	va_start(ap, fmt);
	k = text_set(&r->message, fmt, ap);
	va_end(ap);
	if (k == 0)
		r->message_id = message_id;
	return k;
}

const char *record_field(const struct record *r, const char *name)
{
	for (unsigned int i = 0; i < r->n_fields; i++)
		if (strcmp(r->fields[i].name, name) == 0)
			return r->fields[i].value;
	return NULL;
}

void record_clear(struct record *r)
{
	free((char *)r->file);
	free(r->stack);
	free(r->stack_folded);
	free(r->place);
	free(r->message);
	free(r->target);
	for (unsigned int i = 0; i < r->n_fields; i++)
		free(r->fields[i].value);
	memset(r, 0, sizeof(*r));
}

const char *record_ret_text(const struct record *r, char *buf, size_t n)
{
	switch (r->has_ret && r->func ? r->func->cfg.ret_kind : RK_VOID) {
	case RK_VOID:
		snprintf(buf, n, "-");
		break;
	case RK_PTR:
	case RK_USER:
	case RK_USER_PTR:
		snprintf(buf, n, "0x%" PRIx64, (uint64_t)r->ret);
		break;
	case RK_UINT:
	case RK_USER_U8:
	case RK_USER_U16:
	case RK_USER_U32:
	case RK_USER_U64:
		snprintf(buf, n, "%" PRIu64, (uint64_t)r->ret);
		break;
	default:
		snprintf(buf, n, "%" PRId64, r->ret);
		break;
	}
	return buf;
}
