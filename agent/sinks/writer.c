// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why a thread: sd_journal_sendv() writes to a blocking datagram socket.
 * When journald stalls (stopped, swapped out, busy rotating) its receive
 * queue fills and the next send blocks for as long as journald does. Done in
 * the event loop, that would stop the watchdog pings (systemd then kills
 * us) and the draining of the BPF ring buffer (the kernel then drops events
 * we could not even count per function). So the loop only formats entries
 * and queues them; this thread is the one that blocks. The queue is
 * bounded: when it is full, the entry is dropped at once and counted as
 * WRITE_FAILED for its function, so memory stays bounded and every event
 * is still either written or counted. Failures that sd_journal_sendv()
 * reports (ECONNREFUSED while journald is down) are counted the same way,
 * and so is a missing socket, which sd_journal_sendv() does not report.
 * The datagram socket is not connected, so the first send after journald
 * is back succeeds again. Loss entries that fail give their counts
 * back, so they are reported again once the journal answers.
 *
 * The thread takes the whole queue at once: one lock round, one look at
 * the socket and one wake-up per batch, not per entry, so that under a
 * flood it spends its time in sd_journal_sendv() and journald in reading.
 */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <time.h>

#define SD_JOURNAL_SUPPRESS_LOCATION
#include <systemd/sd-journal.h>

#include "sinks/writer.h"

#define JOURNAL_SOCKET "/run/systemd/journal/socket"

struct writer {
	pthread_mutex_t lock;
	pthread_cond_t wake; /* an entry arrived, or stop */
	pthread_cond_t idle; /* the queue drained */
	pthread_t thread;
	bool started, stopping;
	bool busy;             /* a batch is being sent, outside the lock */
	unsigned int in_batch; /* its size, still counted against the queue's bound */
	/* the batch's state, the thread's alone until it takes the lock or ends */
	struct entry *inflight;    /* what is unsent */
	struct entry *sent_failed; /* what journald refused */
	uint64_t sent;
	struct entry *head, *tail;
	unsigned int queued;
	uint64_t written, failed;
	int last_error;
	struct writer_losses lost[SMBLAT_MAX_FUNCS];
	uint64_t other_failed; /* summaries, status entries */
};

struct entry *entry_new(size_t n, size_t text)
{
	struct entry *e = malloc(sizeof(*e) + n * sizeof(struct iovec) + text);

	if (!e)
		return NULL;
	*e = (struct entry) { .id = -1, .n = n };
	return e;
}

char *entry_text(struct entry *e)
{
	return (char *)&e->iov[e->n];
}

struct entry *entry_of_strings(char *const *fields, size_t n)
{
	size_t text = 0;
	struct entry *e;
	char *p;

	for (size_t i = 0; i < n; i++)
		text += strlen(fields[i]);
	e = entry_new(n, text);
	if (!e)
		return NULL;
	p = entry_text(e);
	for (size_t i = 0; i < n; i++) {
		size_t len = strlen(fields[i]);

		memcpy(p, fields[i], len);
		e->iov[i] = (struct iovec) { .iov_base = p, .iov_len = len };
		p += len;
	}
	return e;
}

void entry_free(struct entry *e)
{
	if (!e)
		return;
	free(e->carry);
	free(e);
}

/* Called with the lock held: the entry is not going to be written. */
static void entry_count_failed(struct writer *w, const struct entry *e)
{
	w->failed++;
	if (e->id >= 0 && e->id < SMBLAT_MAX_FUNCS)
		w->lost[e->id].write_failed++;
	else
		w->other_failed++;
	for (unsigned int i = 0; i < e->n_carry; i++) {
		const struct loss *l = &e->carry[i];
		struct loss *c;

		if (!l->func || l->func->id >= SMBLAT_MAX_FUNCS)
			continue;
		c = &w->lost[l->func->id].carried;
		c->func = l->func;
		c->ringbuf += l->ringbuf;
		c->suppressed += l->suppressed;
		c->write_failed += l->write_failed;
		c->untimed += l->untimed;
	}
}

/*
 * sd_journal_sendv() reports success when journald's socket does not exist
 * (it takes that for "no journald here"): the entries would be gone without
 * a trace. Look before each batch; the window between the look and the
 * sends is all that is left of that.
 */
static int socket_check(void)
{
	struct stat st;

	if (stat(JOURNAL_SOCKET, &st) < 0)
		return -errno;
	return S_ISSOCK(st.st_mode) ? 0 : -ENOTSOCK;
}

/* Sends a batch outside the lock; returns the result of the last send. */
static int batch_send(struct writer *w, struct entry *batch)
{
	int r = socket_check(), last = 0;

	w->inflight = batch;
	while (w->inflight) {
		struct entry *e = w->inflight;

		if (r == 0) {
			/* The thread may be cancelled inside the send (journald stuck at exit). */
			pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
			last = sd_journal_sendv(e->iov, (int)e->n);
			pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
		} else {
			last = r;
		}
		w->inflight = e->next;
		if (last < 0) {
			e->next = w->sent_failed;
			w->sent_failed = e;
		} else {
			w->sent++;
			entry_free(e);
		}
	}
	return last;
}

/* Called with the lock held: the counts of what the thread sent. */
static void batch_settle(struct writer *w)
{
	w->written += w->sent;
	w->sent = 0;
	while (w->sent_failed) {
		struct entry *e = w->sent_failed;

		w->sent_failed = e->next;
		entry_count_failed(w, e);
		entry_free(e);
	}
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	/* Cancelled only inside a send that journald does not let finish. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct entry *batch;
		int r;

		while (!w->head && !w->stopping)
			pthread_cond_wait(&w->wake, &w->lock);
		if (!w->head)
			break;
		batch = w->head;
		w->head = w->tail = NULL;
		w->in_batch = w->queued;
		w->queued = 0;
		w->busy = true;
		pthread_mutex_unlock(&w->lock);

		r = batch_send(w, batch); /* may block while journald stalls */

		pthread_mutex_lock(&w->lock);
		w->busy = false;
		w->in_batch = 0;
		batch_settle(w);
		w->last_error = r < 0 ? -r : 0;
		if (!w->head)
			pthread_cond_broadcast(&w->idle);
	}
	pthread_mutex_unlock(&w->lock);
	return NULL;
}

int writer_new(struct writer **ret)
{
	struct writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->wake, NULL);
	pthread_cond_init(&w->idle, NULL);
	*ret = w;
	return 0;
}

int writer_start(struct writer *w)
{
	int r = pthread_create(&w->thread, NULL, writer_main, w);

	if (r)
		return -r;
	w->started = true;
	return 0;
}

int writer_push(struct writer *w, struct entry *e, int32_t id, const struct loss *carry, unsigned int n_carry)
{
	unsigned int max = WRITER_QUEUE_MAX + (id < 0 ? WRITER_QUEUE_RESERVE : 0);
	int r = 0;

	if (e) {
		e->next = NULL;
		e->id = id;
		if (n_carry) {
			e->carry = malloc(n_carry * sizeof(*carry));
			if (e->carry) {
				memcpy(e->carry, carry, n_carry * sizeof(*carry));
				e->n_carry = n_carry;
			}
		}
	}
	pthread_mutex_lock(&w->lock);
	if (!e || w->queued + w->in_batch >= max || w->stopping) {
		/* Refused here: the caller counts it per function (see writer.h). */
		w->failed++;
		w->last_error = e ? EAGAIN : ENOMEM;
		r = e ? -EAGAIN : -ENOMEM;
	} else {
		if (w->tail)
			w->tail->next = e;
		else
			w->head = e;
		w->tail = e;
		/* the thread sleeps only on an empty queue */
		if (w->queued++ == 0)
			pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	if (r < 0)
		entry_free(e);
	return r;
}
void writer_take(struct writer *w, struct writer_losses *out, uint32_t n)
{
	pthread_mutex_lock(&w->lock);
	for (uint32_t i = 0; i < n && i < SMBLAT_MAX_FUNCS; i++) {
		struct writer_losses *l = &w->lost[i];

		out[i].write_failed += l->write_failed;
		out[i].carried.ringbuf += l->carried.ringbuf;
		out[i].carried.suppressed += l->carried.suppressed;
		out[i].carried.write_failed += l->carried.write_failed;
		out[i].carried.untimed += l->carried.untimed;
		*l = (struct writer_losses) {};
	}
	pthread_mutex_unlock(&w->lock);
}

void writer_counts(struct writer *w, uint64_t *written, uint64_t *failed, int *last_error)
{
	pthread_mutex_lock(&w->lock);
	*written = w->written;
	*failed = w->failed;
	*last_error = w->last_error;
	pthread_mutex_unlock(&w->lock);
}

static void deadline(struct timespec *until, unsigned int timeout_ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += timeout_ms / 1000;
	until->tv_nsec += (timeout_ms % 1000) * 1000000L;
	if (until->tv_nsec >= 1000000000L) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000L;
	}
}

/* Called with the lock held. */
static bool wait_idle(struct writer *w, unsigned int timeout_ms)
{
	struct timespec until;

	deadline(&until, timeout_ms);
	while (w->head || w->busy)
		if (pthread_cond_timedwait(&w->idle, &w->lock, &until) != 0)
			return !w->head && !w->busy;
	return true;
}

bool writer_drain(struct writer *w, unsigned int timeout_ms)
{
	bool drained;

	if (!w->started)
		return true;
	pthread_mutex_lock(&w->lock);
	drained = wait_idle(w, timeout_ms);
	pthread_mutex_unlock(&w->lock);
	return drained;
}

uint64_t writer_stop(struct writer *w, unsigned int timeout_ms)
{
	uint64_t left = 0;
	bool drained;

	pthread_mutex_lock(&w->lock);
	drained = !w->started || wait_idle(w, timeout_ms);
	w->stopping = true;
	pthread_cond_signal(&w->wake);
	pthread_mutex_unlock(&w->lock);
	if (w->started) {
		/* Blocked in sendmsg() on a stalled journald: a cancellation point. */
		if (!drained)
			pthread_cancel(w->thread);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	/* A cancelled thread leaves the rest of its batch in flight: unsent, like the queue. */
	pthread_mutex_lock(&w->lock);
	batch_settle(w);
	for (struct entry *e = w->inflight, *next; e; e = next) {
		next = e->next;
		entry_count_failed(w, e);
		entry_free(e);
		left++;
	}
	w->inflight = NULL;
	w->busy = false;
	w->in_batch = 0;
	while (w->head) {
		struct entry *e = w->head;

		w->head = e->next;
		entry_count_failed(w, e);
		entry_free(e);
		left++;
	}
	w->tail = NULL;
	w->queued = 0;
	pthread_mutex_unlock(&w->lock);
	return left;
}

void writer_free(struct writer *w)
{
	if (!w)
		return;
	writer_stop(w, 0);
	pthread_cond_destroy(&w->idle);
	pthread_cond_destroy(&w->wake);
	pthread_mutex_destroy(&w->lock);
	free(w);
}
