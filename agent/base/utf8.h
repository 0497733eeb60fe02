/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* Text from outside (a configuration line, a name) made safe to print and to log. */
#pragma once

#include <stddef.h>

/*
 * Copies in to out (n bytes, NUL-terminated, cut to fit): valid UTF-8 as it
 * is, every byte of an invalid sequence and every control character but
 * the tab as "\xNN", so that neither a terminal nor a journal field gets
 * raw bytes. Returns out.
 */
char *utf8_escape(char *out, size_t n, const char *in);
