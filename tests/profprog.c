// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A CPU profile's target: main -> hot_a and main -> hot_b, each spinning
 * in user space and reading /dev/zero (kernel time), hot_a three times as
 * long as hot_b, until SECS seconds of its CPU time are spent (with a
 * second argument, from a line read on stdin: the agent attached). It prints
 * the thread CPU time each took ("hot_a NS hot_b NS"): the ratio the
 * samples are held to; then the rounds of both it made (bench/profile-cost). Built -O2 -fomit-frame-pointer: the stacks are
 * unwound by the binary's tables.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#define CHUNK 200000 /* spins per unit of work: well under a millisecond */

static volatile unsigned long sink;
static char buf[262144];

static unsigned long long cpu_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return (unsigned long long)t.tv_sec * 1000000000ull + (unsigned long long)t.tv_nsec;
}

static __attribute__((noinline)) void work(int fd, int units)
{
	for (int u = 0; u < units; u++) {
		unsigned long x = sink;

		for (int i = 0; i < CHUNK; i++)
			x = x * 6364136223846793005ul + 1442695040888963407ul;
		sink = x;
		if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
			exit(2);
	}
}

__attribute__((noinline)) void hot_a(int fd)
{
	work(fd, 3);
	__asm__ volatile("" ::: "memory"); /* no tail call: hot_a stays on the stack */
}

__attribute__((noinline)) void hot_b(int fd)
{
	work(fd, 1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	unsigned long long limit = (argc > 1 ? strtoull(argv[1], NULL, 10) : 5) * 1000000000ull;
	unsigned long long a = 0, b = 0, t, rounds = 0;
	int fd = open("/dev/zero", O_RDONLY);

	if (fd < 0)
		return 1;
	if (argc > 2) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			return 1;
	}
	while (a + b < limit) {
		t = cpu_ns();
		hot_a(fd);
		a += cpu_ns() - t;
		t = cpu_ns();
		hot_b(fd);
		b += cpu_ns() - t;
		rounds++;
	}
	printf("hot_a %llu hot_b %llu\nrounds %llu\n", a, b, rounds);
	return 0;
}
