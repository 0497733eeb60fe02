// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why a thread: sending to journald blocks when journald stalls (stopped,
 * swapped out, busy rotating) and its receive queue is full. Done in the
 * event loop, that would stop the watchdog pings (systemd then kills us)
 * and the draining of the BPF ring buffer (the kernel then drops events we
 * could not even count per function). So the loop only builds entries and
 * queues them; this thread is the one that waits. The queue is bounded:
 * when it is full, the entry is dropped at once and counted as
 * WRITE_FAILED for its function, so memory stays bounded and every event
 * is still either written or counted; the loop then stops reading the ring
 * buffer until half the queue is free (writer_wait_room()), so that the
 * rest of a flood is dropped by the kernel, counted per function there,
 * rather than decoded only to be refused. Failures journald's socket reports
 * (ECONNREFUSED while journald is down, ENOENT without its socket) are
 * counted the same way. Loss entries that fail give their counts back, so
 * they are reported again once the journal answers.
 *
 * How it stays out of the event loop's way: the queue is one buffer of
 * datagrams, written in place by the loop (one copy of an entry built in
 * its final form, no allocation) and read in place by this thread, which
 * sends up to WRITER_BATCH of them with one sendmmsg(). The loop takes no
 * lock this thread holds: the queue's two ends are atomics, and the loop
 * wakes the thread only when it sleeps, once per batch of events
 * (writer_kick()). The socket is non-blocking: a full journald is waited
 * for with poll(), together with the eventfd that says stop, so that a
 * stop takes effect at once and what was not sent is known exactly.
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "sinks/native.h"
#include "sinks/writer.h"

#define QUEUE_MASK (WRITER_QUEUE_BYTES - 1)
#define TRIM_BYTES (256 * 1024) /* queue memory used since the last trim that is worth giving back */

_Static_assert((WRITER_QUEUE_BYTES & QUEUE_MASK) == 0, "the queue's size is a power of two");

/*
 * An entry in the queue: this head, then its datagram, padded to the
 * head's size so that the room left before the end is always a head's.
 */
struct qrec {
	uint32_t size; /* bytes taken, this head included; 0: the rest up to the end is unused */
	uint32_t len;  /* the datagram's */
	int32_t id;
	uint32_t n_carry;
	struct loss *carry;
	uint64_t pad;
};
_Static_assert(sizeof(struct qrec) == 32, "a head is the queue's unit");

struct failure {
	const struct qrec *rec;
	int err;
};

struct writer {
	char *path;
	char *queue;               /* WRITER_QUEUE_BYTES, mapped: pages become resident as they are used */
	uint64_t head;             /* the loop's end (atomic) */
	uint64_t tail;             /* the thread's end (atomic) */
	int sleeping;              /* the thread waits for entries (atomic) */
	uint64_t trimmed;          /* head when the queue's memory was last given back (push_lock) */
	int wake_fd;               /* eventfd: entries or stop */
	int room_fd;               /* eventfd: room again for a loop that waits for it */
	int want_room;             /* the loop waits for room_fd (atomic) */
	int fd;                    /* the thread's socket, -1 while journald is away */
	pthread_mutex_t push_lock; /* pushers: the loop, and whoever logs a status */
	pthread_mutex_t lock;      /* the counts, and waiting for the queue to drain */
	pthread_cond_t idle;
	pthread_t thread;
	bool started;
	int stopping;     /* atomic */
	uint64_t refused; /* pushes refused (atomic) */
	int last_error;   /* atomic: the loop's refusals write it too */
	int last_failure; /* atomic: as last_error, not reset by a success */
	uint64_t written, failed;
	struct writer_losses lost[SMBLAT_MAX_FUNCS];
	uint64_t other_failed; /* summaries, status entries */
};

static size_t rec_size(size_t len)
{
	return (sizeof(struct qrec) + len + sizeof(struct qrec) - 1) & ~(sizeof(struct qrec) - 1);
}

static struct qrec *rec_at(const struct writer *w, uint64_t pos)
{
	return (struct qrec *)(w->queue + (pos & QUEUE_MASK));
}

static uint64_t load(const uint64_t *p)
{
	return __atomic_load_n(p, __ATOMIC_ACQUIRE);
}

/* Called with the lock held: the entry is not going to be written. */
static void count_failed(struct writer *w, int32_t id, const struct loss *carry, unsigned int n_carry)
{
	w->failed++;
	if (id >= 0 && id < SMBLAT_MAX_FUNCS)
		w->lost[id].write_failed++;
	else
		w->other_failed++;
	for (unsigned int i = 0; i < n_carry; i++) {
		const struct loss *l = &carry[i];
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

/* ---- the loop's end ---- */

static void wake(struct writer *w)
{
	uint64_t one = 1;

	if (__atomic_load_n(&w->sleeping, __ATOMIC_SEQ_CST))
		(void)!write(w->wake_fd, &one, sizeof(one));
}

int writer_refuse(struct writer *w)
{
	__atomic_fetch_add(&w->refused, 1, __ATOMIC_RELAXED);
	__atomic_store_n(&w->last_error, EAGAIN, __ATOMIC_RELAXED);
	__atomic_store_n(&w->last_failure, EAGAIN, __ATOMIC_RELAXED);
	return -EAGAIN;
}

int writer_room_fd(struct writer *w)
{
	return w->room_fd;
}

bool writer_wait_room(struct writer *w)
{
	uint64_t v;

	(void)!read(w->room_fd, &v, sizeof(v));
	__atomic_store_n(&w->want_room, 1, __ATOMIC_SEQ_CST);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (writer_full(w))
		return true;
	__atomic_store_n(&w->want_room, 0, __ATOMIC_SEQ_CST);
	return false;
}

bool writer_full(struct writer *w)
{
	uint64_t used = __atomic_load_n(&w->head, __ATOMIC_RELAXED) - load(&w->tail);

	return used + WRITER_EVENT_ROOM > WRITER_QUEUE_BYTES - WRITER_QUEUE_RESERVE;
}

/* Called with push_lock held: room for need bytes at the head, wrapping; false when full. */
static bool reserve(struct writer *w, size_t need, int32_t id, uint64_t *at)
{
	uint64_t head = w->head, used = head - load(&w->tail);
	size_t limit = WRITER_QUEUE_BYTES - (id >= 0 ? WRITER_QUEUE_RESERVE : 0);
	size_t left = WRITER_QUEUE_BYTES - (head & QUEUE_MASK), skip = left < need ? left : 0;

	if (__atomic_load_n(&w->stopping, __ATOMIC_RELAXED) || used + skip + need > limit)
		return false;
	if (skip) {
		rec_at(w, head)->size = 0;
		head += skip;
	}
	*at = head;
	return true;
}

int writer_push(struct writer *w, const void *dgram, size_t len, int32_t id, const struct loss *carry,
		unsigned int n_carry)
{
	size_t need = rec_size(len);
	struct qrec *r;
	uint64_t at;

	if (!dgram || len == 0 || len > UINT32_MAX)
		return writer_refuse(w);
	pthread_mutex_lock(&w->push_lock);
	if (!reserve(w, need, id, &at)) {
		pthread_mutex_unlock(&w->push_lock);
		return writer_refuse(w);
	}
	r = rec_at(w, at);
	*r = (struct qrec) { .size = (uint32_t)need, .len = (uint32_t)len, .id = id };
	if (n_carry) {
		r->carry = malloc(n_carry * sizeof(*carry));
		if (r->carry) {
			memcpy(r->carry, carry, n_carry * sizeof(*carry));
			r->n_carry = n_carry;
		}
	}
	memcpy(r + 1, dgram, len);
	__atomic_store_n(&w->head, at + need, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&w->push_lock);
	if (id < 0 || at + need - load(&w->tail) >= WRITER_WAKE_BYTES)
		wake(w);
	return 0;
}

/*
 * The pages a burst filled stay resident after it: given back once the
 * queue is empty, when the thread reads none of them and only pushers
 * (holding push_lock) would write them.
 */
static void trim(struct writer *w)
{
	pthread_mutex_lock(&w->push_lock);
	if (w->head - w->trimmed >= TRIM_BYTES && load(&w->tail) == w->head) {
		(void)madvise(w->queue, WRITER_QUEUE_BYTES, MADV_DONTNEED);
		w->trimmed = w->head;
	}
	pthread_mutex_unlock(&w->push_lock);
}

void writer_kick(struct writer *w)
{
	if (!w->started)
		return;
	wake(w);
	if (w->head - w->trimmed >= TRIM_BYTES)
		trim(w);
}

/* ---- the thread's end ---- */

/* One batch of the queue: the entries' heads and places, and their messages for sendmmsg(). */
struct batch {
	const struct qrec *recs[WRITER_BATCH];
	uint64_t pos[WRITER_BATCH + 1]; /* pos[k]: past the last */
	struct mmsghdr msgs[WRITER_BATCH];
	struct iovec iov[WRITER_BATCH];
	struct failure fails[WRITER_BATCH];
	unsigned int k, n_fails;
	uint64_t sent;
};

/* Entries from tail on, up to WRITER_BATCH. */
static void batch_take(struct writer *w, uint64_t tail, uint64_t head, struct batch *b)
{
	unsigned int k = 0;

	while (tail != head && k < WRITER_BATCH) {
		const struct qrec *r = rec_at(w, tail);

		if (r->size == 0) {
			tail += WRITER_QUEUE_BYTES - (tail & QUEUE_MASK);
			continue;
		}
		b->recs[k] = r;
		b->pos[k] = tail;
		b->iov[k] = (struct iovec) { .iov_base = (void *)(r + 1), .iov_len = r->len };
		b->msgs[k] = (struct mmsghdr) { .msg_hdr = { .msg_iov = &b->iov[k], .msg_iovlen = 1 } };
		k++;
		tail += r->size;
	}
	b->pos[k] = tail;
	b->k = k;
	b->n_fails = 0;
	b->sent = 0;
}

/* Waits until fd takes more, or stop: false on stop. */
static bool wait_writable(struct writer *w)
{
	struct pollfd p[2] = { { .fd = w->fd, .events = POLLOUT }, { .fd = w->wake_fd, .events = POLLIN } };
	uint64_t v;

	while (!__atomic_load_n(&w->stopping, __ATOMIC_SEQ_CST)) {
		if (poll(p, 2, -1) < 0 && errno != EINTR)
			return false;
		if (p[1].revents & POLLIN)
			(void)!read(w->wake_fd, &v, sizeof(v));
		if (p[0].revents)
			return true;
	}
	return false;
}

static int reconnect(struct writer *w)
{
	if (w->fd >= 0)
		close(w->fd);
	w->fd = native_connect(w->path);
	return w->fd < 0 ? w->fd : 0;
}

/*
 * What to do about the error err of the send of recs[i]: 1 to send it
 * again, 0 when it is settled (sent as a memfd, or failed: in *fail), -1
 * on stop.
 */
static int send_error(struct writer *w, const struct qrec *r, int err, bool *retried, struct failure *fail)
{
	int k;

	if (err == EINTR)
		return 1;
	if (err == EAGAIN)
		return wait_writable(w) ? 1 : -1;
	if (native_too_big(err)) {
		k = native_send_memfd(w->fd, r + 1, r->len);
		if (k == -EAGAIN)
			return wait_writable(w) ? 1 : -1;
		*fail = (struct failure) { .rec = k < 0 ? r : NULL, .err = -k };
		return 0;
	}
	/* journald restarted: once more on a new connection */
	if (native_disconnected(err) && !*retried) {
		*retried = true;
		k = reconnect(w);
		if (k == 0)
			return 1;
		err = -k;
	}
	*fail = (struct failure) { .rec = r, .err = err };
	return 0;
}

/* Sends the batch: how many of its entries are settled (sent, or failed in b->fails); fewer on stop. */
static unsigned int batch_send(struct writer *w, struct batch *b)
{
	unsigned int i = 0;
	bool retried = false;

	while (i < b->k) {
		struct failure *f = &b->fails[b->n_fails];
		int n, s;

		if (w->fd < 0 && reconnect(w) < 0) {
			/* journald away: the whole batch fails, and the next tries again */
			for (; i < b->k; i++)
				b->fails[b->n_fails++] = (struct failure) { .rec = b->recs[i],
									    .err = -w->fd };
			break;
		}
		n = sendmmsg(w->fd, b->msgs + i, b->k - i, MSG_NOSIGNAL | MSG_DONTWAIT);
		if (n > 0) {
			b->sent += (unsigned int)n;
			i += (unsigned int)n;
			retried = false;
			continue;
		}
		*f = (struct failure) {};
		s = send_error(w, b->recs[i], n < 0 ? errno : EIO, &retried, f);
		if (s < 0)
			break;
		if (s == 0) {
			if (f->rec)
				b->n_fails++;
			else
				b->sent++;
			i++;
			retried = false;
		}
	}
	return i;
}

/*
 * A loop waiting for room is told once half the queue is free: it then
 * reads a burst of events in one go rather than one entry's room at a time.
 * Pairs with writer_wait_room(): the tail is stored before want_room is
 * read, want_room before the tail, so one of the two sees the other.
 */
static void room_tell(struct writer *w)
{
	const uint64_t one = 1;

	if (!__atomic_load_n(&w->want_room, __ATOMIC_SEQ_CST) ||
	    load(&w->head) - load(&w->tail) > WRITER_QUEUE_BYTES / 2)
		return;
	if (__atomic_exchange_n(&w->want_room, 0, __ATOMIC_SEQ_CST))
		(void)!write(w->room_fd, &one, sizeof(one));
}

/* The counts of the first done entries of the batch, and their room given back to the loop. */
static void batch_settle(struct writer *w, const struct batch *b, unsigned int done)
{
	pthread_mutex_lock(&w->lock);
	w->written += b->sent;
	for (unsigned int i = 0; i < b->n_fails; i++)
		count_failed(w, b->fails[i].rec->id, b->fails[i].rec->carry, b->fails[i].rec->n_carry);
	__atomic_store_n(&w->last_error, b->n_fails ? b->fails[b->n_fails - 1].err : 0, __ATOMIC_RELAXED);
	if (b->n_fails)
		__atomic_store_n(&w->last_failure, b->fails[b->n_fails - 1].err, __ATOMIC_RELAXED);
	for (unsigned int i = 0; i < done; i++)
		free(b->recs[i]->carry);
	__atomic_store_n(&w->tail, b->pos[done], __ATOMIC_SEQ_CST);
	pthread_cond_broadcast(&w->idle);
	pthread_mutex_unlock(&w->lock);
	room_tell(w);
}

/* Sleeps until entries come or stop; false on stop. */
static bool wait_entries(struct writer *w, uint64_t tail)
{
	struct pollfd p = { .fd = w->wake_fd, .events = POLLIN };
	uint64_t v;

	__atomic_store_n(&w->sleeping, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&w->head, __ATOMIC_SEQ_CST) == tail &&
	       !__atomic_load_n(&w->stopping, __ATOMIC_SEQ_CST)) {
		if (poll(&p, 1, -1) > 0)
			(void)!read(w->wake_fd, &v, sizeof(v));
	}
	__atomic_store_n(&w->sleeping, 0, __ATOMIC_SEQ_CST);
	return !__atomic_load_n(&w->stopping, __ATOMIC_SEQ_CST);
}

static void *writer_main(void *arg)
{
	struct writer *w = arg;
	struct batch *b = malloc(sizeof(*b));

	if (!b)
		return NULL; /* what is queued is counted at stop */
	for (;;) {
		uint64_t tail = w->tail, head = load(&w->head);
		unsigned int done;

		if (tail == head) {
			if (!wait_entries(w, tail))
				break;
			continue;
		}
		if (__atomic_load_n(&w->stopping, __ATOMIC_SEQ_CST))
			break;
		batch_take(w, tail, head, b);
		done = batch_send(w, b);
		batch_settle(w, b, done);
		if (done < b->k) /* stopped: the rest stays queued, counted at stop */
			break;
	}
	free(b);
	return NULL;
}

int writer_new_at(const char *path, struct writer **ret)
{
	struct writer *w = calloc(1, sizeof(*w));

	if (!w)
		return -ENOMEM;
	w->fd = w->wake_fd = w->room_fd = -1;
	w->path = strdup(path);
	w->queue = mmap(NULL, WRITER_QUEUE_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->queue == MAP_FAILED)
		w->queue = NULL;
	w->wake_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (w->wake_fd >= 0)
		w->room_fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	if (!w->path || !w->queue || w->wake_fd < 0 || w->room_fd < 0) {
		int r = (w->wake_fd < 0 || w->room_fd < 0) && w->path && w->queue ? -errno : -ENOMEM;

		writer_free(w);
		return r;
	}
	pthread_mutex_init(&w->push_lock, NULL);
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->idle, NULL);
	*ret = w;
	return 0;
}

int writer_new(struct writer **ret)
{
	return writer_new_at(NATIVE_SOCKET, ret);
}

int writer_start(struct writer *w)
{
	int r;

	/* connected before the thread runs: journald's absence is said by the first sends */
	w->fd = native_connect(w->path);
	r = pthread_create(&w->thread, NULL, writer_main, w);
	if (r)
		return -r;
	/* its own name in ps and /proc: its CPU time is the sending's */
	(void)pthread_setname_np(w->thread, "smblat-writer");
	w->started = true;
	return 0;
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
	*failed = w->failed + __atomic_load_n(&w->refused, __ATOMIC_RELAXED);
	*last_error = __atomic_load_n(&w->last_error, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&w->lock);
}

int writer_last_failure(struct writer *w)
{
	return __atomic_load_n(&w->last_failure, __ATOMIC_RELAXED);
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

/* Called with the lock held: whether the queue drained within timeout_ms. */
static bool wait_idle(struct writer *w, unsigned int timeout_ms)
{
	struct timespec until;

	deadline(&until, timeout_ms);
	while (load(&w->head) != w->tail)
		if (pthread_cond_timedwait(&w->idle, &w->lock, &until) != 0)
			return load(&w->head) == w->tail;
	return true;
}

bool writer_drain(struct writer *w, unsigned int timeout_ms)
{
	bool drained;

	if (!w->started)
		return true;
	writer_kick(w);
	pthread_mutex_lock(&w->lock);
	drained = wait_idle(w, timeout_ms);
	pthread_mutex_unlock(&w->lock);
	return drained;
}

uint64_t writer_stop(struct writer *w, unsigned int timeout_ms)
{
	uint64_t left = 0, one = 1, head;

	if (w->started)
		writer_drain(w, timeout_ms);
	pthread_mutex_lock(&w->push_lock);
	__atomic_store_n(&w->stopping, 1, __ATOMIC_SEQ_CST);
	pthread_mutex_unlock(&w->push_lock);
	if (w->started) {
		(void)!write(w->wake_fd, &one, sizeof(one));
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	/* what the thread did not send: unsent, counted per function */
	pthread_mutex_lock(&w->lock);
	head = load(&w->head);
	while (w->tail != head) {
		const struct qrec *r = rec_at(w, w->tail);

		if (r->size == 0) {
			w->tail += WRITER_QUEUE_BYTES - (w->tail & QUEUE_MASK);
			continue;
		}
		count_failed(w, r->id, r->carry, r->n_carry);
		free(r->carry);
		w->tail += r->size;
		left++;
	}
	pthread_mutex_unlock(&w->lock);
	return left;
}

void writer_free(struct writer *w)
{
	if (!w)
		return;
	if (w->queue && w->path && w->wake_fd >= 0 && w->room_fd >= 0) {
		writer_stop(w, 0);
		pthread_cond_destroy(&w->idle);
		pthread_mutex_destroy(&w->lock);
		pthread_mutex_destroy(&w->push_lock);
	}
	if (w->fd >= 0)
		close(w->fd);
	if (w->wake_fd >= 0)
		close(w->wake_fd);
	if (w->room_fd >= 0)
		close(w->room_fd);
	if (w->queue)
		munmap(w->queue, WRITER_QUEUE_BYTES);
	free(w->path);
	free(w);
}
