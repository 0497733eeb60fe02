/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* A slow call decoded from the ring buffer, ready for the sinks. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "base/func.h"

#define RECORD_FIELDS_MAX 32

/* One field of a layer's own: NAME=value in the journal. */
struct record_field {
	const char *name; /* static: DISK, SMB_MID, ... */
	char *value;
};

struct record {
	const struct func *func;
	uint64_t end_realtime_us; /* end of the call, CLOCK_REALTIME */
	uint64_t latency_ns;
	uint64_t threshold_ns;
	uint32_t pid; /* process (tgid) */
	uint32_t tid;
	uint32_t uid;
	char comm[SMBLAT_COMM_LEN + 1];
	const char *share; /* \\server\share, or NULL */
	const char *file;  /* dentry name, or NULL */
	bool has_ret;
	int64_t ret; /* raw return value */
	int err;     /* positive errno when the call failed, else 0 */
	unsigned int nargs;
	uint64_t args[SMBLAT_MAX_ARGS];
	char *stack;        /* symbolized frames, innermost first, '\n' separated; or NULL */
	char *stack_folded; /* outer;...;inner, or NULL */
	/*
	 * What a layer adds (layer_ops.decode): its words for what the call
	 * worked on, for MESSAGE and the terminal line ("loop0, 65536 bytes at
	 * sector 2048"; NULL: the share and file above), and its fields.
	 */
	char *place;
	struct record_field fields[RECORD_FIELDS_MAX];
	unsigned int n_fields;
	unsigned int fields_dropped; /* adds that failed (no room, no memory): FIELDS_DROPPED */
	/*
	 * An event that is no slow call (a reconnect, a session set up): its
	 * own MESSAGE_ID and MESSAGE, set by its layer; LATENCY_US only when
	 * latency_ns is not 0, no THRESHOLD_US.
	 */
	const char *message_id; /* static; NULL: a slow call */
	char *message;
	/* the event's own TARGET (the hook that saw it), NULL: the function's */
	char *target;
	/* an event of no concern (an smbd that never served a client, ended well): info priority */
	bool routine;
};

/* Adds NAME=value (name static); -ENOMEM, -E2BIG past RECORD_FIELDS_MAX, each counted in fields_dropped. */
int record_add(struct record *r, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
int record_set_place(struct record *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* An event of its own kind (message_id static), with its MESSAGE. */
int record_set_message(struct record *r, const char *message_id, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/*
 * RETVAL as the function's type reads it: signed or unsigned decimal, or
 * hexadecimal with 0x for pointers and for user functions whose type is
 * not known (the register as it is); "-" without a value. Returns buf.
 */
const char *record_ret_text(const struct record *r, char *buf, size_t n);
/* The value of a field a layer added, or NULL. */
const char *record_field(const struct record *r, const char *name);
/* Frees what the record owns; it is empty after. */
void record_clear(struct record *r);
