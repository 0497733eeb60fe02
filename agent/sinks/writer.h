/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal writer: a thread and a bounded queue between the event loop and journald. */
#pragma once

#include <stdbool.h>
#include <stdint.h>
#include <sys/uio.h>

#include "sinks/journal.h"

#define WRITER_QUEUE_MAX 4096   /* event entries waiting; a few MiB at most */
#define WRITER_QUEUE_RESERVE 64 /* extra room for loss and status entries */

struct writer;

/*
 * One journal entry as sd_journal_sendv() takes it: n "NAME=value" fields,
 * iovecs into text that lives in the same allocation, so that handing it
 * over and freeing it are one pointer and one free().
 */
struct entry {
	struct entry *next; /* the writer's queue */
	int32_t id;         /* the function of an event entry, or -1 */
	unsigned int n_carry;
	struct loss *carry; /* a loss entry's counts (writer_push) */
	size_t n;
	struct iovec iov[];
};

/* An entry with n fields and room for text bytes after them, at entry_text(). */
struct entry *entry_new(size_t n, size_t text);
char *entry_text(struct entry *e);
/* A copy of n NUL-terminated "NAME=value" strings. */
struct entry *entry_of_strings(char *const *fields, size_t n);
void entry_free(struct entry *e);

/* Per function id, what the writer could not deliver since the last take. */
struct writer_losses {
	uint64_t write_failed; /* event entries refused by journald or left unsent */
	struct loss carried;   /* counts of loss entries that did not get through */
};

int writer_new(struct writer **ret);
/* Starts the thread; from then on every entry goes through it. */
int writer_start(struct writer *w);
/*
 * Hands over one entry, taken over whatever the result. id: the function of
 * an event entry, or -1. carry/n_carry: the loss counts a loss entry
 * reports, given back through writer_take() if it fails. Returns -EAGAIN
 * when the queue is full: the entry is dropped and, unlike failures after
 * the push, left to the caller to count per function.
 */
int writer_push(struct writer *w, struct entry *e, int32_t id, const struct loss *carry,
		unsigned int n_carry);
/* Adds what was lost since the last call to out[0..n) (indexed by function id). */
void writer_take(struct writer *w, struct writer_losses *out, uint32_t n);
/* Entries written and failed since start; the errno of the last failure, 0 after a success. */
void writer_counts(struct writer *w, uint64_t *written, uint64_t *failed, int *last_error);
/* Waits up to timeout_ms for the queue to drain; false when it did not. */
bool writer_drain(struct writer *w, unsigned int timeout_ms);
/*
 * Waits up to timeout_ms for the queue to drain, then stops the thread. What
 * is still queued is counted in writer_take() afterwards. Returns the count.
 */
uint64_t writer_stop(struct writer *w, unsigned int timeout_ms);
void writer_free(struct writer *w);
