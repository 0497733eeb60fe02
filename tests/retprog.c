// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Functions whose return values the sign of their low 32 bits misjudges,
 * for errors= and RETVAL (tests/host/func-errors.sh):  retprog [w]
 * (w: wait for a line on stdin first). Each is called once; then 40
 * malloc(1 MiB) and a strtol that overflows to LONG_MAX, as libc's.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/*
 * noipa: no call is folded into its known result, each one is made;
 * clang has no noipa, and optnone keeps it from learning the result.
 */
#ifdef __clang__
#define KEEP __attribute__((noinline, optnone, used))
#else
#define KEEP __attribute__((noipa, used))
#endif

/* a pointer whose low half is negative as an int */
KEEP void *ret_ptr(void)
{
	return (void *)0x7f95c2d06010ul;
}
KEEP void *ret_null(void)
{
	return NULL;
}
/* low half 0xffffffff */
KEEP long ret_long_max(void)
{
	return LONG_MAX;
}
/* low half 0 */
KEEP long ret_big_neg(void)
{
	return -(1L << 40);
}
KEEP int ret_int_neg(void)
{
	return -1;
}
KEEP unsigned int ret_uint_max(void)
{
	return UINT_MAX;
}
KEEP void ret_void(void)
{
	__asm__ volatile("" ::: "memory");
}

int main(int argc, char **argv)
{
	char buf[64];
	void *p[40];
	long sum = 0;

	if (argc > 1 && strcmp(argv[1], "w") == 0 && !fgets(buf, sizeof(buf), stdin))
		return 1;
	sum += ret_ptr() != NULL;
	sum += ret_null() == NULL;
	sum += ret_long_max() == LONG_MAX;
	sum += ret_big_neg() < 0;
	sum += ret_int_neg() < 0;
	sum += ret_uint_max() == UINT_MAX;
	ret_void();
	for (int i = 0; i < 40; i++)
		p[i] = malloc(1 << 20);
	for (int i = 0; i < 40; i++)
		free(p[i]);
	sum += strtol("99999999999999999999", NULL, 10) == LONG_MAX;
	printf("%ld\n", sum);
	return sum == 7 ? 0 : 1;
}
