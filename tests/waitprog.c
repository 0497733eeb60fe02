// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A call whose time is split in a known way: wait_then_burn() waits on a
 * futex until another thread wakes it, WAIT_MS later, then burns BURN_MS
 * of CPU (tests/host/offcpu.sh). Runs N calls (argv[1], default 3), one at
 * a time; prints "done" at the end.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define WAIT_MS 50
#define BURN_MS 10

static _Atomic int word;

static long futex(int op, int val)
{
	return syscall(SYS_futex, (int *)&word, op, val, NULL, NULL, 0);
}

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static void *waker(void *arg)
{
	struct timespec t = { 0, WAIT_MS * 1000000L };

	(void)arg;
	nanosleep(&t, NULL);
	atomic_store(&word, 1);
	futex(FUTEX_WAKE_PRIVATE, 1);
	return NULL;
}

__attribute__((noinline)) int wait_then_burn(void)
{
	volatile unsigned long x = 0;
	pthread_t t;
	double t0;

	atomic_store(&word, 0);
	if (pthread_create(&t, NULL, waker, NULL))
		return -1;
	while (!atomic_load(&word))
		futex(FUTEX_WAIT_PRIVATE, 0);
	t0 = now_ms();
	while (now_ms() - t0 < BURN_MS)
		x++;
	pthread_join(t, NULL);
	return 0;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 3;

	for (int i = 0; i < n; i++)
		if (wait_then_burn() < 0)
			return 1;
	puts("done");
	return 0;
}
