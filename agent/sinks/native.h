/* SPDX-License-Identifier: LGPL-2.1-or-later */
/* journald's native protocol: its socket, one entry a datagram, a sealed memfd for what does not fit. */
#pragma once

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>

#define NATIVE_SOCKET "/run/systemd/journal/socket"

/*
 * A datagram socket connected to path, non-blocking, its send buffer
 * raised as libsystemd raises its own: the fd, or a negative errno
 * (-ENOENT: no socket there; -ECONNREFUSED: nobody behind it).
 */
int native_connect(const char *path);

/* The send's error says the entry does not fit in a datagram: it goes as a memfd. */
static inline bool native_too_big(int err)
{
	return err == EMSGSIZE || err == ENOBUFS;
}

/* The send's error says journald went away (a restart): connect again. */
static inline bool native_disconnected(int err)
{
	return err == ECONNREFUSED || err == ENOTCONN || err == ECONNRESET || err == EPIPE;
}

/*
 * One entry (buf, a datagram's payload) in a sealed memfd passed on fd, as
 * sd_journal_sendv() does with what the socket refuses as too big. 0, or
 * a negative errno (-EAGAIN: journald's queue is full, try again).
 */
int native_send_memfd(int fd, const void *buf, size_t len);

/*
 * One entry on fd, through a memfd when too big, waiting up to timeout_ms
 * while journald's queue is full: 0 or a negative errno.
 */
int native_send(int fd, const void *buf, size_t len, int timeout_ms);
