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

struct item {
	struct item *next;
	char **fields;
	size_t n;
	int32_t id;
	struct loss *carry;
	unsigned int n_carry;
};

struct writer {
	pthread_mutex_t lock;
	pthread_cond_t wake;        /* an item arrived, or stop */
	pthread_cond_t idle;        /* the queue drained */
	pthread_t thread;
	bool started, stopping;
	struct item *inflight;      /* being sent, outside the lock */
	struct item *head, *tail;
	unsigned int queued;
	uint64_t written, failed;
	int last_error;
	struct writer_losses lost[SMBLAT_MAX_FUNCS];
	uint64_t other_failed;      /* summaries, status entries */
};

static void item_free(struct item *it)
{
	if (!it)
		return;
	for (size_t i = 0; i < it->n; i++)
		free(it->fields[i]);
	free(it->fields);
	free(it->carry);
	free(it);
}

/* Called with the lock held: the item is not going to be written. */
static void item_count_failed(struct writer *w, const struct item *it)
{
	w->failed++;
	if (it->id >= 0 && it->id < SMBLAT_MAX_FUNCS)
		w->lost[it->id].write_failed++;
	else
		w->other_failed++;
	for (unsigned int i = 0; i < it->n_carry; i++) {
		const struct loss *l = &it->carry[i];
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

static int item_send(const struct item *it)
{
	struct iovec *iov;
	struct stat st;
	int r;

	/*
	 * sd_journal_sendv() reports success when journald's socket does not
	 * exist (it takes that for "no journald here"): the entry would be
	 * gone without a trace. Look first; the window between the look and
	 * the send is all that is left of that.
	 */
	if (stat(JOURNAL_SOCKET, &st) < 0)
		return -errno;
	if (!S_ISSOCK(st.st_mode))
		return -ENOTSOCK;
	iov = calloc(it->n ? it->n : 1, sizeof(*iov));
	if (!iov)
		return -ENOMEM;
	for (size_t i = 0; i < it->n; i++)
		iov[i] = (struct iovec) { .iov_base = it->fields[i], .iov_len = strlen(it->fields[i]) };
	/* The thread may be cancelled inside the send (journald stuck at exit). */
	pthread_cleanup_push(free, iov);
	r = sd_journal_sendv(iov, (int) it->n);
	pthread_cleanup_pop(1);
	return r;
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;

	/* Cancelled only inside a send that journald does not let finish. */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);
	pthread_mutex_lock(&w->lock);
	for (;;) {
		struct item *it;
		int r;

		while (!w->head && !w->stopping)
			pthread_cond_wait(&w->wake, &w->lock);
		if (!w->head)
			break;
		it = w->head;
		w->head = it->next;
		if (!w->head)
			w->tail = NULL;
		w->queued--;
		w->inflight = it;
		pthread_mutex_unlock(&w->lock);

		pthread_setcancelstate(PTHREAD_CANCEL_ENABLE, NULL);
		r = item_send(it);      /* may block while journald stalls */
		pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, NULL);

		pthread_mutex_lock(&w->lock);
		w->inflight = NULL;
		if (r < 0) {
			item_count_failed(w, it);
			w->last_error = -r;
		} else {
			w->written++;
			w->last_error = 0;
		}
		item_free(it);
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

int writer_push(struct writer *w, char **fields, size_t n, int32_t id,
		const struct loss *carry, unsigned int n_carry)
{
	struct item *it = calloc(1, sizeof(*it));
	unsigned int max = WRITER_QUEUE_MAX + (id < 0 ? WRITER_QUEUE_RESERVE : 0);
	int r = 0;

	if (it) {
		*it = (struct item) { .fields = fields, .n = n, .id = id };
		if (n_carry) {
			it->carry = calloc(n_carry, sizeof(*carry));
			if (it->carry) {
				memcpy(it->carry, carry, n_carry * sizeof(*carry));
				it->n_carry = n_carry;
			}
		}
	}
	pthread_mutex_lock(&w->lock);
	if (!it || w->queued >= max || w->stopping) {
		/* Refused here: the caller counts it per function (see writer.h). */
		w->failed++;
		w->last_error = it ? EAGAIN : ENOMEM;
		r = it ? -EAGAIN : -ENOMEM;
	} else {
		if (w->tail)
			w->tail->next = it;
		else
			w->head = it;
		w->tail = it;
		w->queued++;
		pthread_cond_signal(&w->wake);
	}
	pthread_mutex_unlock(&w->lock);
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			free(fields[i]);
		free(fields);
		if (it)
			free(it->carry);
		free(it);
	}
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
	while (w->head || w->inflight)
		if (pthread_cond_timedwait(&w->idle, &w->lock, &until) != 0)
			return !w->head && !w->inflight;
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
	/* A cancelled thread leaves its item in flight: unsent, like the queue. */
	pthread_mutex_lock(&w->lock);
	if (w->inflight) {
		item_count_failed(w, w->inflight);
		item_free(w->inflight);
		w->inflight = NULL;
		left++;
	}
	while (w->head) {
		struct item *it = w->head;

		w->head = it->next;
		item_count_failed(w, it);
		item_free(it);
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
