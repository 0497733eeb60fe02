/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The terminal sink (--stdout): smbvfsslower-style lines, CSV, funcslower extras. */
#include <inttypes.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "sinks/term.h"

/* Every comm byte may need "\xNN". */
#define TASK_MAX (SMBLAT_COMM_LEN * 4 + 1)
#define RVAL_WIDTH 18 /* "0x" and 16 hex digits */

/*
 * comm is whatever the task set with prctl(): escape control bytes so a
 * process name cannot drive the terminal, and drop the padding some tools add.
 * folded: ';' would split the frame list, so it becomes '_'.
 */
static const char *task_escape(const char *comm, bool folded, char out[static TASK_MAX])
{
	size_t n = strnlen(comm, SMBLAT_COMM_LEN);
	char *p = out;

	while (n > 0 && comm[n - 1] == ' ')
		n--;
	for (size_t i = 0; i < n; i++) {
		unsigned char c = (unsigned char)comm[i];

		if (c < 0x20 || c == 0x7f)
			p += sprintf(p, "\\x%02x", c);
		else if (folded && c == ';')
			*p++ = '_';
		else
			*p++ = (char)c;
	}
	*p = '\0';
	return out;
}

/* RFC 4180: quote when the field holds a separator or a quote, double the quotes. */
static void csv_put(FILE *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, out);
		return;
	}
	fputc('"', out);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', out);
		fputc(*s, out);
	}
	fputc('"', out);
}

static void ret_format(const struct record *r, char *buf, size_t n)
{
	record_ret_text(r, buf, n);
}

static void args_print(FILE *out, const struct record *r)
{
	unsigned int n = r->nargs < SMBLAT_MAX_ARGS ? r->nargs : SMBLAT_MAX_ARGS;

	for (unsigned int i = 0; i < n; i++)
		fprintf(out, "%s0x%" PRIx64, i ? " " : "", r->args[i]);
}

/* funcslower's columns: the function last, where a long PATH:symbol fits. */
#define FS_RVAL_WIDTH 16

static void header_funcslower(FILE *out, const struct term_opts *o)
{
	fprintf(out, "%-8s %-16s %-7s %10s %*s %s", "TIME", "COMM", "PID", o->micro ? "LAT(us)" : "LAT(ms)",
		FS_RVAL_WIDTH, "RVAL", "FUNC");
	if (o->show_args)
		fputs(" ARGS", out);
	fputc('\n', out);
}

static void end_time(const struct record *r, char buf[static 16])
{
	time_t t = (time_t)(r->end_realtime_us / 1000000);
	struct tm tm;

	strcpy(buf, "??:??:??");
	if (localtime_r(&t, &tm))
		strftime(buf, 16, "%H:%M:%S", &tm);
}

static void print_stack(FILE *out, const char *stack);

static void print_funcslower(FILE *out, const struct term_opts *o, const struct record *r)
{
	char task[TASK_MAX], endtime[16], ret[32];
	uint64_t us = r->latency_ns / 1000;

	end_time(r, endtime);
	ret_format(r, ret, sizeof(ret));
	if (o->micro)
		fprintf(out, "%-8s %-16s %-7" PRIu32 " %10" PRIu64 " %*s %s", endtime,
			task_escape(r->comm, false, task), r->pid, us, FS_RVAL_WIDTH, ret, r->func->name);
	else
		fprintf(out, "%-8s %-16s %-7" PRIu32 " %6" PRIu64 ".%03" PRIu64 " %*s %s", endtime,
			task_escape(r->comm, false, task), r->pid, us / 1000, us % 1000, FS_RVAL_WIDTH, ret,
			r->func->name);
	if (o->show_args && r->nargs > 0) {
		fputc(' ', out);
		args_print(out, r);
	}
	fputc('\n', out);
	if (o->show_stack)
		print_stack(out, r->stack);
}

static int name_width(const struct term_opts *o)
{
	return o->name_width > 24 ? o->name_width : 24;
}

void term_print_header(FILE *out, const struct term_opts *o)
{
	if (o->folded)
		return; /* flame graph input has no header */
	if (o->format == TERM_FUNCSLOWER) {
		header_funcslower(out, o);
		return;
	}
	if (o->format == TERM_CSV) {
		fputs("ENDTIME_us,TASK,PID,FUNCTION,LATENCY_us", out);
		if (o->show_ret)
			fputs(",RVAL", out);
		if (o->show_args)
			fputs(",ARGS", out);
		if (o->show_stack)
			fputs(",STACK", out);
		fputc('\n', out);
		return;
	}
	fprintf(out, "%-8s %-16s %-7s %-*s %11s", "ENDTIME", "TASK", "PID", name_width(o), "FUNCTION",
		"LATENCY(ms)");
	if (o->show_ret)
		fprintf(out, " %-*s", o->show_args ? RVAL_WIDTH : 0, "RVAL");
	if (o->show_args)
		fputs(" ARGS", out);
	fputc('\n', out);
}

static void print_folded(FILE *out, const struct record *r)
{
	char task[TASK_MAX];

	fprintf(out, "%s;", task_escape(r->comm, true, task));
	if (r->stack_folded && r->stack_folded[0])
		fprintf(out, "%s;", r->stack_folded);
	fprintf(out, "%s %" PRIu64 "\n", r->func->name, r->latency_ns / 1000);
}

/* The stack as one column (folded, outermost first): stack lines would break the one-row-per-event shape. */
static void print_csv(FILE *out, const struct term_opts *o, const struct record *r)
{
	char task[TASK_MAX], ret[32];

	fprintf(out, "%" PRIu64 ",", r->end_realtime_us);
	csv_put(out, task_escape(r->comm, false, task));
	fprintf(out, ",%" PRIu32 ",", r->pid);
	csv_put(out, r->func->name);
	fprintf(out, ",%" PRIu64, r->latency_ns / 1000);
	if (o->show_ret) {
		ret_format(r, ret, sizeof(ret));
		fprintf(out, ",%s", ret);
	}
	if (o->show_args) {
		fputc(',', out);
		args_print(out, r);
	}
	if (o->show_stack) {
		fputc(',', out);
		csv_put(out, r->stack_folded ? r->stack_folded : "");
	}
	fputc('\n', out);
}

static void print_stack(FILE *out, const char *stack)
{
	const char *p, *nl;

	for (p = stack; p && *p; p = nl ? nl + 1 : NULL) {
		nl = strchr(p, '\n');
		if (nl == p)
			continue;
		fprintf(out, "    %.*s\n", (int)(nl ? nl - p : (ptrdiff_t)strlen(p)), p);
	}
}

static void print_text(FILE *out, const struct term_opts *o, const struct record *r)
{
	char task[TASK_MAX], endtime[16] = "??:??:??", ret[32];
	uint64_t us = r->latency_ns / 1000;
	char latency[32];
	time_t t = (time_t)(r->end_realtime_us / 1000000);
	struct tm tm;

	if (localtime_r(&t, &tm))
		strftime(endtime, sizeof(endtime), "%H:%M:%S", &tm);
	snprintf(latency, sizeof(latency), "%" PRIu64 ".%03" PRIu64, us / 1000, us % 1000);
	fprintf(out, "%-8s %-16s %-7" PRIu32 " %-*s %11s", endtime, task_escape(r->comm, false, task), r->pid,
		name_width(o), r->func->name, latency);
	if (o->show_ret) {
		ret_format(r, ret, sizeof(ret));
		fprintf(out, " %-*s", o->show_args ? RVAL_WIDTH : 0, ret);
	}
	if (o->show_args && r->nargs > 0) {
		fputc(' ', out);
		args_print(out, r);
	}
	/*
	 * the layer's words for what the call worked on: " on loop0, 65536 bytes
	 * at sector 2048"; for an event that is no call, what happened: ": exited"
	 */
	if (r->place)
		fprintf(out, r->message_id ? ": %s" : " on %s", r->place);
	fputc('\n', out);
	if (o->show_stack)
		print_stack(out, r->stack);
}

void term_print_event(FILE *out, const struct term_opts *o, const struct record *r)
{
	if (o->folded)
		print_folded(out, r);
	else if (o->format == TERM_CSV)
		print_csv(out, o, r);
	else if (o->format == TERM_FUNCSLOWER)
		print_funcslower(out, o, r);
	else
		print_text(out, o, r);
}
