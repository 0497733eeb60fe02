/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probes/detach.h: every fd handed over is closed once, by however many
 * threads, and the set is empty after; an empty set is no work.
 */
#include <errno.h>
#include <fcntl.h>
#include <unistd.h>

#include "probes/detach.h"

#include "check.h"

#define N 300 /* more than the threads, and than the first array */

static void test_fds(void)
{
	struct detach_set s = {};
	int fds[N], held[N], open_after = 0;

	for (int i = 0; i < N; i++) {
		fds[i] = open("/dev/null", O_RDONLY | O_CLOEXEC);
		held[i] = fds[i];
		check(fds[i] >= 0, "open /dev/null: %m");
		check(detach_add_fd(&s, &fds[i]) == 0, "add fd %d", i);
		check(fds[i] == -1, "the set took fd %d", held[i]);
	}
	detach_run(&s);
	for (int i = 0; i < N; i++)
		open_after += fcntl(held[i], F_GETFD) >= 0 || errno != EBADF;
	check(open_after == 0, "%d of %d fds still open", open_after, N);
	check(s.n == 0 && s.v == NULL, "the set is empty after");
}

static void test_empty(void)
{
	struct detach_set s = {};
	struct bpf_link *none = NULL;
	int fd = -1;

	check(detach_add_link(&s, &none) == 0 && s.n == 0, "a NULL link is nothing to add");
	check(detach_add_fd(&s, &fd) == 0 && s.n == 0, "fd -1 is nothing to add");
	detach_run(&s);
	check(s.n == 0, "empty");
}

int main(void)
{
	test_fds();
	test_empty();
	return check_done("test-detach");
}
