/* SPDX-License-Identifier: LGPL-2.1-or-later */
/*
 * probes_publish(): a live setting the programs read (struct smb2_ctl, the
 * smbd header layout) is rewritten with its switch off, and the switch is
 * written twice only: off first, on last. A hardware watchpoint on the
 * switch counts the writes (the copy that once rewrote the whole struct,
 * switch included, switched it on before the rest was written: three).
 * Skipped (77) where the machine has no hardware breakpoints.
 */
#include <errno.h>
#include <linux/hw_breakpoint.h>
#include <linux/perf_event.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "probes/probes.h"

#include "check.h"

static struct smb2_ctl live;

/* A counter of the user-space writes to the 4 bytes at addr; -errno where there is none. */
static int watch(const void *addr)
{
	struct perf_event_attr pa = {
		.type = PERF_TYPE_BREAKPOINT,
		.size = sizeof(pa),
		.bp_type = HW_BREAKPOINT_W,
		.bp_addr = (uintptr_t)addr,
		.bp_len = HW_BREAKPOINT_LEN_4,
		.exclude_kernel = 1,
		.exclude_hv = 1,
		.disabled = 1,
	};
	int fd = syscall(__NR_perf_event_open, &pa, 0, -1, -1, 0);

	return fd < 0 ? -errno : fd;
}

static uint64_t writes_of_publish(int fd, const struct smb2_ctl *next)
{
	uint64_t n = 0;

	ioctl(fd, PERF_EVENT_IOC_RESET, 0);
	ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
	probes_publish(&live, next, sizeof(*next));
	ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
	if (read(fd, &n, sizeof(n)) != sizeof(n))
		return UINT64_MAX;
	return n;
}

int main(void)
{
	struct smb2_ctl next;
	int fd = watch(&live.on);
	uint64_t n;

	if (fd < 0) {
		printf("SKIP: no hardware breakpoint: %s\n", strerror(-fd));
		return 77;
	}
	memset(&next, 0x5a, sizeof(next));
	next.on = 1;
	live.on = 1;
	n = writes_of_publish(fd, &next);
	check(n == 2, "the switch written %llu times, want 2 (off, then on last)", (unsigned long long)n);
	check(memcmp(&live, &next, sizeof(next)) == 0, "the live copy differs from the one published");
	/* switched off: written off twice, never on */
	next.on = 0;
	n = writes_of_publish(fd, &next);
	check(n == 2 && live.on == 0, "switched off: %llu writes, on = %u", (unsigned long long)n, live.on);
	close(fd);
	return check_done("publish");
}
