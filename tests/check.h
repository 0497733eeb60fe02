/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* The unit tests' one assertion: report the failed condition and carry on. */
#pragma once

#include <stdio.h>

static int failures;

#define check(cond, ...) do {                                           \
		if (!(cond)) {                                          \
			fprintf(stderr, "%s:%d: check failed: %s: ",    \
				__FILE__, __LINE__, #cond);             \
			fprintf(stderr, __VA_ARGS__);                   \
			fputc('\n', stderr);                            \
			failures++;                                     \
		}                                                       \
	} while (0)

#define CHECK check
