// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The writer, without journald and against a datagram socket standing in
 * for it:
 *  - with the thread not started nothing is sent, so the queue fills: a
 *    full queue refuses events (the caller counts those), keeps room for
 *    loss entries, and what is still queued at stop is counted per
 *    function, loss entries giving their counts back;
 *  - each entry arrives as one datagram, byte for byte, in order;
 *  - no socket at the path: every entry fails with ENOENT, counted per
 *    function; once a socket is there, entries arrive again;
 *  - the socket replaced (journald restarted): the writer connects again;
 *  - a socket nobody reads (journald frozen) and a stop: the thread stops
 *    at once, and written + left at stop + refused is what was pushed;
 *  - an entry too big for a datagram arrives as a sealed memfd;
 *  - backpressure: a full queue nobody reads arms the room fd, which stays
 *    quiet until half the queue is free again;
 *  - batches: entries pushed while the thread sleeps wait for a kick (or
 *    for WRITER_WAKE_BYTES of them) and then go to journald in sendmmsg()
 *    calls of up to WRITER_BATCH datagrams, not one call an entry. The
 *    test's own sendmmsg() below counts the calls and what each was given.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "sinks/native.h"
#include "sinks/writer.h"

#define ENTRY "MESSAGE=event\nSYSLOG_IDENTIFIER=smblat-test\n"

/* The writer's sendmmsg() calls since mmsg_reset(): what each was given (vlen) and sent. */
#define MMSG_MAX 4096
static unsigned int mmsg_calls;
static unsigned int mmsg_vlen[MMSG_MAX];
static int mmsg_sent[MMSG_MAX];

/* Takes the place of libc's for the whole program: the writer's calls are recorded, then made. */
int sendmmsg(int fd, struct mmsghdr *msgs, unsigned int vlen, int flags)
{
	int n = (int)syscall(SYS_sendmmsg, fd, msgs, vlen, flags);
	int err = errno;
	unsigned int i = __atomic_load_n(&mmsg_calls, __ATOMIC_ACQUIRE);

	if (i < MMSG_MAX) {
		mmsg_vlen[i] = vlen;
		mmsg_sent[i] = n;
	}
	__atomic_store_n(&mmsg_calls, i + 1, __ATOMIC_RELEASE);
	errno = err;
	return n;
}

static void mmsg_reset(void)
{
	__atomic_store_n(&mmsg_calls, 0, __ATOMIC_RELEASE);
}

static int push(struct writer *w, const char *dgram, int32_t id, const struct loss *carry,
		unsigned int n_carry)
{
	return writer_push(w, dgram, strlen(dgram), id, carry, n_carry);
}

static void test_accounting(void)
{
	struct writer_losses *wl = calloc(SMBLAT_MAX_FUNCS, sizeof(*wl));
	struct func f7 = { .id = 7, .name = "F7" };
	struct loss carry = { .func = &f7, .ringbuf = 5, .suppressed = 3, .write_failed = 2 };
	struct writer *w;
	uint64_t written, failed, left;
	unsigned int ok = 0, refused = 0, i;
	int err;

	check(writer_new_at("/nonexistent/socket", &w) == 0, "writer_new");
	for (i = 0; refused < 10 && i < WRITER_QUEUE_BYTES; i++) {
		int r = push(w, ENTRY, 3, NULL, 0);

		if (r == 0 && refused == 0)
			ok++;
		else if (r == -EAGAIN)
			refused++;
	}
	/* 32 bytes of head and 46 of datagram: 96 bytes an entry */
	check(ok == (WRITER_QUEUE_BYTES - WRITER_QUEUE_RESERVE) / 96, "%u events queued, room for %u", ok,
	      (WRITER_QUEUE_BYTES - WRITER_QUEUE_RESERVE) / 96);
	check(refused == 10 && i == ok + 10, "%u events refused of %u, expected 10 after the first", refused,
	      i);
	check(writer_full(w), "a queue that refuses events is not full");
	/* Loss entries still fit: the reserve. */
	check(push(w, "MESSAGE=lost\n", -1, &carry, 1) == 0, "loss entry refused by a queue full of events");
	writer_counts(w, &written, &failed, &err);
	check(written == 0 && failed == 10 && err == EAGAIN, "written %llu failed %llu err %d",
	      (unsigned long long)written, (unsigned long long)failed, err);

	/* Refused pushes are the caller's to count: nothing per function yet. */
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(wl[3].write_failed == 0, "refused pushes counted per function: %llu",
	      (unsigned long long)wl[3].write_failed);

	left = writer_stop(w, 0);
	check(left == ok + 1, "%llu left at stop, expected %u", (unsigned long long)left, ok + 1);
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(wl[3].write_failed == ok, "function 3: %llu unsent counted",
	      (unsigned long long)wl[3].write_failed);
	check(wl[7].carried.ringbuf == 5 && wl[7].carried.suppressed == 3 && wl[7].carried.write_failed == 2,
	      "loss entry's counts not given back: %llu/%llu/%llu", (unsigned long long)wl[7].carried.ringbuf,
	      (unsigned long long)wl[7].carried.suppressed, (unsigned long long)wl[7].carried.write_failed);
	/* Taken once: a second take adds nothing. */
	memset(wl, 0, SMBLAT_MAX_FUNCS * sizeof(*wl));
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(wl[3].write_failed == 0 && wl[7].carried.ringbuf == 0, "counts taken twice");
	/* After stop, pushes are refused rather than queued forever. */
	check(push(w, ENTRY, 3, NULL, 0) == -EAGAIN, "push after stop accepted");
	writer_free(w);
	free(wl);
}

/* A datagram socket bound at path, standing in for journald's. */
static int listener(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);

	strcpy(sa.sun_path, path);
	unlink(path);
	if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0) {
		perror("listener");
		exit(EXIT_FAILURE);
	}
	return fd;
}

/* The next datagram on fd, 5 s at most: its length, or -1. */
static ssize_t receive(int fd, char *buf, size_t size)
{
	struct timeval tv = { .tv_sec = 5 };

	setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	return recv(fd, buf, size, 0);
}

/* Entry i: a datagram of its own length, a field with a newline in it. */
static size_t entry(char *buf, unsigned int i)
{
	int n = sprintf(buf, "MESSAGE=entry %u\nN=%u\nSTACK\n", i, i);
	uint64_t len = 7 + i % 50;

	memcpy(buf + n, &len, 8); /* a little-endian machine */
	memcpy(buf + n + 8,
	       "a\nb\nccc"
	       "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx",
	       len);
	buf[n + 8 + len] = '\n';
	return n + 8 + len + 1;
}

static void test_delivery(const char *dir)
{
	char path[256], want[256], got[1024];
	struct writer_losses *wl = calloc(SMBLAT_MAX_FUNCS, sizeof(*wl));
	struct writer *w;
	uint64_t written, failed;
	int fd, err;

	snprintf(path, sizeof(path), "%s/socket", dir);
	/* no socket yet: entries fail with ENOENT, counted per function */
	check(writer_new_at(path, &w) == 0 && writer_start(w) == 0, "writer started");
	for (unsigned int i = 0; i < 5; i++)
		check(writer_push(w, want, entry(want, i), 4, NULL, 0) == 0, "push %u", i);
	check(writer_drain(w, 5000), "queue not drained without a socket");
	writer_counts(w, &written, &failed, &err);
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(written == 0 && failed == 5 && err == ENOENT && wl[4].write_failed == 5,
	      "without a socket: written %llu failed %llu (function 4: %llu) err %d",
	      (unsigned long long)written, (unsigned long long)failed, (unsigned long long)wl[4].write_failed,
	      err);

	/* a socket now: each entry one datagram, in order, byte for byte */
	fd = listener(path);
	for (unsigned int i = 0; i < 300; i++) {
		size_t n = entry(want, i);

		check(writer_push(w, want, n, 4, NULL, 0) == 0, "push %u", i);
		if (i % 8 != 7)
			continue;
		/* the socket holds a few datagrams only */
		writer_kick(w);
		for (unsigned int k = i - 7; k <= i; k++) {
			ssize_t r = receive(fd, got, sizeof(got));
			size_t m = entry(want, k);

			check(r == (ssize_t)m && memcmp(got, want, m) == 0, "datagram %u: %zd bytes", k, r);
		}
	}
	check(writer_drain(w, 5000), "queue not drained");
	writer_counts(w, &written, &failed, &err);
	check(written == 300 && failed == 5 && err == 0, "written %llu failed %llu err %d",
	      (unsigned long long)written, (unsigned long long)failed, err);
	/* a success clears the last error, not what the last failure was */
	check(writer_last_failure(w) == ENOENT, "last failure %d after later successes",
	      writer_last_failure(w));

	/* journald restarted: a new socket at the same path */
	close(fd);
	fd = listener(path);
	check(writer_push(w, want, entry(want, 1), 4, NULL, 0) == 0, "push after restart");
	writer_kick(w);
	check(receive(fd, got, sizeof(got)) == (ssize_t)entry(want, 1), "nothing arrived after a restart");
	check(writer_drain(w, 5000), "queue not drained");
	writer_counts(w, &written, &failed, &err);
	check(written == 301 && failed == 5, "after a restart: written %llu failed %llu",
	      (unsigned long long)written, (unsigned long long)failed);

	/* frozen: nobody reads; a stop takes effect at once and counts what is left */
	unsigned int pushed = 0, refused = 0;
	/* until the queue is full: the socket holds a few and the thread then waits for a reader */
	for (unsigned int i = 0; refused < 10 && i < WRITER_QUEUE_BYTES / 64; i++) {
		if (writer_push(w, want, entry(want, i), 5, NULL, 0) == 0)
			pushed++;
		else
			refused++;
	}
	writer_kick(w);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	uint64_t left = writer_stop(w, 300);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	double took = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	writer_counts(w, &written, &failed, &err);
	memset(wl, 0, SMBLAT_MAX_FUNCS * sizeof(*wl));
	writer_take(w, wl, SMBLAT_MAX_FUNCS);
	check(took < 2, "stop took %.2f s with a frozen reader", took);
	check(refused > 0 && left > 0, "frozen reader: %u refused, %llu left: proves nothing", refused,
	      (unsigned long long)left);
	check(written - 301 + left == pushed && wl[5].write_failed == left,
	      "frozen: %llu written + %llu left != %u pushed (function 5: %llu)",
	      (unsigned long long)(written - 301), (unsigned long long)left, pushed,
	      (unsigned long long)wl[5].write_failed);
	check(failed == 5 + refused + left, "failed %llu, want %u", (unsigned long long)failed,
	      5 + refused + (unsigned)left);
	writer_free(w);
	close(fd);
	unlink(path);
	free(wl);
}

/* The writer thread's id (its name is set at start), or -1. */
static pid_t writer_tid(void)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	pid_t tid = -1;

	while (d && tid < 0 && (e = readdir(d))) {
		char path[300], comm[32] = "";
		FILE *f;

		snprintf(path, sizeof(path), "/proc/self/task/%s/comm", e->d_name);
		f = fopen(path, "re");
		if (f && fgets(comm, sizeof(comm), f) && strcmp(comm, "smblat-writer\n") == 0)
			tid = atoi(e->d_name);
		if (f)
			fclose(f);
	}
	if (d)
		closedir(d);
	return tid;
}

/*
 * Waits (5 s at most) until the thread sleeps for entries: in poll() on
 * one fd, its eventfd (waiting for journald it polls two). From then on a
 * push wakes it only at WRITER_WAKE_BYTES queued, or through a kick.
 */
static bool wait_asleep(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d/syscall", tid);
	for (unsigned int ms = 0; ms < 5000; ms++) {
		long nr = -1;
		unsigned long fds, nfds = 0;
		FILE *f = fopen(path, "re");
		struct timespec t = { .tv_nsec = 1000000 };

		if (f && fscanf(f, "%ld %lx %lx", &nr, &fds, &nfds) != 3)
			nr = -1;
		if (f)
			fclose(f);
		if ((nr == SYS_poll || nr == SYS_ppoll) && nfds == 1)
			return true;
		nanosleep(&t, NULL);
	}
	return false;
}

/* Receives n datagrams, entries first..first+n-1 in order: how many arrived as pushed. */
static unsigned int receive_entries(int fd, unsigned int first, unsigned int n)
{
	char want[256], got[1024];

	for (unsigned int k = first; k < first + n; k++) {
		size_t m = entry(want, k);
		ssize_t r = receive(fd, got, sizeof(got));

		if (r != (ssize_t)m || memcmp(got, want, m) != 0)
			return k - first;
	}
	return n;
}

/* Of the sendmmsg() calls since mmsg_reset(): datagrams sent, and the most one call was given. */
static unsigned int mmsg_totals(unsigned int *max_vlen)
{
	unsigned int calls = __atomic_load_n(&mmsg_calls, __ATOMIC_ACQUIRE), sent = 0;

	*max_vlen = 0;
	for (unsigned int i = 0; i < calls && i < MMSG_MAX; i++) {
		sent += mmsg_sent[i] > 0 ? (unsigned int)mmsg_sent[i] : 0;
		if (mmsg_vlen[i] > *max_vlen)
			*max_vlen = mmsg_vlen[i];
	}
	return sent;
}

/* n entries pushed to a sleeping thread: sent only after the kick, the first call given them all (up to a batch). */
static void batch_of(struct writer *w, pid_t tid, int fd, unsigned int n)
{
	char want[256], got[1024];
	unsigned int sent, max_vlen, got_n;

	check(wait_asleep(tid), "the writer thread does not go to sleep");
	mmsg_reset();
	for (unsigned int i = 0; i < n; i++)
		check(writer_push(w, want, entry(want, i), 6, NULL, 0) == 0, "push %u", i);
	check(__atomic_load_n(&mmsg_calls, __ATOMIC_ACQUIRE) == 0 &&
		      recv(fd, got, sizeof(got), MSG_DONTWAIT) < 0,
	      "%u entries: sent before the kick", n);
	writer_kick(w);
	got_n = receive_entries(fd, 0, n);
	check(got_n == n, "%u entries: %u arrived as pushed", n, got_n);
	check(writer_drain(w, 5000), "queue not drained");
	sent = mmsg_totals(&max_vlen);
	check(mmsg_calls > 0 && mmsg_vlen[0] == (n < WRITER_BATCH ? n : WRITER_BATCH),
	      "%u entries: the first sendmmsg() was given %u", n, mmsg_calls ? mmsg_vlen[0] : 0);
	check(sent == n && max_vlen <= WRITER_BATCH, "%u entries: %u sent, a call given %u at most", n, sent,
	      max_vlen);
}

static void test_batching(const char *dir)
{
	char path[256], want[256];
	struct writer *w;
	uint64_t written, failed;
	unsigned int n = 0, got_n;
	int fd, err;
	pid_t tid;

	snprintf(path, sizeof(path), "%s/batch-socket", dir);
	fd = listener(path);
	check(writer_new_at(path, &w) == 0 && writer_start(w) == 0, "writer started");
	tid = writer_tid();
	check(tid > 0, "no thread named smblat-writer");
	/* a batch smaller than WRITER_BATCH, one of it, one larger */
	batch_of(w, tid, fd, 40);
	batch_of(w, tid, fd, WRITER_BATCH);
	batch_of(w, tid, fd, 3 * WRITER_BATCH + 5);

	/* no kick: WRITER_WAKE_BYTES of entries wake the thread themselves */
	check(wait_asleep(tid), "the writer thread does not go to sleep");
	for (size_t bytes = 0; bytes < WRITER_WAKE_BYTES + 4096; n++) {
		size_t m = entry(want, n);

		check(writer_push(w, want, m, 6, NULL, 0) == 0, "push %u", n);
		bytes += m + 32; /* the queue's head */
	}
	got_n = receive_entries(fd, 0, n);
	check(got_n == n, "without a kick, %u of %u entries arrived", got_n, n);
	check(writer_drain(w, 5000), "queue not drained");
	writer_counts(w, &written, &failed, &err);
	check(written == 40 + WRITER_BATCH + 3 * WRITER_BATCH + 5 + n && failed == 0,
	      "batches: written %llu failed %llu", (unsigned long long)written, (unsigned long long)failed);
	writer_free(w);
	close(fd);
	unlink(path);
}

/* An entry larger than the socket's send buffer: a sealed memfd with the entry, and no payload. */
static void test_memfd(void)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control;
	char *big = malloc(64 * 1024), byte;
	struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
	struct msghdr mh = {
		.msg_iov = &iov, .msg_iovlen = 1, .msg_control = &control, .msg_controllen = sizeof(control)
	};
	int sv[2], small = 4096, mfd = -1, seals;
	ssize_t n;
	struct stat st;

	memset(big, 'x', 64 * 1024);
	memcpy(big, "MESSAGE=", 8);
	big[64 * 1024 - 1] = '\n';
	check(socketpair(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0, sv) == 0, "socketpair: %m");
	setsockopt(sv[0], SOL_SOCKET, SO_SNDBUF, &small, sizeof(small));
	check(native_send(sv[0], big, 64 * 1024, 1000) == 0, "big entry not sent");
	n = recvmsg(sv[1], &mh, MSG_DONTWAIT | MSG_CMSG_CLOEXEC);
	check(n == 0, "the memfd's datagram has a payload of %zd bytes", n);
	if (n == 0 && CMSG_FIRSTHDR(&mh) && CMSG_FIRSTHDR(&mh)->cmsg_type == SCM_RIGHTS)
		memcpy(&mfd, CMSG_DATA(CMSG_FIRSTHDR(&mh)), sizeof(int));
	check(mfd >= 0, "no fd passed");
	if (mfd >= 0) {
		char *back = malloc(64 * 1024);

		seals = fcntl(mfd, F_GET_SEALS);
		check(seals == (F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL), "seals %#x",
		      seals);
		check(fstat(mfd, &st) == 0 && st.st_size == 64 * 1024, "memfd of %lld bytes",
		      (long long)st.st_size);
		check(pread(mfd, back, 64 * 1024, 0) == 64 * 1024 && memcmp(back, big, 64 * 1024) == 0,
		      "memfd holds something else");
		free(back);
		close(mfd);
	}
	close(sv[0]);
	close(sv[1]);
	free(big);
}

static bool readable(int fd, int ms)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };

	return poll(&p, 1, ms) == 1;
}

static void test_room(const char *dir)
{
	char path[256], want[256], got[1024];
	unsigned int pushed = 0, taken = 0, refill = 0;
	struct writer *w;
	int fd, room;

	snprintf(path, sizeof(path), "%s/room", dir);
	fd = listener(path);
	check(writer_new_at(path, &w) == 0 && writer_start(w) == 0, "writer started");
	room = writer_room_fd(w);
	check(!writer_wait_room(w), "an empty queue is said to be full");
	check(!readable(room, 0), "room said for a wait that ended at once");

	/* nobody reads: the socket's buffer fills, then the queue */
	while (writer_push(w, want, entry(want, pushed), 8, NULL, 0) == 0)
		pushed++;
	writer_kick(w);
	check(pushed > 1000 && writer_wait_room(w), "a full queue (%u entries) has room", pushed);
	check(!readable(room, 300), "room said while nobody reads a full queue");

	/* reading again: the thread sends, and says room once half the queue is free */
	while (!readable(room, 0) && taken < pushed && receive(fd, got, sizeof(got)) > 0)
		taken++;
	check(readable(room, 5000), "no room said after %u of %u entries were read", taken, pushed);
	check(taken > 0 && taken < pushed, "room said after %u of %u entries read", taken, pushed);
	/* half the queue, less the reserve for loss entries */
	while (writer_push(w, want, entry(want, refill), 8, NULL, 0) == 0)
		refill++;
	check(refill >= pushed * 9 / 20, "room for %u entries when room was said, %u fill the queue", refill,
	      pushed);
	writer_free(w);
	close(fd);
	unlink(path);
}

int main(void)
{
	char dir[] = "/tmp/smblat-writer.XXXXXX";

	test_accounting();
	check(mkdtemp(dir), "mkdtemp: %m");
	test_delivery(dir);
	test_batching(dir);
	test_room(dir);
	rmdir(dir);
	test_memfd();
	return check_done("writer");
}
