// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A tight loop for the probe benchmarks:
 *   loop SECONDS [getppid | depth N]
 * calls bench_op() (or the getppid system call) as often as it can for
 * SECONDS seconds, then prints the number of calls. bench_op() is a real,
 * non-inlined function so a uprobe on it fires once per call; getppid
 * feeds the syscall tracepoints; depth N runs the loop N calls deep, for
 * what walking a stack costs (bench/stacks-cost).
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

static unsigned long long run(double secs, int sys)
{
	double end = now() + secs;
	unsigned long long n = 0;
	int x = 0;

	do {
		/* the clock is read once per 256 calls: the loop stays tight */
		for (int i = 0; i < 256; i++)
			x = sys ? x + (int)syscall(SYS_getppid) : bench_op(x);
		n += 256;
	} while (now() < end);
	return n + (x == 42);
}

/* n frames deeper, then the loop; the asm keeps each a frame (no tail call) */
__attribute__((noipa)) unsigned long long descend(int n, double secs)
{
	unsigned long long r = n > 0 ? descend(n - 1, secs) : run(secs, 0);

	__asm__ volatile("" ::: "memory");
	return r;
}

int main(int argc, char **argv)
{
	double secs = argc > 1 ? atof(argv[1]) : 1.0;
	int sys = argc == 3 && strcmp(argv[2], "getppid") == 0;
	int depth = argc == 4 && strcmp(argv[2], "depth") == 0 ? atoi(argv[3]) : 0;

	if (argc < 2 || argc > 4 || secs <= 0 || (argc == 3 && !sys) || (argc == 4 && depth <= 0)) {
		fprintf(stderr, "usage: loop SECONDS [getppid | depth N]\n");
		return 2;
	}
	printf("%llu\n", depth ? descend(depth, secs) : run(secs, sys));
	return 0;
}
