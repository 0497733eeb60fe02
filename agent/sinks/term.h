/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The terminal sink (--stdout): smbvfsslower-style lines, CSV, funcslower extras. */
#pragma once

#include <stdbool.h>
#include <stdio.h>

#include "decode/record.h"

enum term_format {
	TERM_TEXT,       /* ENDTIME  TASK  PID  FUNCTION  LATENCY(ms) */
	TERM_CSV,        /* ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us */
	TERM_FUNCSLOWER, /* TIME COMM PID LAT(ms) RVAL FUNC [ARGS], as funcslower (-f) */
};

struct term_opts {
	enum term_format format;
	bool show_stack; /* print STACK lines under each event */
	bool show_args;  /* ARGS column */
	bool show_ret;   /* RVAL column */
	bool folded;     /* print stack_folded lines (flame graph input) instead */
	bool micro;      /* funcslower -u: LAT(us) in microseconds */
	int name_width;  /* TERM_TEXT's FUNCTION column: the longest name traced, 0: 24 */
};

void term_print_header(FILE *out, const struct term_opts *o);
void term_print_event(FILE *out, const struct term_opts *o, const struct record *r);
