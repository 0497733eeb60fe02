/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * Shared by the libFuzzer targets. The runs close stderr (-close_fd_mask=3)
 * because the code under test complains there on every bad input; a broken
 * property is told on a copy of stderr taken before that.
 */
#pragma once

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static FILE *fuzz_report;

static inline void fuzz_report_init(void)
{
	int fd = dup(STDERR_FILENO);

	fuzz_report = fd >= 0 ? fdopen(fd, "w") : NULL;
	if (!fuzz_report)
		fuzz_report = stderr;
}

#define fail(...)                                                         \
	do {                                                              \
		fprintf(fuzz_report ? fuzz_report : stderr, __VA_ARGS__); \
		fputc('\n', fuzz_report ? fuzz_report : stderr);          \
		fflush(fuzz_report);                                      \
		abort();                                                  \
	} while (0)
