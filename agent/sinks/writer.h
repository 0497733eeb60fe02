/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The journal writer: a thread and a bounded queue of datagrams between the event loop and journald. */
#pragma once

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sinks/journal.h"

/*
 * Entries waiting, as their datagrams: room for the default rate limit's
 * burst (2,000) of entries with stacks while journald reads them. Memory
 * only as far as it is used: given back once the queue drains.
 */
#define WRITER_QUEUE_BYTES (4 * 1024 * 1024)
#define WRITER_QUEUE_RESERVE (64 * 1024) /* of that, room only loss and status entries may take */
#define WRITER_EVENT_ROOM (16 * 1024)    /* an event entry is built only when this much is free */
#define WRITER_BATCH 64                  /* entries the thread hands to one sendmmsg() */
#define WRITER_WAKE_BYTES (64 * 1024)    /* queued events that wake the thread without a kick */

struct writer;

/* Per function id, what the writer could not deliver since the last take. */
struct writer_losses {
	uint64_t write_failed; /* event entries refused by journald or left unsent */
	struct loss carried;   /* counts of loss entries that did not get through */
};

/* A writer to journald's socket (NATIVE_SOCKET), or to path (tests). */
int writer_new(struct writer **ret);
int writer_new_at(const char *path, struct writer **ret);
/* Starts the thread; from then on every entry goes through it. */
int writer_start(struct writer *w);
/*
 * Queues one entry (len bytes of datagram, copied). id: the function of
 * an event entry, or -1. carry/n_carry: the loss counts a loss entry
 * reports, given back through writer_take() if it fails. Returns -EAGAIN
 * when the queue is full: the entry is dropped and, unlike failures after
 * the push, left to the caller to count per function. The thread is woken
 * for loss and status entries and once a batch is waiting; the caller of
 * event entries wakes it with writer_kick() when it has no more for now.
 */
int writer_push(struct writer *w, const void *dgram, size_t len, int32_t id, const struct loss *carry,
		unsigned int n_carry);
/*
 * Whether an event entry would be refused now (less than WRITER_EVENT_ROOM
 * free): then it need not be built. writer_refuse() counts it as a push
 * refused, and returns -EAGAIN.
 */
bool writer_full(struct writer *w);
int writer_refuse(struct writer *w);
/*
 * Backpressure for a loop that reads events faster than journald takes
 * them: rather than build entries only to refuse them, it stops reading
 * (what its source cannot hold is lost there, and counted there) until
 * writer_room_fd() is readable. writer_wait_room() arms that: true while
 * the queue is still full, false when room came meanwhile. The fd becomes
 * readable once half the queue is free.
 */
int writer_room_fd(struct writer *w);
bool writer_wait_room(struct writer *w);
/* Wakes the thread for what is queued; with the queue empty, gives back the memory a burst took. */
void writer_kick(struct writer *w);
/* Adds what was lost since the last call to out[0..n) (indexed by function id). */
void writer_take(struct writer *w, struct writer_losses *out, uint32_t n);
/* Entries written and failed since start; the errno of the last failure, 0 after a success. */
void writer_counts(struct writer *w, uint64_t *written, uint64_t *failed, int *last_error);
/* The errno of the last failure since start, also after later successes; 0 if none. */
int writer_last_failure(struct writer *w);
/* Waits up to timeout_ms for the queue to drain; false when it did not. */
bool writer_drain(struct writer *w, unsigned int timeout_ms);
/*
 * Waits up to timeout_ms for the queue to drain, then stops the thread. What
 * is still queued is counted in writer_take() afterwards. Returns the count.
 */
uint64_t writer_stop(struct writer *w, unsigned int timeout_ms);
void writer_free(struct writer *w);
