// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A workload of raw syscalls for the syscall:NAME tests:
 *   sysprog [w] [r:DEPTH] s:MS|o:PATH...
 * w waits for a line on stdin first (so the agent can be told our pid);
 * r:DEPTH makes the calls after it from DEPTH frames of recursion down (a
 * deep user stack); s:MS calls nanosleep(2) for MS ms, o:PATH calls
 * openat(2) on PATH. Calls go through syscall(2): the C library may use
 * clock_nanosleep instead.
 * Prints, one per line, how long each call took in microseconds and its
 * return value or -errno.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static long call(const char *op)
{
	if (strncmp(op, "s:", 2) == 0) {
		int ms = atoi(op + 2);
		struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

		return syscall(SYS_nanosleep, &ts, NULL);
	}
	if (strncmp(op, "o:", 2) == 0) {
		long fd = syscall(SYS_openat, AT_FDCWD, op + 2, O_RDONLY | O_CLOEXEC);

		if (fd >= 0)
			close((int)fd);
		return fd;
	}
	fprintf(stderr, "sysprog: unknown call \"%s\"\n", op);
	exit(2);
}

/* The barrier after the call keeps it from being a tail call: every level is a frame. */
__attribute__((noinline)) static long deep(int n, const char *op)
{
	long r;

	if (n <= 0)
		return call(op);
	r = deep(n - 1, op);
	__asm__ volatile("" ::: "memory");
	return r;
}

int main(int argc, char **argv)
{
	int depth = 0;
	int i = 1;

	if (argc > 1 && strcmp(argv[1], "w") == 0) {
		char line[16];

		if (!fgets(line, sizeof(line), stdin))
			return 1;
		i++;
	}
	for (; i < argc; i++) {
		struct timespec t0, t1;
		long r;

		if (strncmp(argv[i], "r:", 2) == 0) {
			depth = atoi(argv[i] + 2);
			continue;
		}
		clock_gettime(CLOCK_MONOTONIC, &t0);
		r = deep(depth, argv[i]);
		if (r < 0)
			r = -errno;
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%lld %ld\n", (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000,
		       r);
	}
	return 0;
}
