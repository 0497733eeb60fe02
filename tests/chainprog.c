// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A leaf reached through a known chain, main -> a1 -> b -> c -> leaf and
 * main -> a2 -> b -> c -> leaf, for the unwinding tests:
 *
 *   chainprog [w] A B
 *
 * calls leaf() A times through a1() and B times through a2(). w waits for
 * a line on stdin before the calls and after them (the agent attaches
 * meanwhile; the test reads the counts while the process lives or after
 * it ended). Built -O2 -fomit-frame-pointer: frame pointers say nothing
 * here, only the binary's unwind tables do. Each function is its own
 * (noipa: neither inlined, cloned nor tail-called).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* clang has no noipa: noinline, and the asm after each call keeps it a call */
#ifdef __clang__
#define KEEP(f) __attribute__((noinline, used)) f
#else
#define KEEP(f) __attribute__((noipa)) f
#endif

volatile unsigned long sink;

KEEP(void leaf(unsigned long i))
{
	sink += i;
}

/* The asm after each call keeps it a call, not a jump that would drop the caller's frame. */
KEEP(void c(unsigned long i))
{
	leaf(i * 3);
	__asm__ volatile("" ::: "memory");
}

KEEP(void b(unsigned long i))
{
	c(i + 1);
	__asm__ volatile("" ::: "memory");
}

KEEP(void a1(unsigned long n))
{
	for (unsigned long i = 0; i < n; i++)
		b(i);
	__asm__ volatile("" ::: "memory");
}

KEEP(void a2(unsigned long n))
{
	for (unsigned long i = 0; i < n; i++)
		b(i << 1);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	bool wait = argc > 1 && strcmp(argv[1], "w") == 0;
	char line[16];
	int i = 1 + wait;

	if (argc - i != 2) {
		fprintf(stderr, "usage: chainprog [w] A B\n");
		return 2;
	}
	if (wait && !fgets(line, sizeof(line), stdin))
		return 1;
	a1(strtoul(argv[i], NULL, 10));
	a2(strtoul(argv[i + 1], NULL, 10));
	printf("done %lu\n", sink);
	fflush(stdout);
	if (wait && !fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}
