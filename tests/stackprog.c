// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * One function called from two call sites in a known ratio, for the stack
 * counting test:  stackprog [w] A B  calls stack_target() A times from
 * call_site_a() and B times from call_site_b(). w waits for a line on
 * stdin first (the agent attaches meanwhile). Built with frame pointers:
 * user stacks are walked by them.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

volatile unsigned long sink;

__attribute__((noinline)) void stack_target(unsigned long i)
{
	sink += i;
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void call_site_a(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		stack_target(i);
	__asm__ volatile("" ::: "memory");
}

__attribute__((noinline)) void call_site_b(unsigned long n)
{
	for (unsigned long i = 0; i < n; i++)
		stack_target(i);
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	bool wait = argc > 1 && strcmp(argv[1], "w") == 0;
	char line[16];
	int i = 1 + wait;

	if (wait && !fgets(line, sizeof(line), stdin))
		return 1;
	if (argc - i != 2) {
		fprintf(stderr, "usage: stackprog [w] A B\n");
		return 2;
	}
	call_site_a(strtoul(argv[i], NULL, 10));
	call_site_b(strtoul(argv[i + 1], NULL, 10));
	printf("done %lu\n", sink);
	fflush(stdout);
	if (wait && !fgets(line, sizeof(line), stdin))
		return 1;
	return 0;
}
