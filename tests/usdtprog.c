// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A workload with USDT probes for the usdt: target tests:
 *   usdtprog MS...   for each argument: probe usdtprog:op_start(ms, i), sleep
 *                    ms milliseconds, probe usdtprog:op_end(ms).
 * Prints how long each operation took, in microseconds, one per line.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/sdt.h>
#include <time.h>

static void sleep_ms(int ms)
{
	struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

	while (nanosleep(&ts, &ts) < 0 && errno == EINTR)
		;
}

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		int ms = atoi(argv[i]);
		struct timespec t0, t1;

		clock_gettime(CLOCK_MONOTONIC, &t0);
		DTRACE_PROBE2(usdtprog, op_start, ms, i);
		sleep_ms(ms);
		DTRACE_PROBE1(usdtprog, op_end, ms);
		clock_gettime(CLOCK_MONOTONIC, &t1);
		printf("%lld\n", (t1.tv_sec - t0.tv_sec) * 1000000LL + (t1.tv_nsec - t0.tv_nsec) / 1000);
	}
	return 0;
}
