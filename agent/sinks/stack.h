/* SPDX-License-Identifier: LGPL-2.1-or-later */
#pragma once

#include <stdbool.h>
#include <stddef.h>

/*
 * s (frames separated by sep) in at most max bytes: whole frames, the
 * innermost kept (the head, or with keep_tail the tail), and a marker
 * "[... N more frames]" where frames were left out. NULL without memory.
 */
char *stack_cap(const char *s, char sep, bool keep_tail, size_t max);
