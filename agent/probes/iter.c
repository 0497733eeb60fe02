// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BPF iterators: a program that walks a kernel list (tasks) once, on the
 * agent's demand, where reading /proc for it would need rights over every
 * process.
 */
#include <errno.h>
#include <unistd.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

static ssize_t iter_drain(int fd)
{
	char buf[4096];
	ssize_t total = 0, r;

	while ((r = read(fd, buf, sizeof(buf))) != 0) {
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		total += r;
	}
	return total;
}

ssize_t probes_iter_run(struct probes *p, size_t at)
{
	struct bpf_program *prog = prog_at(p->skel, at);
	struct bpf_link *link;
	ssize_t r;
	int fd;

	if (!prog || !bpf_program__autoload(prog))
		return -ENOENT;
	link = bpf_program__attach_iter(prog, NULL);
	if (!link)
		return -errno;
	fd = bpf_iter_create(bpf_link__fd(link));
	r = fd < 0 ? -errno : iter_drain(fd);
	if (fd >= 0)
		close(fd);
	bpf_link__destroy(link);
	return r;
}
