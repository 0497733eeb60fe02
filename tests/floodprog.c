// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A flood for the accounting tests: floodprog N [US] calls fast_call() N
 * times back to back (each spinning US microseconds, 0 by default), then
 * prints N, the count the agent's journal entries and loss counts must add up to.
 */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

__attribute__((noinline)) int fast_call(long us)
{
	struct timespec t0, t;

	if (us <= 0)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000L + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
	return 1;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 0, us = argc > 2 ? atol(argv[2]) : 0, done = 0;

	for (long i = 0; i < n; i++)
		done += fast_call(us) >= 0;
	printf("%ld\n", done);
	return 0;
}
