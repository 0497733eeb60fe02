/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * The small shared helpers every file may use: array sizes, time units,
 * and cleanup on scope exit (systemd's _cleanup_ and TAKE_PTR()).
 */
#pragma once

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define ELEMENTSOF(a) (sizeof(a) / sizeof((a)[0]))

#define NSEC_PER_USEC 1000ULL
#define NSEC_PER_MSEC 1000000ULL
#define NSEC_PER_SEC 1000000000ULL
#define NSEC_PER_MIN (60 * NSEC_PER_SEC)
#define NSEC_PER_HOUR (60 * NSEC_PER_MIN)
#define USEC_PER_MSEC 1000ULL
#define USEC_PER_SEC 1000000ULL

#define _cleanup_(f) __attribute__((cleanup(f)))

static inline void freep(void *p)
{
	free(*(void **)p);
}

static inline void closep(int *fd)
{
	if (*fd >= 0)
		close(*fd);
}

static inline void fclosep(FILE **f)
{
	if (*f)
		fclose(*f);
}

#define _cleanup_free_ _cleanup_(freep)
#define _cleanup_close_ _cleanup_(closep)
#define _cleanup_fclose_ _cleanup_(fclosep)

/* Takes the value out of a cleanup variable: it is the caller's now. */
#define TAKE_PTR(p)                          \
	({                                   \
		__typeof__(p) _taken_ = (p); \
		(p) = NULL;                  \
		_taken_;                     \
	})
#define TAKE_FD(fd)                 \
	({                          \
		int _taken_ = (fd); \
		(fd) = -EBADF;      \
		_taken_;            \
	})

/* The word after a count, as English has it: "1 call", "2 calls", "0 entries". */
#define PLURAL(n, one, many) ((n) == 1 ? (one) : (many))
