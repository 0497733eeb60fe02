// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A tight loop for the probe benchmarks:
 *   loop SECONDS [getppid]
 * calls bench_op() (or the getppid system call) as often as it can for
 * SECONDS seconds, then prints the number of calls. bench_op() is a real,
 * non-inlined function so a uprobe on it fires once per call; getppid
 * feeds the syscall tracepoints.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/syscall.h>

__attribute__((noinline)) int bench_op(int x)
{
	__asm__ volatile("" : "+r"(x));
	return x + 1;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0, end = now() + secs;
	unsigned long long n = 0;
	int x = 0, sys = argc == 3 && strcmp(argv[2], "getppid") == 0;

	if (argc < 2 || argc > 3 || secs <= 0 || (argc == 3 && !sys)) {
		fprintf(stderr, "usage: loop SECONDS [getppid]\n");
		return 2;
	}
	do {
		/* the clock is read once per 256 calls: the loop stays tight */
		for (int i = 0; i < 256; i++)
			x = sys ? x + (int)syscall(SYS_getppid) : bench_op(x);
		n += 256;
	} while (now() < end);
	printf("%llu\n", n);
	return x == 0;
}
