// SPDX-License-Identifier: LGPL-2.1-or-later
/* uprobe.multi and uprobe.session links, made with the kernel's own BPF_LINK_CREATE layout. */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>
#include <sys/syscall.h>
#include <linux/bpf.h>

#include "probes/probes-int.h"

/*
 * uprobe.multi: one link for many offsets of one file. What it buys here is
 * the detach: each single uprobe waits for an RCU grace period when it goes
 * (0.1-0.2 s each measured on 6.18: 25-45 s for the ~230 of the smbd
 * layer), a multi link waits once. libbpf has it from 1.3 on; with the 1.1
 * of Debian 12, whose bpf_link_create() cannot pass these fields, the link
 * is made with the kernel's own BPF_LINK_CREATE layout.
 */
struct umulti_link_attr {
	uint32_t prog_fd, target_fd, attach_type, flags;
	uint64_t path, offsets, ref_ctr_offsets, cookies;
	uint32_t cnt, multi_flags, pid;
	/*
	 * The kernel refuses a link_create whose bytes past the fields it
	 * reads are not zero, and an initializer need not zero padding (a
	 * clang build left stack garbage there: EINVAL): no padding at all.
	 */
	uint32_t zero;
};
_Static_assert(sizeof(struct umulti_link_attr) == 64, "no padding in what the kernel reads");

int umulti_link(int prog_fd, uint32_t attach_type, const char *binary, const uint64_t *offsets,
		const uint64_t *cookies, uint32_t n, uint32_t flags, int pid)
{
	struct umulti_link_attr attr = {
		.prog_fd = prog_fd,
		.attach_type = attach_type,
		.path = (uintptr_t)binary,
		.offsets = (uintptr_t)offsets,
		.cookies = (uintptr_t)cookies,
		.cnt = n,
		.multi_flags = flags,
		.pid = pid > 0 ? (uint32_t)pid : 0,
	};
	int fd = syscall(__NR_bpf, BPF_LINK_CREATE, &attr, sizeof(attr));

	return fd < 0 ? -errno : fd;
}

int umulti_link_create(int prog_fd, const char *binary, const uint64_t *offsets, const uint64_t *cookies,
		       uint32_t n, bool ret)
{
	return umulti_link(prog_fd, UMULTI_ATTACH_TYPE, binary, offsets, cookies, n, ret ? UMULTI_RETURN : 0,
			   0);
}
