// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * BPF iterators: a program that walks a kernel list (tasks) once, on the
 * agent's demand, where reading /proc for it would need rights over every
 * process.
 */
#include <errno.h>
#include <string.h>
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

ssize_t probes_iter_run_task(struct probes *p, size_t at, pid_t tid)
{
	struct bpf_program *prog = prog_at(p->skel, at);
	union bpf_iter_link_info info;
	LIBBPF_OPTS(bpf_iter_attach_opts, o, .link_info = &info, .link_info_len = sizeof(info));
	struct bpf_link *link = NULL;
	ssize_t r;
	int fd;

	if (!prog || !bpf_program__autoload(prog))
		return -ENOENT;
	/* every byte: the kernel checks those of the union's other members are zero */
	memset(&info, 0, sizeof(info));
	info.task.tid = (uint32_t)tid;
	if (tid)
		link = bpf_program__attach_iter(prog, &o);
	/* a kernel that cannot narrow a task iterator (before 6.1) walks them all */
	if (!link)
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

ssize_t probes_iter_run(struct probes *p, size_t at)
{
	return probes_iter_run_task(p, at, 0);
}
