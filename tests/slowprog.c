// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A workload with known latencies for the uprobe tests:
 *   slowprog MS...   calls slow_call(ms) once per argument, in order.
 * slow_call() returns ms, or -ENOENT for ms == 13, so failed calls show too.
 */
#include <errno.h>
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
	for (int i = 1; i < argc; i++)
		slow_call(atoi(argv[i]));
	return 0;
}
