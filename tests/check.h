/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The unit tests' one assertion: report the failed condition and carry on. */
#pragma once

#include <stdio.h>
#include <stdlib.h>

static int failures;

#define check(cond, ...)                                                                         \
	do {                                                                                     \
		if (!(cond)) {                                                                   \
			fprintf(stderr, "%s:%d: check failed: %s: ", __FILE__, __LINE__, #cond); \
			fprintf(stderr, __VA_ARGS__);                                            \
			fputc('\n', stderr);                                                     \
			failures++;                                                              \
		}                                                                                \
	} while (0)

#define CHECK check

/* The end of every test's main(): what came of the checks, as the exit status. */
static inline int check_done(const char *test)
{
	if (failures) {
		fprintf(stderr, "%s: %d check(s) failed\n", test, failures);
		return EXIT_FAILURE;
	}
	printf("%s: all checks passed\n", test);
	return EXIT_SUCCESS;
}
