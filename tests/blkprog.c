// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Mixed direct I/O on a block device for the block layer's accounting test:
 *   blkprog DEVICE OPS THREADS SEED
 * THREADS threads share OPS operations: O_DIRECT reads and writes of 4 to
 * 64 KiB at random aligned offsets, an fsync (a flush, when the device has
 * a write back cache) every tenth and a discard every twentieth, so that
 * requests of several kinds are in flight at once and complete on either
 * CPU. Prints "reads N writes N fsyncs N discards N" (system calls, not
 * requests: the kernel may split or merge; /sys/block/DEV/stat counts the
 * requests).
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/fs.h>
#include <unistd.h>

#define ALIGN 4096
#define MAX_IO (64 * 1024)

static const char *device;
static long ops_left;
static uint64_t dev_size;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static long n_reads, n_writes, n_fsyncs, n_discards;

static bool take_op(void)
{
	bool ok;

	pthread_mutex_lock(&lock);
	ok = ops_left > 0;
	ops_left -= ok;
	pthread_mutex_unlock(&lock);
	return ok;
}

static void count(long *n)
{
	pthread_mutex_lock(&lock);
	(*n)++;
	pthread_mutex_unlock(&lock);
}

static void *worker(void *arg)
{
	unsigned int seed = (unsigned int)(uintptr_t)arg;
	void *buf;
	int fd;

	fd = open(device, O_RDWR | O_DIRECT | O_CLOEXEC);
	if (fd < 0 || posix_memalign(&buf, ALIGN, MAX_IO) != 0) {
		perror(device);
		exit(1);
	}
	memset(buf, 0x5a, MAX_IO);
	while (take_op()) {
		unsigned int r = rand_r(&seed);
		size_t len = ALIGN * (1 + r % (MAX_IO / ALIGN));
		off_t off = (off_t)(rand_r(&seed) % ((dev_size - MAX_IO) / ALIGN)) * ALIGN;

		if (r % 20 == 1) {
			uint64_t range[2] = { (uint64_t)off, len };

			if (ioctl(fd, BLKDISCARD, range) < 0) {
				perror("BLKDISCARD");
				exit(1);
			}
			count(&n_discards);
		} else if (r % 10 == 0) {
			if (fsync(fd) < 0) {
				perror("fsync");
				exit(1);
			}
			count(&n_fsyncs);
		} else if (r % 10 < 6) {
			if (pread(fd, buf, len, off) != (ssize_t)len) {
				perror("pread");
				exit(1);
			}
			count(&n_reads);
		} else {
			if (pwrite(fd, buf, len, off) != (ssize_t)len) {
				perror("pwrite");
				exit(1);
			}
			count(&n_writes);
		}
	}
	free(buf);
	close(fd);
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t[64];
	int n, fd;

	if (argc != 5) {
		fprintf(stderr, "usage: blkprog DEVICE OPS THREADS SEED\n");
		return 2;
	}
	device = argv[1];
	ops_left = atol(argv[2]);
	n = atoi(argv[3]);
	if (n < 1 || n > 64) {
		fprintf(stderr, "blkprog: 1 to 64 threads\n");
		return 2;
	}
	fd = open(device, O_RDONLY | O_CLOEXEC);
	if (fd < 0 || ioctl(fd, BLKGETSIZE64, &dev_size) < 0 || dev_size < 2 * MAX_IO) {
		fprintf(stderr, "blkprog: %s: %s\n", device, fd < 0 ? strerror(errno) : "too small");
		return 1;
	}
	close(fd);
	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, worker, (void *)(uintptr_t)(atoi(argv[4]) * 64 + i + 1));
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	printf("reads %ld writes %ld fsyncs %ld discards %ld\n", n_reads, n_writes, n_fsyncs, n_discards);
	return 0;
}
