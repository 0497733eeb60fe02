// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A workload with known latencies for the uprobe tests:
 *   slowprog MS...   calls slow_call(ms) once per argument, in order.
 * slow_call() returns ms, or -ENOENT for ms == 13, so failed calls show too.
 * Prints how long each call took, in microseconds, one per line, so tests can
 * compare with what the agent measured on a loaded machine.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int slow_call(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
	return ms == 13 ? -ENOENT : ms;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		slow_call(atoi(argv[i]));
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000);
	}
	return 0;
}
