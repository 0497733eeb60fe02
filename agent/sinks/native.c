// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Why a connected socket of our own and not sd_journal_sendv()'s: that one
 * is unconnected, so every entry looks journald's socket up by its path,
 * and a full journald cannot be waited for with poll() (the kernel tells a
 * datagram socket it may write only when it knows the peer). Connected, a
 * send is a send, sendmmsg() takes a batch, and POLLOUT says journald read.
 * A journald that restarts leaves the socket connected to its old one:
 * sends then fail with ECONNREFUSED, and the caller connects again.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "sinks/native.h"
#include "base/macro.h"

#define SNDBUF_SIZE (8 * 1024 * 1024) /* libsystemd's */

/* As libsystemd's fd_inc_sndbuf(): the limit for everyone, or past it with CAP_NET_ADMIN. */
static void sndbuf_raise(int fd)
{
	int v = SNDBUF_SIZE, have = 0;
	socklen_t l = sizeof(have);

	if (getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &have, &l) == 0 && have >= v * 2)
		return;
	if (setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &v, sizeof(v)) == 0 &&
	    getsockopt(fd, SOL_SOCKET, SO_SNDBUF, &have, &l) == 0 && have >= v * 2)
		return;
	(void)setsockopt(fd, SOL_SOCKET, SO_SNDBUFFORCE, &v, sizeof(v));
}

int native_connect(const char *path)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	_cleanup_close_ int fd = -EBADF;

	if (strlen(path) >= sizeof(sa.sun_path))
		return -ENAMETOOLONG;
	strcpy(sa.sun_path, path);
	fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0)
		return -errno;
	sndbuf_raise(fd);
	if (connect(fd, (const struct sockaddr *)&sa, sizeof(sa)) < 0)
		return -errno;
	return TAKE_FD(fd);
}

static int write_all(int fd, const char *p, size_t len)
{
	while (len > 0) {
		ssize_t k = write(fd, p, len);

		if (k < 0 && errno == EINTR)
			continue;
		if (k <= 0)
			return k < 0 ? -errno : -EIO;
		p += k;
		len -= (size_t)k;
	}
	return 0;
}

int native_send_memfd(int fd, const void *buf, size_t len)
{
	union {
		struct cmsghdr h;
		char buf[CMSG_SPACE(sizeof(int))];
	} control = {};
	struct msghdr mh = { .msg_control = &control, .msg_controllen = sizeof(control) };
	struct cmsghdr *c;
	_cleanup_close_ int mfd = -EBADF;
	int r;

	mfd = memfd_create("journal-entry", MFD_ALLOW_SEALING | MFD_CLOEXEC);
	if (mfd < 0)
		return -errno;
	r = write_all(mfd, buf, len);
	if (r < 0)
		return r;
	/* journald maps a sealed memfd as it is; an unsealed one it would have to copy */
	if (fcntl(mfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE | F_SEAL_SEAL) < 0)
		return -errno;
	c = CMSG_FIRSTHDR(&mh);
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &mfd, sizeof(int));
	/* the payload empty: journald reads the entry from the fd */
	if (sendmsg(fd, &mh, MSG_NOSIGNAL) < 0)
		return -errno;
	return 0;
}

static int send_once(int fd, const void *buf, size_t len)
{
	if (send(fd, buf, len, MSG_NOSIGNAL) >= 0)
		return 0;
	if (native_too_big(errno))
		return native_send_memfd(fd, buf, len);
	return -errno;
}

int native_send(int fd, const void *buf, size_t len, int timeout_ms)
{
	for (;;) {
		struct pollfd p = { .fd = fd, .events = POLLOUT };
		int r = send_once(fd, buf, len);

		if (r != -EAGAIN && r != -EINTR)
			return r;
		r = poll(&p, 1, timeout_ms);
		if (r == 0)
			return -EAGAIN;
		if (r < 0 && errno != EINTR)
			return -errno;
	}
}
