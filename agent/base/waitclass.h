/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * What a thread switched out waited on, from the kernel functions of its
 * stack at the switch (innermost first): the class an off-CPU stack is
 * summed under in the summaries (OFFCPU_* fields).
 */
#pragma once

#include <stddef.h>

enum wait_class {
	WAIT_OTHER = 0,
	WAIT_IO,        /* io_schedule, folio/page/buffer and block waits */
	WAIT_FUTEX,     /* futex_wait* */
	WAIT_NETWORK,   /* socket receive waits, poll/select on sockets */
	WAIT_SLEEP,     /* nanosleep, hrtimer sleeps */
	WAIT_LOCK,      /* mutexes, rwsems, other kernel locks and timed waits */
	WAIT_PREEMPTED, /* runnable, switched out by the scheduler */
	_WAIT_MAX,
};

/* The class of a stack of n function names, innermost first (NULL names skipped). */
enum wait_class waitclass_of(const char *const *names, size_t n);
/* "io", "futex", "network", "sleep", "lock", "preempted", "other". */
const char *waitclass_name(enum wait_class c);
