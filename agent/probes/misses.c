// SPDX-License-Identifier: LGPL-2.1-or-later
/*
 * Runs of our programs the kernel skipped: a kprobe, kprobe.multi or
 * tracepoint program that fires while another BPF program runs on its CPU
 * (or one preempted there), a trampoline's program re-entered, is not run
 * and counted as a recursion miss of the program (bpf_prog_info, Linux
 * 5.12). A skipped entry is a call never seen; a skipped return leaves a
 * frame the next entry on the thread finds over (UNTIMED).
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "probes/probes-int.h"

/* The program's count from bpf_prog_info, else from its fdinfo (which needs no capability). */
uint64_t probes_prog_misses(int fd)
{
	struct bpf_prog_info info = {};
	uint32_t len = sizeof(info);
	unsigned long long n = 0;
	char path[64], line[128];
	FILE *f;

	if (fd < 0)
		return 0;
	if (bpf_obj_get_info_by_fd(fd, &info, &len) == 0)
		return info.recursion_misses;
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "recursion_misses: %llu", &n) == 1)
			break;
	fclose(f);
	return n;
}

static uint64_t object_misses(const struct smblat_bpf *skel)
{
	struct bpf_program *prog;
	uint64_t n = 0;

	if (!skel)
		return 0;
	bpf_object__for_each_program (prog, skel->obj)
		n += probes_prog_misses(bpf_program__fd(prog));
	return n;
}

uint64_t probes_recursion_misses(const struct probes *p)
{
	uint64_t n;

	if (!p)
		return 0;
	n = p->misses_released + object_misses(p->skel) + object_misses(p->fskel);
	for (uint32_t i = 0; i < p->n_att; i++)
		for (int k = 0; k < 2; k++)
			n += probes_prog_misses(p->att[i].prog_fd[k]);
	return n;
}
