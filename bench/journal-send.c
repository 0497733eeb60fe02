// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * The journal's own speed for the pipeline benchmark:
 *   journal-send FIELDS SECONDS
 * sends the entry in FIELDS (NUL-separated NAME=value strings, e.g. the
 * fields of a real smblat entry) with sd_journal_sendv() as fast as it can
 * for SECONDS seconds and prints "sent N failed M cpu_us C" (C: its own
 * CPU time, user and system).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/uio.h>
#include <time.h>

#include <systemd/sd-journal.h>

#define MAX_FIELDS 128

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	static char buf[1 << 20];
	struct iovec iov[MAX_FIELDS];
	unsigned long long sent = 0, failed = 0;
	double end;
	size_t len, i;
	int n = 0;
	FILE *f;

	if (argc != 3 || atof(argv[2]) <= 0) {
		fprintf(stderr, "usage: journal-send FIELDS SECONDS\n");
		return 2;
	}
	f = fopen(argv[1], "re");
	if (!f) {
		fprintf(stderr, "journal-send: %s: %m\n", argv[1]);
		return 1;
	}
	len = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	for (i = 0; i < len && n < MAX_FIELDS; i += strlen(buf + i) + 1)
		if (buf[i])
			iov[n++] = (struct iovec) { .iov_base = buf + i, .iov_len = strlen(buf + i) };
	if (n == 0) {
		fprintf(stderr, "journal-send: %s: no fields\n", argv[1]);
		return 1;
	}
	end = now() + atof(argv[2]);
	do {
		for (int k = 0; k < 16; k++) {
			if (sd_journal_sendv(iov, n) < 0)
				failed++;
			else
				sent++;
		}
	} while (now() < end);
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	printf("sent %llu failed %llu cpu_us %lld\n", sent, failed,
	       (long long)(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000000 + ru.ru_utime.tv_usec +
		       ru.ru_stime.tv_usec);
	return 0;
}
