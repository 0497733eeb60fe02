// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * A fixed mix of syscalls over a process, its child and a thread, for
 * comparing smblat's syscall counts with strace -c -f's:  sysmix [w]
 * (w: wait for a line on stdin first). Raw syscall(2) where the C library
 * might cache or skip the call.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static void *thread(void *arg)
{
	for (int i = 0; i < 15; i++)
		syscall(SYS_getuid);
	return arg;
}

int main(int argc, char **argv)
{
	char buf[64];
	pthread_t t;
	int p[2];
	pid_t pid;

	if (argc > 1 && strcmp(argv[1], "w") == 0 && !fgets(buf, sizeof(buf), stdin))
		return 1;
	for (int i = 0; i < 50; i++) {
		int fd = (int)syscall(SYS_openat, AT_FDCWD, "/proc/self/stat", O_RDONLY | O_CLOEXEC);

		if (fd < 0)
			return 1;
		syscall(SYS_read, fd, buf, sizeof(buf));
		syscall(SYS_close, fd);
	}
	for (int i = 0; i < 20; i++)
		syscall(SYS_openat, AT_FDCWD, "/nonexistent/sysmix", O_RDONLY);
	/* a second errno of the same syscall: EISDIR */
	for (int i = 0; i < 5; i++)
		syscall(SYS_openat, AT_FDCWD, "/", O_WRONLY);
	for (int i = 0; i < 30; i++)
		syscall(SYS_getppid);
	if (pipe(p) < 0)
		return 1;
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 10; i++)
			syscall(SYS_getpid);
		syscall(SYS_write, p[1], "x", 1);
		_exit(0);
	}
	if (pid < 0 || read(p[0], buf, 1) != 1 || waitpid(pid, NULL, 0) != pid)
		return 1;
	if (pthread_create(&t, NULL, thread, NULL) || pthread_join(t, NULL))
		return 1;
	for (int i = 0; i < 25; i++)
		syscall(SYS_write, 1, "", 0);
	return 0;
}
