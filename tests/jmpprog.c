// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Calls whose returns never come: op() left by longjmp 20 times, then 50
 * calls of it that return, for tests/host/missed-returns.sh:  jmpprog [w]
 * (w: wait for a line on stdin first).
 */
#include <setjmp.h>
#include <stdio.h>
#include <string.h>

static jmp_buf env;

/* noipa (clang: optnone): every call made and seen, none folded away */
#ifdef __clang__
__attribute__((noinline, optnone, used))
#else
__attribute__((noipa, used))
#endif
int op(int jump)
{
	if (jump)
		longjmp(env, 1);
	return 0;
}

int main(int argc, char **argv)
{
	char buf[64];
	volatile int n = 0;

	if (argc > 1 && strcmp(argv[1], "w") == 0 && !fgets(buf, sizeof(buf), stdin))
		return 1;
	for (volatile int i = 0; i < 20; i++)
		if (!setjmp(env))
			op(1);
	for (int i = 0; i < 50; i++)
		n += op(0) == 0;
	printf("%d\n", n);
	return n == 50 ? 0 : 1;
}
